// The renderers on hand-built diagnostics: text (excerpts, carets, notes,
// inlined-from lines, colors), JSON (the version 1 schema, key by key) and
// SARIF (rules, relative URIs, related locations, stable fingerprints).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "report/DisplayNames.h"
#include "report/Frames.h"
#include "report/Json.h"
#include "report/Sarif.h"
#include "report/SourceText.h"
#include "report/Text.h"

using namespace fenceline;
using namespace fenceline::report;
namespace fs = std::filesystem;

namespace {

// A scratch folder with a small source file; removed at the end of the test.
class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("fenceline-report-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root / "src");
    source = (root / "src" / "kernel.cu").string();
    writeSource({"__device__ void consume(int* p) {", "  int x = p[0];", "\tp[1] = x;", "}",
                 "__global__ void k(int* p) { consume(p); }"});
  }
  void TearDown() override { fs::remove_all(root); }

  void writeSource(const std::vector<std::string>& lines) {
    std::ofstream out(source);
    for (const auto& line : lines) out << line << "\n";
  }

  model::SourceFrame frame(uint32_t line, uint32_t column, std::string function) const {
    return {source, line, column, std::move(function)};
  }

  // A diagnostic at consume's store (line 3, col 2 after a tab), inlined into k
  // at line 5; a note at the load on line 2.
  Diagnostic sample() const {
    Diagnostic d;
    d.check = "acquire-missing";
    d.message = "data read after the spin without acquire";
    d.function = "k";
    d.location.frames = {frame(3, 2, "consume"), frame(5, 28, "k")};
    d.location.ptxFile = "kernel.ptx";
    d.location.ptxLine = 40;
    Note note;
    note.message = "the polling load";
    note.location.frames = {frame(2, 11, "consume"), frame(5, 28, "k")};
    d.notes.push_back(note);
    d.fix = "insert __threadfence() after the loop";
    return d;
  }

  fs::path root;
  std::string source;
};

}  // namespace

TEST_F(ReportTest, SeverityNames) {
  EXPECT_EQ(toString(Severity::Note), "note");
  EXPECT_EQ(toString(Severity::Warning), "warning");
  EXPECT_EQ(toString(Severity::Error), "error");
}

TEST_F(ReportTest, TextHasLocationExcerptNotesInlineChainAndFix) {
  SourceText sources;
  std::string text = renderText(sample(), sources, {});
  std::string expected = source + ":3:2: warning: data read after the spin without acquire [acquire-missing]\n" +
                         "\tp[1] = x;\n" + "\t^\n" +
                         source + ":5:28: note: inlined from 'k'\n" +
                         source + ":2:11: note: the polling load\n" +
                         "  int x = p[0];\n" + "          ^\n" +
                         source + ":5:28: note: inlined from 'k'\n" +
                         "fix: insert __threadfence() after the loop\n";
  EXPECT_EQ(text, expected);
}

TEST_F(ReportTest, TextWithoutReadableSourceHasNoExcerpt) {
  SourceText sources;
  Diagnostic d = sample();
  d.location.frames = {{"/nonexistent/file.cu", 7, 3, "f"}};
  d.notes.clear();
  d.fix.clear();
  EXPECT_EQ(renderText(d, sources, {}),
            "/nonexistent/file.cu:7:3: warning: data read after the spin without acquire [acquire-missing]\n");
}

TEST_F(ReportTest, TextFallsBackToPtxPositionWithoutLineInfo) {
  SourceText sources;
  Diagnostic d = sample();
  d.location.frames.clear();
  d.location.ptxColumn = 2;
  d.notes.clear();
  EXPECT_EQ(renderText(d, sources, {}).substr(0, 25), "kernel.ptx:40:2: warning:");
}

TEST_F(ReportTest, TextColorsOnlyWhenAsked) {
  SourceText sources;
  EXPECT_EQ(renderText(sample(), sources, {false, true}).find('\033'), std::string::npos);
  EXPECT_NE(renderText(sample(), sources, {true, true}).find("\033[1;35mwarning:"), std::string::npos);
}

