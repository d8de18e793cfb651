// Reading baselines and filtering by them (see Baseline.h).
#include "driver/Baseline.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fenceline::driver {

namespace {

using nlohmann::json;

constexpr const char* kSarifFingerprint = "fencelineHash/v1";

void collectJsonReport(const json& document, std::set<std::string>& fingerprints) {
  for (const auto& diagnostic : document.value("diagnostics", json::array())) {
    if (!diagnostic.is_object()) continue;
    if (auto found = diagnostic.find("fingerprint"); found != diagnostic.end() && found->is_string())
      fingerprints.insert(found->get<std::string>());
  }
}

void collectSarifLog(const json& document, std::set<std::string>& fingerprints) {
  for (const auto& run : document.value("runs", json::array())) {
    if (!run.is_object()) continue;
    for (const auto& result : run.value("results", json::array())) {
      if (!result.is_object()) continue;
      auto partial = result.find("partialFingerprints");
      if (partial == result.end() || !partial->is_object()) continue;
      if (auto found = partial->find(kSarifFingerprint); found != partial->end() && found->is_string())
        fingerprints.insert(found->get<std::string>());
    }
  }
}

}  // namespace

bool readBaseline(const std::string& path, std::set<std::string>& fingerprints, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("{}: error: cannot read the baseline", path);
    return false;
  }
  json document = json::parse(in, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    error = fmt::format("{}: error: the baseline is not a JSON report or SARIF log of fenceline", path);
    return false;
  }
  bool sarif = document.contains("runs");
  bool report = document.contains("diagnostics");
  if (!sarif && !report) {
    error = fmt::format("{}: error: the baseline has neither 'diagnostics' (JSON report) nor 'runs' (SARIF)", path);
    return false;
  }
  if (sarif) collectSarifLog(document, fingerprints);
  if (report) collectJsonReport(document, fingerprints);
  bool empty = sarif ? document["runs"].empty() || document["runs"][0].value("results", json::array()).empty()
                     : document["diagnostics"].empty();
  if (fingerprints.empty() && !empty) {
    error = fmt::format("{}: error: the baseline's findings carry no fingerprints (written by an older fenceline? "
                        "write it again with --write-baseline)",
                        path);
    return false;
  }
  return true;
}

std::vector<report::Diagnostic> dropBaselined(std::vector<report::Diagnostic> diagnostics,
                                              const std::set<std::string>& baseline, size_t& dropped) {
  std::vector<report::Diagnostic> kept;
  dropped = 0;
  for (auto& diagnostic : diagnostics) {
    if (baseline.count(diagnostic.fingerprint)) {
      ++dropped;
      continue;
    }
    kept.push_back(std::move(diagnostic));
  }
  return kept;
}

}  // namespace fenceline::driver
