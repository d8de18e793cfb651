// Wording of the protocol checks' findings (see ProtocolReport.h).
#include "checks/ProtocolReport.h"

#include <fmt/format.h>

namespace fenceline::checks::protocol {

std::string describe(const FunctionModel& fn, InstId inst) {
  auto chain = fn.sourceChain(inst);
  if (!chain.empty()) return fmt::format("line {}", chain.front().line);
  return fmt::format("PTX line {}", fn.instructions[inst].syntax->pos.line);
}

std::string scopeName(Scope scope) { return "." + std::string(model::toString(scope)); }

std::string fenceSpelling(Scope scope) {
  switch (scope) {
    case Scope::Sys: return "__threadfence_system() (fence.sc.sys)";
    case Scope::Cluster: return "fence.acq_rel.cluster";
    case Scope::Cta: return "__threadfence_block() (fence.acq_rel.cta)";
    default: return "__threadfence() (fence.sc.gpu)";
  }
}

report::Diagnostic makeDiagnostic(const FunctionModel& fn, InstId at, std::string check, std::string message,
                                  std::string fix) {
  report::Diagnostic d;
  d.check = std::move(check);
  d.severity = report::Severity::Warning;
  d.message = std::move(message);
  d.function = fn.function ? fn.function->name : std::string();
  d.location = report::locationOf(fn, at);
  d.fix = std::move(fix);
  return d;
}

void addNote(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId at, std::string message) {
  diagnostic.notes.push_back({std::move(message), report::locationOf(fn, at)});
}

std::string siteKey(const FunctionModel& fn, InstId inst) {
  auto chain = fn.sourceChain(inst);
  if (chain.empty()) return fmt::format("ptx:{}", fn.instructions[inst].syntax->pos.line);
  std::string key;
  for (const auto& frame : chain) key += fmt::format("{}:{}:{}|", frame.file, frame.line, frame.column);
  return key;
}

}  // namespace fenceline::checks::protocol
