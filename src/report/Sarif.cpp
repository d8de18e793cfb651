// The SARIF 2.1.0 renderer (see Sarif.h).
#include "report/Sarif.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/Fingerprint.h"
#include "report/DisplayNames.h"
#include "report/Frames.h"
#include "report/JsonDump.h"

namespace fenceline::report {

namespace {

using nlohmann::ordered_json;

constexpr std::string_view kSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr std::string_view kRootId = "%SRCROOT%";

// SARIF's result levels spell our severities as we do: note, warning, error.
std::string_view level(Severity severity) { return toString(severity); }

// RFC 3986 percent-encoding of a path: unreserved characters and '/' stay.
std::string encodePath(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// An artifact location: relative to the source root (with uriBaseId) when the
// file lies under it, else an absolute file URI.
ordered_json artifact(const std::string& file, const std::filesystem::path& root) {
  std::string path = projectRelativePath(file, root);
  if (!path.starts_with("/")) return ordered_json{{"uri", encodePath(path)}, {"uriBaseId", kRootId}};
  return ordered_json{{"uri", "file://" + encodePath(path)}};
}

ordered_json physicalLocation(const model::SourceFrame& frame, const std::filesystem::path& root) {
  ordered_json region = ordered_json::object();
  region["startLine"] = std::max<uint32_t>(frame.line, 1);
  if (frame.column) region["startColumn"] = frame.column;
  return ordered_json{{"artifactLocation", artifact(displayFile(frame.file), root)}, {"region", std::move(region)}};
}

ordered_json location(const model::SourceFrame& frame, const std::filesystem::path& root,
                      std::string_view message = {}) {
  ordered_json result{{"physicalLocation", physicalLocation(frame, root)}};
  if (!message.empty()) result["message"] = {{"text", message}};
  return result;
}

// The inline chain as one thread flow, outermost call first, so a viewer can
// step from the kernel down to the flagged instruction.
ordered_json inlineFlow(const Diagnostic& diagnostic, const std::filesystem::path& root) {
  const auto& frames = diagnostic.location.frames;
  ordered_json steps = ordered_json::array();
  for (size_t i = frames.size(); i-- > 0;) {
    std::string text = i == 0 ? diagnostic.message
                              : fmt::format("in '{}', calls '{}'", displayFunction(frames[i].function),
                                          displayFunction(frames[i - 1].function));
    steps.push_back(ordered_json{{"location", location(frames[i], root, text)}});
  }
  return ordered_json::array({ordered_json{{"threadFlows", ordered_json::array({ordered_json{{"locations", steps}}})}}});
}

ordered_json rule(const SarifRule& rule) {
  ordered_json result{{"id", rule.id},
                      {"shortDescription", {{"text", rule.shortDescription}}},
                      {"fullDescription", {{"text", rule.fullDescription.empty() ? rule.shortDescription
                                                                                 : rule.fullDescription}}}};
  if (!rule.helpUri.empty()) result["helpUri"] = rule.helpUri;
  if (!rule.helpMarkdown.empty())
    result["help"] = {{"text", rule.helpMarkdown}, {"markdown", rule.helpMarkdown}};
  else
    result["help"] = {{"text", rule.shortDescription}};
  result["defaultConfiguration"] = {{"level", level(rule.level)}};
  result["properties"] = {{"precision", rule.precision}, {"tags", rule.tags}};
  return result;
}

// SARIF `fixes`: the planned edits of a finding as artifactChanges with
// replacements (an insertion deletes an empty region).
ordered_json fixes(const Diagnostic& diagnostic, const std::filesystem::path& root) {
  std::map<std::string, ordered_json> changes;
  std::vector<std::string> order;
  for (const Edit& edit : diagnostic.edits) {
    if (!changes.count(edit.file)) {
      order.push_back(edit.file);
      changes[edit.file] = ordered_json{{"artifactLocation", artifact(edit.file, root)},
                                        {"replacements", ordered_json::array()}};
    }
    ordered_json region{{"startLine", edit.line}, {"startColumn", edit.column}, {"endLine", edit.endLine},
                        {"endColumn", edit.endColumn}};
    changes[edit.file]["replacements"].push_back(
        ordered_json{{"deletedRegion", std::move(region)}, {"insertedContent", {{"text", edit.text}}}});
  }
  ordered_json artifactChanges = ordered_json::array();
  for (const auto& file : order) artifactChanges.push_back(std::move(changes[file]));
  return ordered_json::array(
      {ordered_json{{"description", {{"text", diagnostic.fix}}}, {"artifactChanges", std::move(artifactChanges)}}});
}

// The evidence links (report/Evidence.h) as a property bag entry: SARIF has
// no place of its own for "how this was decided".
ordered_json evidence(const Diagnostic& diagnostic, const std::filesystem::path& root) {
  ordered_json list = ordered_json::array();
  for (const EvidenceLink& link : diagnostic.evidence) {
    ordered_json entry{{"kind", std::string(toString(link.kind))}, {"decided", link.decided}, {"how", link.how}};
    if (!link.detail.empty()) entry["detail"] = link.detail;
    if (link.location) entry["location"] = location(primaryFrame(*link.location), root);
    list.push_back(std::move(entry));
  }
  return list;
}

// The helpUri of a rule: the template with "{id}" replaced by the check id.
std::string expandHelpUri(std::string_view uriTemplate, std::string_view id) {
  std::string uri(uriTemplate);
  for (size_t at = uri.find("{id}"); at != std::string::npos; at = uri.find("{id}", at + id.size()))
    uri.replace(at, 4, id);
  return uri;
}

// One finding as a SARIF result: its rule (and the rule's index in `rules`),
// message, primary location, notes, inline chain, fixes, fingerprint, and our
// properties.
ordered_json toResult(const Diagnostic& diagnostic, const std::map<std::string, size_t>& ruleIndex,
                      const std::filesystem::path& root) {
  ordered_json result{{"ruleId", diagnostic.check}};
  if (auto found = ruleIndex.find(diagnostic.check); found != ruleIndex.end()) result["ruleIndex"] = found->second;
  result["level"] = level(diagnostic.severity);
  std::string text = diagnostic.message;
  if (!diagnostic.fix.empty()) text += "\nFix: " + diagnostic.fix;
  result["message"] = {{"text", text}};
  result["locations"] = ordered_json::array({location(primaryFrame(diagnostic.location), root)});
  if (!diagnostic.notes.empty()) {
    ordered_json related = ordered_json::array();
    for (size_t i = 0; i < diagnostic.notes.size(); ++i) {
      const Note& note = diagnostic.notes[i];
      related.push_back(ordered_json{{"id", i},
                                     {"physicalLocation", physicalLocation(primaryFrame(note.location), root)},
                                     {"message", {{"text", note.message}}}});
    }
    result["relatedLocations"] = std::move(related);
  }
  if (diagnostic.location.frames.size() > 1) result["codeFlows"] = inlineFlow(diagnostic, root);
  if (!diagnostic.edits.empty()) result["fixes"] = fixes(diagnostic, root);
  result["partialFingerprints"] = {{"fencelineHash/v1", diagnostic.fingerprint}};
  ordered_json properties = ordered_json::object();
  if (!diagnostic.function.empty()) properties["function"] = diagnostic.function;
  if (!diagnostic.instantiations.empty()) properties["instantiations"] = diagnostic.instantiations;
  properties["tier"] = std::string(toString(diagnostic.tier()));
  properties["evidence"] = evidence(diagnostic, root);
  if (!diagnostic.disputed.empty()) properties["disputed"] = diagnostic.disputed;
  result["properties"] = std::move(properties);
  return result;
}

// What was not checked (report/Stats.h), as toolExecutionNotifications.
ordered_json notifications(const RunStats& stats, const std::filesystem::path& root) {
  ordered_json list = ordered_json::array();
  for (const auto& n : stats.notifications) {
    ordered_json entry{{"level", n.level == "error" ? "error" : n.level == "warning" ? "warning" : "note"},
                       {"message", {{"text", n.message}}},
                       {"descriptor", {{"id", n.kind}}}};
    if (!n.file.empty()) {
      model::SourceFrame frame;
      frame.file = n.file;
      frame.line = n.line;
      frame.column = n.column;
      entry["locations"] = ordered_json::array({ordered_json{{"physicalLocation", physicalLocation(frame, root)}}});
    }
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

std::string renderSarif(std::span<const Diagnostic> given, SourceText& sources, const SarifOptions& options) {
  std::filesystem::path root = options.sourceRoot.lexically_normal();
  // The driver fingerprints the findings (baselines need them); for a caller
  // that did not, a copy gets them here.
  std::span<const Diagnostic> diagnostics = given;
  std::vector<Diagnostic> fingerprinted;
  if (std::any_of(given.begin(), given.end(), [](const Diagnostic& d) { return d.fingerprint.empty(); })) {
    fingerprinted.assign(given.begin(), given.end());
    assignFingerprints(fingerprinted, root, sources);
    diagnostics = fingerprinted;
  }
  std::map<std::string, size_t> ruleIndex;
  ordered_json rules = ordered_json::array();
  for (auto entry : options.rules) {
    if (entry.helpUri.empty() && !options.helpUriTemplate.empty())
      entry.helpUri = expandHelpUri(options.helpUriTemplate, entry.id);
    ruleIndex.emplace(entry.id, rules.size());
    rules.push_back(rule(entry));
  }

  ordered_json driver{{"name", "fenceline"}};
  if (!options.informationUri.empty()) driver["informationUri"] = options.informationUri;
  driver["version"] = options.toolVersion;
  driver["semanticVersion"] = options.toolVersion;
  driver["rules"] = std::move(rules);

  ordered_json run{{"tool", {{"driver", std::move(driver)}}}};
  if (!root.empty()) {
    std::string rootUri = "file://" + encodePath(root.generic_string());
    if (rootUri.back() != '/') rootUri += '/';
    run["originalUriBaseIds"] = {{kRootId, {{"uri", rootUri}}}};
  }
  run["results"] = ordered_json::array();  // filled below, a result at a time
  run["columnKind"] = "utf16CodeUnits";
  // Whether the run did all it was asked, and what it did not.
  run["invocations"] = ordered_json::array(
      {ordered_json{{"executionSuccessful", options.stats.complete()},
                    {"toolExecutionNotifications", notifications(options.stats, root)}}});

  ordered_json document{{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", ordered_json::array({std::move(run)})}};
  // The results one at a time into the text (report/JsonDump.h): "results"
  // is a key of the run, three levels deep (document, "runs", the run).
  return documentText(document, {"results", 3, diagnostics.size(),
                                 [&](size_t i) { return toResult(diagnostics[i], ruleIndex, root); }});
}

}  // namespace fenceline::report