TEST_F(ReportTest, TextCaretOmittedPastEndOfLine) {
  SourceText sources;
  Diagnostic d = sample();
  d.location.frames = {frame(4, 40, "consume")};
  d.notes.clear();
  d.fix.clear();
  EXPECT_EQ(renderText(d, sources, {}), source + ":4:40: warning: " + d.message + " [acquire-missing]\n}\n");
}

TEST_F(ReportTest, SummaryCountsWarningsAndFunctions) {
  std::vector<Diagnostic> list{sample(), sample()};
  list[1].function = "other";
  RunStats stats{2, 5, 100, 0.25};
  EXPECT_EQ(summaryLine(list, stats), "2 warnings in 2 functions (5 functions checked in 2 files, 0.25 s)");
  EXPECT_EQ(summaryLine({}, {1, 1, 3, 0.0}), "0 warnings in 0 functions (1 function checked in 1 file, 0.00 s)");
}

TEST_F(ReportTest, JsonFollowsTheVersionOneSchema) {
  std::vector<Diagnostic> list{sample()};
  auto document = nlohmann::json::parse(renderJson(list, {1, 2, 30, 0.5}));
  EXPECT_EQ(document["version"], 1);
  ASSERT_EQ(document["diagnostics"].size(), 1u);
  const auto& d = document["diagnostics"][0];
  std::vector<std::string> keys;
  for (auto it = d.begin(); it != d.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"check", "evidence", "expanded_from", "fingerprint", "fix", "fix_edits",
                                            "function", "inlined_at", "location", "message", "notes", "severity",
                                            "tier"}));
  EXPECT_EQ(d["tier"], "default");
  EXPECT_EQ(d["evidence"], nlohmann::json::array());
  EXPECT_EQ(d["expanded_from"], nlohmann::json::array());
  EXPECT_EQ(d["check"], "acquire-missing");
  EXPECT_EQ(d["severity"], "warning");
  EXPECT_EQ(d["function"], "k");
  EXPECT_EQ(d["location"], (nlohmann::json{{"file", source}, {"line", 3}, {"column", 2}}));
  EXPECT_EQ(d["inlined_at"],
            nlohmann::json::array({{{"function", "k"}, {"file", source}, {"line", 5}, {"column", 28}}}));
  ASSERT_EQ(d["notes"].size(), 1u);
  EXPECT_EQ(d["notes"][0]["message"], "the polling load");
  EXPECT_EQ(d["notes"][0]["location"]["line"], 2);
  EXPECT_EQ(d["notes"][0]["inlined_at"].size(), 1u);
  EXPECT_EQ(d["fix"], "insert __threadfence() after the loop");
  EXPECT_EQ(document["stats"], (nlohmann::json{
                                   {"files", 1}, {"functions", 2}, {"instructions", 30}, {"seconds", 0.5}, {"complete", true}}));
  EXPECT_EQ(document["notifications"], nlohmann::json::array());
}

// What was not checked (report/Stats.h): JSON's notifications and "complete",
// SARIF's invocation (issue 35).
TEST_F(ReportTest, NotificationsSayWhatWasNotChecked) {
  RunStats stats;
  stats.files = 1;
  RunNotification n;
  n.kind = "time";
  n.message = "kernel 'k' not checked: more than 5 seconds building the value analysis (--max-seconds-per-function)";
  n.file = "k.ptx";
  n.line = 12;
  n.column = 1;
  n.function = "k";
  stats.notifications.push_back(n);
  auto document = nlohmann::json::parse(renderJson({}, stats));
  EXPECT_EQ(document["stats"]["complete"], false);
  ASSERT_EQ(document["notifications"].size(), 1u);
  EXPECT_EQ(document["notifications"][0],
            (nlohmann::json{{"level", "error"}, {"kind", "time"}, {"message", n.message}, {"file", "k.ptx"},
                            {"line", 12}, {"column", 1}, {"function", "k"}}));
  // A note alone (SASS-only kernels) leaves the run complete; a signal does not.
  stats.notifications[0].level = "note";
  EXPECT_TRUE(stats.complete());
  stats.interruptedBy = 15;
  EXPECT_FALSE(stats.complete());

  SourceText sources;
  SarifOptions options;
  options.toolVersion = "0";
  options.stats = stats;
  auto sarif = nlohmann::json::parse(renderSarif({}, sources, options));
  const auto& invocation = sarif["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  ASSERT_EQ(invocation["toolExecutionNotifications"].size(), 1u);
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["level"], "note");
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["descriptor"]["id"], "time");
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["message"]["text"], n.message);
}

