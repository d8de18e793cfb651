// fenceline: the command-line driver. `fenceline check` reads top to bottom as
// the pipeline it runs: select checks, collect inputs, and for each input get
// PTX, parse it, build the program model and run the checks; then one report
// per source site, suppressions, baseline, and either --verify or a renderer.
// Each input is checked under its configuration file (.fenceline.toml, found
// upward from it) with the command line on top (Settings.h).
// `list-checks` and `explain` read the same check table.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "checks/CheckTable.h"
#include "driver/Baseline.h"
#include "driver/Binaries.h"
#include "driver/CheckModule.h"
#include "driver/CheckSelection.h"
#include "driver/Compiler.h"
#include "driver/Config.h"
#include "driver/Deduplicate.h"
#include "driver/DidYouMean.h"
#include "driver/Explain.h"
#include "driver/Inputs.h"
#include "driver/Options.h"
#include "driver/Parallel.h"
#include "driver/PtxSources.h"
#include "driver/ProjectRoot.h"
#include "driver/Settings.h"
#include "driver/Suppressions.h"
#include "driver/UserCode.h"
#include "driver/Verify.h"
#include "fix/Apply.h"
#include "fix/Planner.h"
#include "model/Demangle.h"
#include "model/Program.h"
#include "ptx/Parser.h"
#include "report/Frames.h"
#include "report/Fingerprint.h"
#include "report/Json.h"
#include "report/Sarif.h"
#include "report/SourceText.h"
#include "report/Text.h"

