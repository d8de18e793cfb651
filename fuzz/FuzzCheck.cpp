// libFuzzer target: one input is one PTX file, taken down the path
// `fenceline check` takes (driver/CheckModule: the module level, then per
// function its body, the model and every check, within the CLI's default
// limits), then
// deduplication, suppressions and every renderer (text, JSON, SARIF).
// Expected failures are a ParseError (malformed input) and limit errors;
// anything else (a crash, a sanitizer report, another exception, a hang, a
// blow-up in memory) is a finding. Built by scripts/fuzz (see docs/performance.md, "Fuzzing").
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checks/CheckTable.h"
#include "driver/CheckModule.h"
#include "driver/Deduplicate.h"
#include "driver/Suppressions.h"
#include "ptx/Parser.h"
#include "report/Json.h"
#include "report/Sarif.h"
#include "report/SourceText.h"
#include "report/Text.h"

using namespace fenceline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<const checks::CheckInfo*> selected;
  for (const auto& check : checks::allChecks()) selected.push_back(&check);
  try {
    ptx::ModuleReader reader(text, "fuzz.ptx");
    driver::ModuleCheck checked = driver::checkModule(reader, selected, model::Limits{});
    auto diagnostics = driver::deduplicate(std::move(checked.diagnostics));
    report::SourceText sources;
    diagnostics = driver::applySuppressions(std::move(diagnostics), sources);
    report::RunStats stats{1, checked.functions, checked.instructions, 0.0};
    report::renderText(diagnostics, sources, {false, true});
    report::renderJson(diagnostics, stats);
    report::SarifOptions sarif;
    sarif.toolVersion = "fuzz";
    sarif.sourceRoot = "/";
    report::renderSarif(diagnostics, sources, sarif);
  } catch (const ptx::ParseError&) {
    // Malformed input: the CLI prints it and exits 2.
  }
  return 0;
}