// The primary-location rule (report/Frames.h): a library helper below the
// user's line is an "expanded from" note; the user's line is the location.
TEST_F(ReportTest, PrimaryFrameIsTheUsersCallIntoTheLibrary) {
  std::vector<model::SourceFrame> frames{{"/lib/atomic.h", 7, 3, "atomicAdd"},
                                         {"/lib/wrap.h", 20, 5, "lib::signal"},
                                         {source, 3, 2, "consume"},
                                         {source, 5, 28, "k"}};
  auto isLibrary = [](const std::string& file) { return file.starts_with("/lib/"); };
  EXPECT_EQ(choosePrimary(frames, isLibrary), std::optional<size_t>(2));
  // A library kernel template wrapping the user's functor is skipped first.
  std::vector<model::SourceFrame> wrapped{{"/lib/copy.h", 1, 1, "cute::copy"},
                                          {source, 3, 2, "Functor::operator()"},
                                          {"/lib/kernel.h", 9, 1, "cutlass::device_kernel"}};
  EXPECT_EQ(choosePrimary(wrapped, isLibrary), std::optional<size_t>(1));
  std::vector<model::SourceFrame> allLibrary{{"/lib/a.h", 1, 1, "a"}, {"/lib/b.h", 2, 1, "b"}};
  EXPECT_EQ(choosePrimary(allLibrary, isLibrary), std::nullopt);
  EXPECT_EQ(choosePrimary(std::vector<model::SourceFrame>{{source, 1, 1, "k"}}, isLibrary), std::optional<size_t>(0));
}