namespace fenceline::driver {

namespace {

namespace fs = std::filesystem;
using Checks = std::vector<const checks::CheckInfo*>;

// What checking one input produced; filled by a worker thread.
struct InputResult {
  std::vector<report::Diagnostic> diagnostics;
  std::vector<std::string> sourceFiles;  // where --verify looks for `// expect:`
  std::string error;                     // an input error, printed as is
  std::string notes;                     // what could not be checked (SASS-only kernels), printed as is
  std::string warning;                   // something skipped, printed as is
  std::vector<report::RunNotification> notifications;  // the errors, notes and warnings above, for JSON and SARIF
  bool checked = false;
  std::vector<FindingKeys> strictHidden;  // strict-tier findings not reported (no --strict), to count
  bool interrupted = false;              // a stop request ended it early (or before it began)
  size_t functions = 0, instructions = 0;
};

// "path: error: message\n..." -> "message...", for a notification's text.
std::string withoutPrefix(std::string text, const std::string& path, const char* level) {
  std::string prefix = path + ": " + level + ": ";
  if (text.starts_with(prefix)) text.erase(0, prefix.size());
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

report::RunNotification notification(const char* level, const char* kind, std::string message, std::string file,
                                     uint32_t line = 0, uint32_t column = 0) {
  report::RunNotification n;
  n.level = level;
  n.kind = kind;
  n.message = std::move(message);
  n.file = std::move(file);
  n.line = line;
  n.column = column;
  return n;
}

std::string formatParseError(const ptx::ParseError& e) {
  std::string text = fmt::format("{}:{}:{}: error: {}\n", e.file, e.line, e.column, e.message);
  if (!e.excerpt.empty()) text += e.excerpt + (e.excerpt.back() == '\n' ? "" : "\n");
  return text;
}

// Sources of a module that may carry suppressions or expectations: the files
// its .loc directives name, except the toolkit's and the system's headers.
std::vector<std::string> projectSources(const ptx::Module& module, const std::string& toolkitRoot) {
  std::vector<std::string> files;
  for (const auto& file : module.files) {
    const std::string& path = file.path;
    if (path.starts_with("/usr/include/") || path.starts_with("/usr/lib/") ||
        (!toolkitRoot.empty() && path.starts_with(toolkitRoot + "/")))
      continue;
    files.push_back(path);
  }
  return files;
}

// The lines of a PTX text (for --show-ptx).
std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// Where each diagnostic is reported (the user's line, driver/UserCode.h),
// with the PTX line's text for --show-ptx (`lines`, empty without it) and
// the input named when it is not the source file.
void placeDiagnostics(std::vector<report::Diagnostic>& diagnostics, const UserCode& userCode, const PtxUnit& unit,
                      const std::vector<std::string_view>& lines) {
  auto place = [&](report::Location& location) {
    userCode.choosePrimary(location);
    if (location.ptxLine > 0 && location.ptxLine <= lines.size()) location.ptxText = lines[location.ptxLine - 1];
  };
  for (auto& diagnostic : diagnostics) {
    place(diagnostic.location);
    for (auto& note : diagnostic.notes) place(note.location);
    for (auto& link : diagnostic.evidence)
      if (link.location) place(*link.location);
    std::function<void(report::FixRequest&)> placeRequest = [&](report::FixRequest& request) {
      userCode.choosePrimary(request.anchor);
      for (auto* locations : {&request.after, &request.before})
        for (auto& location : *locations) userCode.choosePrimary(location);
      userCode.choosePrimary(request.loop);
      for (auto& [arrival, poll] : request.barrierUses) {
        userCode.choosePrimary(arrival);
        userCode.choosePrimary(poll);
      }
      for (auto& more : request.together) placeRequest(more);
    };
    placeRequest(diagnostic.fixRequest);
    placeRequest(diagnostic.producerFixRequest);
    if (!unit.label.empty() && report::primaryFrame(diagnostic.location).file != unit.path)
      diagnostic.input = unit.label;
  }
}

UserCode userCodeFor(const Input& input, const CheckOptions& options, const std::string& toolkitRoot) {
  std::vector<std::string> system = options.systemHeaderPrefixes;
  if (!toolkitRoot.empty()) system.push_back(toolkitRoot);
  for (const auto* flags : {&input.flags, &options.nvccFlags})
    for (auto& dir : isystemDirs(*flags)) system.push_back(dir);
  std::error_code error;
  return UserCode(std::move(system), {input.root, fs::current_path(error).string()});
}

// The machine fix of each finding (fix/Planner.h): edits of the user's
// source, spelled like the file and the configuration say, or why there are
// none. Returns what plans them for one input, a function's findings at a
// time as it is checked: once planned, a finding's fix requests (what the
// check asked for: the locations of every access and barrier involved, 6.5
// KB a finding on NCCL) are read by nothing and are dropped, so that what a
// binary keeps until its report is the findings, not their requests.
using FixPlanner = std::function<void(std::vector<report::Diagnostic>&)>;
FixPlanner fixPlanner(const Input& input, const InputSettings& settings, const std::string& toolkitRoot) {
  const CheckOptions& options = settings.options;
  auto userCode = std::make_shared<UserCode>(userCodeFor(input, options, toolkitRoot));
  fix::FixSettings fixSettings;
  fixSettings.producerStyle = options.fixStyle == "producer";
  fixSettings.fixHeaders = options.fixHeaders;
  if (const Config* config = settings.config)
    fixSettings.spelling = {config->fixSpelling, config->fixProxyFence, config->fixAcqRelFence};
  // The toolkit as nvcc names its headers: /usr/local/cuda may be a link to /usr/local/cuda-13.0.
  std::error_code error;
  std::string realToolkit = toolkitRoot.empty() ? "" : fs::canonical(toolkitRoot, error).string();
  fixSettings.isSystem = [userCode, realToolkit](const std::string& file) {
    return userCode->isSystem(file) || (!realToolkit.empty() && file.starts_with(realToolkit + "/"));
  };
  fixSettings.isLibrary = [userCode](const std::string& file) { return userCode->isLibrary(file); };
  auto sources = std::make_shared<fix::SourceCache>();
  return [sources, fixSettings](std::vector<report::Diagnostic>& diagnostics) {
    for (auto& diagnostic : diagnostics) {
      fix::planFix(diagnostic, *sources, fixSettings);
      diagnostic.fixRequest = {};
      diagnostic.producerFixRequest = {};
    }
  };
}

// Checks one input; its findings are placed at the user's lines, under
// `settings`' policy (applyPolicy) and their fixes planned as each function is done.
InputResult checkInput(const Input& input, const InputSettings& settings, const std::string& nvcc,
                       const std::string& toolkitRoot) {
  const Checks& selected = settings.checks;
  const CheckOptions& options = settings.options;
  InputResult result;
  // Get PTX: read it, have nvcc produce it from the .cu file, or take it out of a binary.
  PtxOfInput ptx = ptxOf(input, options, nvcc);
  result.error = std::move(ptx.error);
  result.notes = std::move(ptx.notes);
  result.notifications = std::move(ptx.notifications);
  result.sourceFiles = std::move(ptx.sourceFiles);
  if (!result.error.empty()) {
    if (int signal = model::stopSignal().load()) {
      // nvcc or cuobjdump stopped by the same signal: the input was not checked, not wrong.
      result.interrupted = true;
      result.error = fmt::format("{}: error: not checked: the run was interrupted (signal {})\n", input.path, signal);
      result.notifications.push_back(notification("error", "interrupted",
                                                  withoutPrefix(result.error, input.path, "error"), input.path));
      return result;
    }
    result.notifications.push_back(
        notification("error", "input-error", withoutPrefix(result.error, input.path, "error"), input.path));
    return result;
  }
  UserCode userCode = userCodeFor(input, options, toolkitRoot);
  const FixPlanner planFixes = fixPlanner(input, settings, toolkitRoot);
  for (PtxUnit& unit : ptx.units) {
    if (result.interrupted) break;
    // A binary's image is mapped now and unmapped after (one image at a
    // time); its pages are given back during the first pass, once each
    // function's bodies are parsed and after each function, so that its text
    // is not held while its functions are modelled and checked.
    std::optional<MappedFile> mapped;
    if (!unit.file.empty()) {
      mapped.emplace(unit.file);
      if (!mapped->ok()) {
        mapped.reset();
        unit.text = readWholeFile(unit.file);
      }
    }
    const std::string_view text = mapped ? mapped->text() : std::string_view(unit.text);
    struct Drop {
      PtxUnit& unit;
      ~Drop() {
        if (!unit.file.empty()) std::string().swap(unit.text);
      }
    } drop{unit};
    try {
      // Parse the module level: PTX text to function headers, globals and
      // debug names (malformed input throws ParseError).
      ptx::ModuleReader reader(text, unit.path, mapped ? std::function<void(size_t)>([&mapped](size_t offset) {
        mapped->dropBefore(offset);
      }) : std::function<void(size_t)>());
      const ptx::Module& module = reader.module();
      std::function<void()> giveBack;
      if (mapped) {
        mapped->drop();
        giveBack = [&mapped] { mapped->drop(); };
      }
      // Parse, model and check: per function, its syntax tree, the model
      // (CFG, dominators, loops, values, memory, thread roles, protocols),
      // then each selected check; then drop both. A function over a limit
      // is an error of its own; the others' findings are kept. Each
      // function's findings are placed at the user's lines (not inside a
      // toolkit or library header) and under the policy as it is done: a
      // strict-tier finding the report will not show is kept as the keys
      // that count it only.
      const std::vector<std::string_view> lines = options.showPtx ? linesOf(text) : std::vector<std::string_view>();
      std::vector<FindingKeys> hidden;
      auto onFound = [&](std::vector<report::Diagnostic>& found) {
        for (auto& diagnostic : found) diagnostic.function = model::demangle(diagnostic.function);
        placeDiagnostics(found, userCode, unit, lines);
        found = applyPolicy(std::move(found), settings, &hidden);
        planFixes(found);
      };
      ModuleCheck checked =
          checkModule(reader, selected, options.limits, unit.filtered ? &unit.only : nullptr, giveBack, onFound);
      std::vector<report::Diagnostic> found = std::move(checked.diagnostics);
      for (const auto& error : checked.limitErrors) result.error += error + "\n";
      for (const auto& note : checked.notes) result.notes += note + "\n";
      for (auto& n : checked.notifications) result.notifications.push_back(std::move(n));
      result.interrupted = result.interrupted || checked.interrupted;
      result.diagnostics.insert(result.diagnostics.end(), std::make_move_iterator(found.begin()),
                                std::make_move_iterator(found.end()));
      result.strictHidden.insert(result.strictHidden.end(), std::make_move_iterator(hidden.begin()),
                                 std::make_move_iterator(hidden.end()));
      auto sources = projectSources(module, toolkitRoot);
      result.sourceFiles.insert(result.sourceFiles.end(), sources.begin(), sources.end());
      result.functions += checked.functions;
      result.instructions += checked.instructions;
      result.checked = true;
      if (checked.functions == 0 && checked.limitErrors.empty() && !unit.filtered) {
        result.warning += fmt::format("{}: warning: no function with a body: nothing to check\n", unit.path);
        result.notifications.push_back(
            notification("warning", "nothing-to-check", "no function with a body: nothing to check", unit.path));
      }
    } catch (const ptx::ParseError& e) {
      std::string text = formatParseError(e);
      if (input.kind == Input::Kind::Cuda)
        text += fmt::format("note: the PTX was generated by nvcc from {} (-ptx -lineinfo -arch={})\n",
                            input.path, archFor(input, options));
      if (input.kind == Input::Kind::Binary) text += fmt::format("note: the PTX is {}\n", unit.label);
      result.error += text;
      result.notifications.push_back(notification("error", "parse-error", e.message, e.file, e.line, e.column));
    } catch (const std::bad_alloc&) {
      // Reading the module itself (its functions are budgeted one by one).
      result.error += fmt::format("{}: error: not checked: out of memory reading it\n", unit.path);
      result.notifications.push_back(notification("error", "memory", "not checked: out of memory reading it", unit.path));
    } catch (const std::exception& e) {
      result.error += fmt::format("{}: error: internal error while checking: {}\n", input.path, e.what());
      result.notifications.push_back(
          notification("error", "internal-error", std::string("internal error while checking: ") + e.what(), input.path));
    }
  }
  if (!ptx.incomplete.empty()) {  // what cuobjdump could not read: after the findings of what it could
    result.error += ptx.incomplete;
    result.notifications.push_back(
        notification("error", "input-error", withoutPrefix(ptx.incomplete, input.path, "error"), input.path));
  }
  return result;
}


bool useColor(const CheckOptions& options) {
  if (options.color == "always") return true;
  if (options.color == "never" || !options.output.empty()) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(1) && !std::getenv("NO_COLOR") && !(term && std::string_view(term) == "dumb");
}

// What the whole run shares: the project root (SARIF URIs, fingerprints) and
// the run-wide keys of the configuration (fail-on, help-uri,
// information-uri), taken from the configuration of the working directory,
// else of the first input.
struct RunSettings {
  fs::path root;
  const Config* config = nullptr;
  std::string failOn = "warning";
};

report::SarifOptions sarifOptions(const RunSettings& run) {
  report::SarifOptions sarif;
  sarif.toolVersion = kVersion;
  sarif.sourceRoot = run.root;
  sarif.informationUri = FENCELINE_PROJECT_URL;
  if (run.config && run.config->informationUri) sarif.informationUri = *run.config->informationUri;
  sarif.helpUriTemplate = FENCELINE_HELP_URI;
  if (run.config && run.config->helpUri) sarif.helpUriTemplate = *run.config->helpUri;
  sarif.rules = sarifRules();
  return sarif;
}

std::string render(const std::vector<report::Diagnostic>& diagnostics, const report::RunStats& stats,
                   report::SourceText& sources, const CheckOptions& options, const RunSettings& run) {
  if (options.format == "json") return report::renderJson(diagnostics, stats);
  if (options.format == "sarif") {
    report::SarifOptions sarif = sarifOptions(run);
    sarif.stats = stats;
    return report::renderSarif(diagnostics, sources, sarif);
  }
  return report::renderText(diagnostics, sources, {useColor(options), true, options.showPtx});
}

// A report that cannot be written (a full disk, a closed pipe, /dev/full) is
// an error: exit 2 with a message, never a silent exit without the report.
bool writeOutput(const std::string& text, const std::string& path) {
  if (path.empty()) {
    errno = 0;
    std::cout << text << std::flush;
    if (std::cout) return true;
    std::cerr << fmt::format("error: cannot write the report to standard output: {}\n",
                             errno ? std::strerror(errno) : "write failed");
    return false;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) std::cerr << fmt::format("{}: error: cannot write output: {}\n", path, std::strerror(errno));
  return static_cast<bool>(out);
}

// --export-fixes, --fix-dry-run, --fix: the planned edits of the findings
// reported. With --fix, `unfixed` gets the findings it did not fix (for the
// exit status; without --fix it stays empty rather than copy every finding).
// Returns false after printing an error.
bool useFixes(const CheckOptions& options, const std::vector<report::Diagnostic>& diagnostics,
              std::vector<report::Diagnostic>& unfixed) {
  if (!options.exportFixes.empty()) {
    std::string main = options.inputs.empty() ? "" : fs::absolute(options.inputs.front()).lexically_normal().string();
    if (!writeOutput(fix::exportFixesYaml(diagnostics, main), options.exportFixes)) return false;
  }
  if (!options.fix && !options.fixDryRun) return true;
  fix::FixSet fixes = fix::collectFixes(diagnostics);
  for (const auto& refusal : fixes.refusals) std::cerr << refusal << "\n";
  std::string error;
  if (options.fixDryRun) {
    std::string diff = fix::unifiedDiff(fixes, error);
    if (!error.empty()) {
      std::cerr << error << "\n";
      return false;
    }
    return writeOutput(diff, "");
  }
  if (!fix::writeFixes(fixes, error)) {
    std::cerr << error << "\n";
    return false;
  }
  size_t fixed = std::count(fixes.fixed.begin(), fixes.fixed.end(), true);
  std::cerr << fmt::format("fix: {} edits applied to {} files; {} of {} findings fixed\n", fixes.editCount(),
                           fixes.editsByFile.size(), fixed, diagnostics.size());
  unfixed.clear();
  for (size_t i = 0; i < diagnostics.size(); ++i)
    if (!fixes.fixed[i]) unfixed.push_back(diagnostics[i]);
  return true;
}

// Settings of each input (its configuration file under the command line) and
// of the run. Returns false after printing the error of a bad configuration.
bool resolveAllSettings(const CheckOptions& options, const std::vector<Input>& inputs,
                        std::vector<InputSettings>& settings, ConfigFinder& configs, RunSettings& run) {
  std::string error;
  settings.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Config* config = configs.forInput(inputs[i].path, error);
    if (!error.empty() || !resolveSettings(options, config, settings[i], error)) {
      std::cerr << error << "\n";
      return false;
    }
  }
  std::error_code ec;
  run.config = configs.forInput(fs::current_path(ec), error);
  if (!error.empty()) {
    std::cerr << error << "\n";
    return false;
  }
  if (!run.config && !settings.empty()) run.config = settings.front().config;
  if (run.config && run.config->failOn) run.failOn = *run.config->failOn;
  if (options.failOn) run.failOn = *options.failOn;
  run.root = projectRoot(options.sarifRoot);
  return true;
}

// --write-baseline records every finding; --baseline then drops the recorded
// ones. Returns false after printing an error.
bool applyBaselines(const CheckOptions& options, std::vector<report::Diagnostic>& diagnostics,
                    const report::RunStats& stats, size_t& baselined) {
  baselined = 0;
  if (!options.writeBaseline.empty()) {
    if (!writeOutput(report::renderJson(diagnostics, stats), options.writeBaseline)) return false;
    std::cerr << fmt::format("baseline: {} findings written to {}\n", diagnostics.size(), options.writeBaseline);
  }
  if (options.baseline.empty()) return true;
  std::set<std::string> fingerprints;
  std::string error;
  if (!readBaseline(options.baseline, fingerprints, error)) {
    std::cerr << error << "\n";
    return false;
  }
  diagnostics = dropBaselined(std::move(diagnostics), fingerprints, baselined);
  return true;
}

// The exit status of a rendered run: 2 on input errors, 1 when a finding's
// severity reaches --fail-on (0 after --write-baseline: the findings are
// recorded, not failures), else 0.
int exitStatus(const std::vector<report::Diagnostic>& diagnostics, bool inputErrors, const CheckOptions& options,
               const RunSettings& run) {
  if (inputErrors) return 2;
  if (!options.writeBaseline.empty()) return 0;
  for (const auto& diagnostic : diagnostics)
    if (failsRun(diagnostic.severity, run.failOn)) return 1;
  return 0;
}

// SIGINT, SIGTERM, SIGHUP and SIGXCPU (a CPU-time limit) ask the run to stop
// (model::stopSignal): the function being checked is abandoned at its next
// poll, no input is begun, and the report covers what was checked, with a
// notification for the rest (exit status 128 + the signal). A second signal
// ends the process at once.
extern "C" void onStopSignal(int signal) {
  int none = 0;
  if (!model::stopSignal().compare_exchange_strong(none, signal)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  static const char kMessage[] =
      "fenceline: stopping: finishing the report of what was checked (signal again to quit at once)\n";
  ssize_t ignored = ::write(2, kMessage, sizeof kMessage - 1);
  (void)ignored;
}

void installStopHandlers() {
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGXCPU}) ::sigaction(signal, &action, nullptr);
}

int runCheck(const CheckOptions& options) {
  auto start = std::chrono::steady_clock::now();
  installStopHandlers();

  // Validate the --checks globs before anything runs (each input's selection,
  // with its configuration's `checks` first, is made in resolveAllSettings).
  Checks selected;
  std::string error;
  if (!selectChecks(options.checks, selected, error)) {
    std::cerr << error << "\n";
    return 2;
  }

  // Collect inputs: files, directories, and compile_commands.json (-p).
  std::vector<Input> inputs;
  if (!collectInputs(options, inputs, error)) {
    std::cerr << error << "\n";
    return 2;
  }

  // Settings per input: its .fenceline.toml (found upward), then the command line.
  ConfigFinder configs(options.configFile, options.noConfig);
  std::vector<InputSettings> settings;
  RunSettings run;
  if (!resolveAllSettings(options, inputs, settings, configs, run)) return 2;

  // Check every input, in parallel, keeping results in input order; then its
  // policy: per-check severity, --warnings-as-errors, --header-filter.
  // Each input's result is taken in input order as soon as it and those
  // before it are done: its messages go to stderr then, and a text report
  // streams (its findings are printed then too), so that a run stopped early
  // keeps what it had.
  std::string nvcc = findNvcc(options.nvcc);
  std::string toolkitRoot = nvcc.empty() ? "" : fs::path(nvcc).parent_path().parent_path().string();
  const bool streaming = options.format == "text" && !options.verify && !options.fix && !options.fixDryRun &&
                         options.exportFixes.empty() && options.writeBaseline.empty() && options.baseline.empty();
  std::unique_ptr<std::ofstream> streamFile;
  if (streaming && !options.output.empty()) {
    streamFile = std::make_unique<std::ofstream>(options.output, std::ios::binary);
    if (!*streamFile) {
      std::cerr << fmt::format("{}: error: cannot write output: {}\n", options.output, std::strerror(errno));
      return 2;
    }
  }
  bool writeFailed = false;
  IncrementalDeduplicator streamed;
  report::SourceText sources;
  auto stream = [&](std::vector<report::Diagnostic>& batch) {
    if (batch.empty() || writeFailed) return;
    std::string text = report::renderText(batch, sources, {useColor(options), true, options.showPtx});
    if (streamFile) {
      *streamFile << text << std::flush;
      if (!*streamFile) {
        std::cerr << fmt::format("{}: error: cannot write output: {}\n", options.output, std::strerror(errno));
        writeFailed = true;
      }
    } else if (!writeOutput(text, "")) {
      writeFailed = true;
    }
  };

  std::vector<InputResult> results(inputs.size());
  bool inputErrors = false;
  report::RunStats stats;
  std::vector<report::Diagnostic> diagnostics;
  std::vector<std::string> sourceFiles;
  bool uncheckedKernels = false;
  std::vector<FindingKeys> strictHidden;
  size_t notBegun = 0;
  forEachInParallel(
      inputs.size(), options.jobs,
      [&](size_t i) {
        if (model::stopSignal().load()) {
          results[i].interrupted = true;
          results[i].notifications.push_back(notification("error", "interrupted", "not checked: the run was interrupted",
                                                          inputs[i].path));
          return;
        }
        try {
          results[i] = checkInput(inputs[i], settings[i], nvcc, toolkitRoot);
        } catch (const std::exception& e) {
          // Never lose the other inputs to one: an internal error is this input's error.
          results[i] = InputResult{};
          results[i].error = fmt::format("{}: error: internal error while checking: {}\n", inputs[i].path, e.what());
          results[i].notifications.push_back(notification(
              "error", "internal-error", std::string("internal error while checking: ") + e.what(), inputs[i].path));
        }
      },
      [&](size_t i) { return inputs[i].path; },
      [&](size_t i) {
        InputResult result = std::move(results[i]);
        results[i] = InputResult{};
        if (result.interrupted && !result.checked && result.error.empty()) ++notBegun;
        for (auto& diagnostic : result.strictHidden) strictHidden.push_back(std::move(diagnostic));
        for (auto& n : result.notifications) stats.notifications.push_back(std::move(n));
        if (!result.notes.empty()) {
          uncheckedKernels = true;
          std::cerr << result.notes;
        }
        std::cerr << result.warning;
        if (!result.error.empty()) {
          inputErrors = true;
          std::cerr << result.error << (result.error.back() == '\n' ? "" : "\n");
        }
        std::cerr << std::flush;
        if (!result.checked) return;
        ++stats.files;
        stats.functions += result.functions;
        stats.instructions += result.instructions;
        sortByLocation(result.diagnostics);
        sourceFiles.insert(sourceFiles.end(), result.sourceFiles.begin(), result.sourceFiles.end());
        if (streaming) {
          // One report per source site, suppressions dropped: as below, one input at a time.
          std::vector<report::Diagnostic> batch = streamed.add(std::move(result.diagnostics));
          batch = applySuppressions(std::move(batch), sources);
          stream(batch);
          for (auto& diagnostic : batch) diagnostics.push_back(std::move(diagnostic));
          return;
        }
        for (auto& diagnostic : result.diagnostics) diagnostics.push_back(std::move(diagnostic));
      });

  // Stopped by a signal: what was checked is reported, the rest named.
  if (int signal = model::stopSignal().load()) {
    stats.interruptedBy = signal;
    inputErrors = true;
    std::string message = fmt::format("the run was interrupted (signal {}): {} of {} inputs not begun", signal,
                                      notBegun, inputs.size());
    std::cerr << "error: " << message << "\n";
    stats.notifications.push_back(notification("error", "interrupted", message, ""));
  }
  fix::mergeCopiedLines(diagnostics);

  // An empty file (or a directory of them) is not a pass: nothing was checked.
  if (stats.functions == 0 && !inputErrors) {
    std::cerr << "error: no function with a body in the inputs: nothing was checked\n";
    inputErrors = true;
  }

  const size_t strictNotShown = countDeduplicated(strictHidden);
  if (!streaming) {
    // One report per source site: unrolled copies of a line are one finding.
    diagnostics = deduplicate(std::move(diagnostics));
    // Drop what `// fenceline: ignore(check-id)` comments suppress.
    diagnostics = applySuppressions(std::move(diagnostics), sources);
  }
  for (const auto& warning : unknownSuppressionIds(sourceFiles, sources)) std::cerr << warning << "\n";
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int interruptedStatus = stats.interruptedBy ? 128 + stats.interruptedBy : 0;
  auto printStrictNotShown = [&] {
    if (strictNotShown > 0)
      std::cerr << fmt::format("{} strict-tier finding{} not shown (a link of the hazard is not decided); --strict "
                               "shows them\n",
                               strictNotShown, strictNotShown == 1 ? "" : "s");
  };

  if (streaming) {
    if (writeFailed) return 2;
    if (stats.files > 0) std::cerr << report::summaryLine(diagnostics, stats) << "\n";
    printStrictNotShown();
    if (interruptedStatus) return interruptedStatus;
    if (!inputErrors && stats.files == 0 && uncheckedKernels) return 2;  // binaries with SASS only: nothing was checked
    return exitStatus(diagnostics, inputErrors, options, run);
  }

  // --verify: compare with the `// expect:` comments instead of rendering.
  if (options.verify) {
    const bool strict = options.strict.value_or(run.config && run.config->strict.value_or(false));
    VerifyResult verified = verify(diagnostics, sourceFiles, sources, {useColor(options), true}, strict);
    if (!writeOutput(verified.output, options.output)) return 2;
    std::cerr << fmt::format("verify: {} expected diagnostics produced, {} missing, {} unexpected\n",
                             verified.matched, verified.missing, verified.unexpected);
    if (inputErrors) return 2;
    return verified.ok ? 0 : 1;
  }

  // Fingerprints (check, file, function, flagged line), then the baselines.
  report::assignFingerprints(diagnostics, run.root, sources);
  size_t baselined = 0;
  if (!applyBaselines(options, diagnostics, stats, baselined)) return 2;

  // Fixes: --export-fixes writes them; --fix-dry-run prints them as a diff instead of the report;
  // --fix applies them (the report still lists every finding; the exit status counts those left).
  std::vector<report::Diagnostic> unfixed;
  if (!useFixes(options, diagnostics, unfixed)) return 2;
  if (options.fixDryRun) return exitStatus(diagnostics, inputErrors, options, run);

  // Render: text, JSON or SARIF, to stdout or -o FILE.
  if (!writeOutput(render(diagnostics, stats, sources, options, run), options.output)) return 2;
  if (stats.files > 0) std::cerr << report::summaryLine(diagnostics, stats) << "\n";
  printStrictNotShown();
  if (baselined > 0) std::cerr << fmt::format("baseline: {} known findings not shown ({})\n", baselined, options.baseline);
  if (interruptedStatus) return interruptedStatus;
  if (!inputErrors && stats.files == 0 && uncheckedKernels) return 2;  // binaries with SASS only: nothing was checked
  return exitStatus(options.fix ? unfixed : diagnostics, inputErrors, options, run);
}

// The options of machine fixes (docs/cli.md, Fixes).
void addFixOptions(CLI::App& check, CheckOptions& options) {
  check.add_flag("--fix", options.fix,
                 "Apply the machine fixes of the findings (those --checks selects) to the sources in place; "
                 "overlapping edits are refused; the exit status then counts only the findings left");
  check.add_flag("--fix-dry-run", options.fixDryRun,
                 "Print the machine fixes as a unified diff on stdout instead of the report; change nothing");
  check.add_option("--export-fixes", options.exportFixes,
                   "Write the machine fixes to FILE as clang-apply-replacements YAML");
  check.add_option("--fix-style", options.fixStyle,
                   "Where proxy-war's fence goes: consumer (default: every reading thread, after its last access "
                   "and before the hand-off, outside the election) or producer (the copy issuer, after its wait "
                   "and before the copy)")
      ->check(CLI::IsMember({"consumer", "producer"}));
  check.add_flag("--fix-headers", options.fixHeaders,
                 "Also edit headers outside the source tree (third-party headers; never the CUDA toolkit's)");
}


// The options of configuration, policy and baselines (docs/cli.md).
void addPolicyOptions(CLI::App& check, CheckOptions& options) {
  check.add_option("--config", options.configFile,
                   "Configuration file to use for every input (default: .fenceline.toml found upward from each input)");
  check.add_flag("--no-config", options.noConfig, "Read no configuration file");
  check.add_option("--warnings-as-errors", options.warningsAsErrors,
                   "Report warnings of the checks these globs select as errors (e.g. 'proxy-*'; '*' for all)");
  check.add_option("--fail-on", options.failOn,
                   "Lowest severity that makes the exit status 1: error, warning (default), note or never")
      ->check(CLI::IsMember({"error", "warning", "note", "never"}));
  // --strict / --no-strict: unset unless given, so that the configuration's `strict` applies.
  check.add_flag_callback(
      "--strict", [&options] { options.strict = true; },
      "Also report the strict tier: findings with a link of the hazard the analysis could not decide (an "
      "unknown pointer, an undecoded descriptor, an unknown partner) or whose rule is disputed, at note level, "
      "each naming that link (default: off; configuration key `strict`)");
  check.add_flag_callback(
      "--no-strict", [&options] { options.strict = false; },
      "Do not report the strict tier, whatever the configuration's `strict` says");
  check.add_option("--header-filter", options.headerFilter,
                   "Report only findings whose file path matches this regular expression (searched anywhere)");
  check.add_option("--baseline", options.baseline,
                   "Report only findings not in FILE (a JSON report or SARIF log, e.g. from --write-baseline)");
  check.add_option("--write-baseline", options.writeBaseline,
                   "Write every finding to FILE as a baseline (JSON report); the exit status is then 0");
}

}  // namespace