TEST_F(ReportTest, HelperFramesAreExpandedFromNotes) {
  Diagnostic d = sample();
  d.location.frames.insert(d.location.frames.begin(), model::SourceFrame{"/lib/atomic.h", 7, 3, "atomicAdd"});
  d.location.primary = 1;
  EXPECT_EQ(primaryFrame(d.location).line, 3u);
  ASSERT_EQ(helperFrames(d.location).size(), 1u);
  ASSERT_EQ(inlinedAt(d.location).size(), 1u);
  SourceText sources;
  std::string text = renderText(d, sources, {});
  EXPECT_NE(text.find(source + ":3:2: warning: data read after the spin without acquire [acquire-missing]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("/lib/atomic.h:7:3: note: expanded from 'atomicAdd'\n"), std::string::npos) << text;
  auto json = nlohmann::json::parse(renderJson(std::vector<Diagnostic>{d}, {1, 1, 1, 0.0}))["diagnostics"][0];
  EXPECT_EQ(json["location"]["line"], 3);
  EXPECT_EQ(json["expanded_from"][0]["function"], "atomicAdd");
}

TEST_F(ReportTest, InstantiationsNoteNamesTheCountAndAnExample) {
  Diagnostic d = sample();
  d.instantiations = {"k<int>", "k<float>", "k<double>"};
  SourceText sources;
  std::string text = renderText(d, sources, {});
  EXPECT_NE(text.find("note: one finding for 3 instantiations reaching this site (this one in 'k<int>'; another: "
                      "'k<float>')\n"),
            std::string::npos)
      << text;
  auto json = nlohmann::json::parse(renderJson(std::vector<Diagnostic>{d}, {1, 1, 1, 0.0}))["diagnostics"][0];
  EXPECT_EQ(json["instantiations"].size(), 3u);
}

TEST_F(ReportTest, JsonOfNoDiagnosticsIsAnEmptyList) {
  auto document = nlohmann::json::parse(renderJson({}, {}));
  EXPECT_TRUE(document["diagnostics"].is_array());
  EXPECT_TRUE(document["diagnostics"].empty());
}

namespace {

SarifOptions sarifOptions(const fs::path& root) {
  SarifOptions options;
  options.toolVersion = "1.2.3";
  options.sourceRoot = root;
  options.rules = {{"proxy-war", "short", "", "", "", Severity::Warning},
                   {"acquire-missing", "spin without acquire", "full text", "# help", "", Severity::Warning}};
  return options;
}

}  // namespace

TEST_F(ReportTest, SarifHasRulesResultsAndRelativeUris) {
  SourceText sources;
  std::vector<Diagnostic> list{sample()};
  auto document = nlohmann::json::parse(renderSarif(list, sources, sarifOptions(root)));
  EXPECT_EQ(document["version"], "2.1.0");
  EXPECT_NE(document["$schema"].get<std::string>().find("sarif-schema-2.1.0"), std::string::npos);
  const auto& run = document["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "fenceline");
  EXPECT_EQ(run["tool"]["driver"]["version"], "1.2.3");
  const auto& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[1]["id"], "acquire-missing");
  EXPECT_EQ(rules[1]["shortDescription"]["text"], "spin without acquire");
  EXPECT_EQ(rules[1]["fullDescription"]["text"], "full text");
  EXPECT_EQ(rules[1]["help"]["markdown"], "# help");
  EXPECT_EQ(rules[1]["defaultConfiguration"]["level"], "warning");
  EXPECT_EQ(rules[0]["fullDescription"]["text"], "short");  // falls back to the summary

  const auto& result = run["results"][0];
  EXPECT_EQ(result["ruleId"], "acquire-missing");
  EXPECT_EQ(result["ruleIndex"], 1);
  EXPECT_EQ(result["level"], "warning");
  EXPECT_NE(result["message"]["text"].get<std::string>().find("data read after the spin"), std::string::npos);
  const auto& physical = result["locations"][0]["physicalLocation"];
  EXPECT_EQ(physical["artifactLocation"]["uri"], "src/kernel.cu");
  EXPECT_EQ(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  EXPECT_EQ(physical["region"]["startLine"], 3);
  EXPECT_EQ(physical["region"]["startColumn"], 2);
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file://" + root.string() + "/");
  ASSERT_EQ(result["relatedLocations"].size(), 1u);
  EXPECT_EQ(result["relatedLocations"][0]["message"]["text"], "the polling load");
  EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 2);
  EXPECT_TRUE(result["partialFingerprints"].contains("fencelineHash/v1"));
  EXPECT_EQ(result["codeFlows"][0]["threadFlows"][0]["locations"].size(), 2u);
}

TEST_F(ReportTest, SarifUsesAbsoluteFileUriOutsideTheRoot) {
  SourceText sources;
  std::vector<Diagnostic> list{sample()};
  auto document = nlohmann::json::parse(renderSarif(list, sources, sarifOptions(root / "elsewhere")));
  const auto& artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(artifact["uri"], "file://" + source);
  EXPECT_FALSE(artifact.contains("uriBaseId"));
}

TEST_F(ReportTest, SarifFingerprintSurvivesLinesAddedAbove) {
  std::vector<Diagnostic> list{sample()};
  SourceText before;
  auto first = nlohmann::json::parse(renderSarif(list, before, sarifOptions(root)));
  writeSource({"// a new comment", "__device__ void consume(int* p) {", "  int x = p[0];", "\tp[1] = x;", "}",
               "__global__ void k(int* p) { consume(p); }"});
  list[0].location.frames[0].line = 4;
  list[0].location.frames[1].line = 6;
  SourceText after;
  auto second = nlohmann::json::parse(renderSarif(list, after, sarifOptions(root)));
  EXPECT_EQ(first["runs"][0]["results"][0]["partialFingerprints"],
            second["runs"][0]["results"][0]["partialFingerprints"]);
}

TEST_F(ReportTest, SarifFingerprintsOfRepeatedSitesDiffer) {
  SourceText sources;
  std::vector<Diagnostic> list{sample(), sample()};
  auto document = nlohmann::json::parse(renderSarif(list, sources, sarifOptions(root)));
  const auto& results = document["runs"][0]["results"];
  EXPECT_NE(results[0]["partialFingerprints"], results[1]["partialFingerprints"]);
}

TEST_F(ReportTest, SourceTextSplitsLinesAndRemembersMissingFiles) {
  EXPECT_EQ(splitLines("a\r\nb\n\nc"), (std::vector<std::string>{"a", "b", "", "c"}));
  SourceText sources;
  EXPECT_EQ(sources.line(source, 2), "  int x = p[0];");
  EXPECT_FALSE(sources.line(source, 99));
  EXPECT_FALSE(sources.line("/nonexistent", 1));
  EXPECT_EQ(sources.lines("/nonexistent"), nullptr);
}

// Names exactly as nvcc 13.0 records them (tests/report/Inputs/display_names.cu
// and the real-code corpus's toolkit_sync.cu, demangled).
TEST(DisplayNames, DropNvccInternalLinkageNamespaces) {
  using fenceline::report::displayFunction;
  EXPECT_EQ(displayFunction("_INTERNAL_bf544895_16_display_names_cu_83a6bd14::atomicAdd(int*, int)"),
            "atomicAdd(int*, int)");
  EXPECT_EQ(displayFunction("_INTERNAL_bf544895_16_display_names_cu_83a6bd14::_GLOBAL__N__bf544895_16_display_names_"
                            "cu_83a6bd14::raise_flag(int*)"),
            "(anonymous namespace)::raise_flag(int*)");
  EXPECT_EQ(displayFunction("_INTERNAL_cf2a3d62_15_toolkit_sync_cu_68fadb86::cooperative_groups::__v1::details::cta::sync()"),
            "cooperative_groups::__v1::details::cta::sync()");
  // The suffix nvcc adds in some translation units (gemm_pingpong.cu), and inside template arguments.
  EXPECT_EQ(displayFunction("f<_INTERNAL_30eb523c_16_gemm_pingpong_cu_8832df58_24801::cuda::std::__4::ignore_t>()"),
            "f<cuda::std::__4::ignore_t>()");
  // Look-alikes stay: a user's own name that only starts the same way.
  EXPECT_EQ(displayFunction("_INTERNAL_counter::get()"), "_INTERNAL_counter::get()");
  EXPECT_EQ(displayFunction("my_INTERNAL_cf2a3d62_15_toolkit_sync_cu_68fadb86::f()"),
            "my_INTERNAL_cf2a3d62_15_toolkit_sync_cu_68fadb86::f()");
}

TEST(DisplayNames, ToolkitPathsWithoutBinDotDot) {
  using fenceline::report::displayFile;
  EXPECT_EQ(displayFile("/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/cooperative_groups.h"),
            "/usr/local/cuda-13.0/targets/x86_64-linux/include/cooperative_groups.h");
  EXPECT_EQ(displayFile("/work/src/./kernel.cu"), "/work/src/kernel.cu");
  EXPECT_EQ(displayFile("/work/src/kernel.cu"), "/work/src/kernel.cu");
  EXPECT_EQ(displayFile("src/../kernel.cu"), "src/../kernel.cu");  // relative: as given
  EXPECT_EQ(displayFile(""), "");
}