int runCommandLine(int argc, char** argv) {
  CLI::App app{"fenceline: finds memory-ordering bugs in GPU kernels by reading their PTX", "fenceline"};
  app.set_version_flag("--version", std::string("fenceline ") + kVersion);
  app.require_subcommand(1);
  app.footer("Exit status: 0 no findings, 1 findings (or --verify mismatch), 2 usage or input error (or a\n"
             "function not checked: a limit), 128 + N when signal N stopped the run (the report covers what was checked).\n"
             "Run 'fenceline SUBCOMMAND --help' for the options of each subcommand.");

  CheckOptions options;
  CLI::App* check = app.add_subcommand("check", "Check .ptx and .cu files (or directories of them) for ordering bugs");
  check->add_option("inputs", options.inputs,
                    "Files to check: .ptx (read as is; a Triton cache's kernels by name), .cu (compiled with nvcc "
                    "-ptx -lineinfo), CUDA binaries (.cubin, .fatbin, .o, .a, .so: their embedded PTX), or directories "
                    "(searched recursively for .ptx and .cu)");
  check->add_option("--format", options.format, "Output format: text, json or sarif (default: text)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  check->add_option("--checks", options.checks,
                    "Comma-separated globs selecting checks, applied in order to all checks; '-glob' removes "
                    "(e.g. '-*,proxy-*'). A glob matching no check is an error");
  CLI::Option* arch = check->add_option("--arch", options.arch,
                                        "GPU architecture for .cu inputs (default: sm_90a; overrides the one in "
                                        "compile_commands.json)");
  check->add_option("--nvcc", options.nvcc, "CUDA compiler to run (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc)");
  check->add_option("--nvcc-flag", options.nvccFlags,
                    "Extra flag for nvcc, repeatable; write flags that start with '-' as --nvcc-flag=-DNAME")
      ->allow_extra_args(false);
  check->add_option("-p,--build-dir", options.buildDir,
                    "Build folder holding compile_commands.json: its device-code flags are used for .cu inputs; "
                    "with no inputs, every .cu file it compiles is checked");
  check->add_option("-j,--jobs", options.jobs, "Inputs checked in parallel (default: all cores)");
  check->add_option("-o,--output", options.output, "Write the report to FILE instead of stdout");
  check->add_option("--color", options.color, "Colors in text output: auto (on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  check->add_option("--sarif-root", options.sarifRoot,
                    "Folder SARIF paths and finding fingerprints are relative to (default: the root of the git "
                    "work tree holding the working directory, else the working directory)");
  check->add_flag("--verify", options.verify,
                  "Compare diagnostics with '// expect: check-id' comments in the sources; report missing and "
                  "unexpected ones (exit 0 when they match)");

  check->add_flag("-v,--verbose", options.verbose,
                  "Print each nvcc and cuobjdump command line to stderr before running it, and list a binary's "
                  "SASS-only kernels one by one");
  // Inputs and output: driver/Inputs.h, driver/UserCode.h, driver/Binaries.h.
  check->add_option("--flags-file", options.flagsFile,
                    "File of nvcc flags (shell words, '#' comments) for .cu inputs that -p does not cover, such as "
                    "a JIT cache's generated sources; only device-code flags are kept");
  check->add_option("--system-header-prefix", options.systemHeaderPrefixes,
                    "Folder (repeatable) whose files are library code: diagnostics are reported at the user's line "
                    "that calls into them")
      ->allow_extra_args(false);
  check->add_option("--cuobjdump", options.cuobjdump,
                    "cuobjdump for binary inputs (default: PATH, next to nvcc, /usr/local/cuda/bin)");
  check->add_flag("--show-ptx", options.showPtx, "Print the PTX line under each location of a text report");
  // Configuration, policy and baselines: driver/Config.h, driver/Settings.h, driver/Baseline.h.
  addPolicyOptions(*check, options);
  // Machine fixes: fix/Planner.h, fix/Apply.h.
  addFixOptions(*check, options);
  // Limits (model/Limits.h): a function over one is reported and not checked; exit status 2.
  model::Limits& limits = options.limits;
  check->add_option("--max-instructions", limits.maxInstructions, "Instructions per function after inlining")
      ->default_val(limits.maxInstructions);
  check->add_option("--max-registers", limits.maxRegisters, "Registers per function after inlining")
      ->default_val(limits.maxRegisters);
  check->add_option("--max-call-depth", limits.maxCallDepth, "Nesting of inlined calls")
      ->default_val(limits.maxCallDepth)->check(CLI::PositiveNumber);
  check->add_option("--inlining-growth", limits.inliningGrowth,
                    "Instructions inlining may add to one function, as a multiple of its call tree's (each function once); past "
                    "that, to one input, as a multiple of its own (plus --max-instructions)")
      ->default_val(limits.inliningGrowth);
  check->add_option("--max-seconds-per-function", limits.maxSecondsPerFunction,
                    "Wall-clock seconds to model and check one function, checked inside every stage (0: no limit)")
      ->default_val(limits.maxSecondsPerFunction)->check(CLI::NonNegativeNumber);
  check->add_option("--max-memory-per-function", limits.maxMemoryPerFunction,
                    "MiB of memory one function's model and checks may hold (0: no limit); past it the function is "
                    "reported 'not checked: memory' and the others are checked")
      ->default_val(limits.maxMemoryPerFunction);
  check->add_flag("--all-targets", options.allTargets,
                  "Binaries: check the PTX of every architecture a kernel is embedded for (default: only the "
                  "newest PTX of each kernel, so that a site is reported once)");

  std::string listFormat = "text";
  CLI::App* list = app.add_subcommand("list-checks", "List the checks: id, severity and summary");
  list->add_option("--format", listFormat, "text or json (default: text)")->check(CLI::IsMember({"text", "json"}));

  std::string explainId, explainColor = "auto";
  CLI::App* explain = app.add_subcommand("explain", "Print the documentation page of a check (no CHECK: list the checks)");
  explain->add_option("check", explainId, "Check id (see list-checks)");
  explain->add_option("--color", explainColor,
                      "Render the Markdown page for a terminal: auto (when stdout is one), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (std::string hint = unknownArgumentMessage(app, argc, argv); !hint.empty() && e.get_exit_code() != 0) {
      std::cerr << hint << "\nRun 'fenceline --help' for usage.\n";
      return 2;
    }
    int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  options.archGiven = arch->count() > 0;

  if (list->parsed()) return listChecks(listFormat);
  if (explain->parsed()) return explainCheck(explainId, explainColor);
  return runCheck(options);
}

}  // namespace fenceline::driver

int main(int argc, char** argv) { return fenceline::driver::runCommandLine(argc, argv); }
