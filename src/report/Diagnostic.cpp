// Building diagnostic locations from the program model, and the names of
// severities as every renderer prints them.
#include "report/Diagnostic.h"

namespace fenceline::report {

Location locationOf(const model::FunctionModel& fn, model::InstId inst) {
  Location location;
  location.frames = fn.sourceChain(inst);
  if (fn.module) location.ptxFile = fn.module->path;
  if (inst >= 0 && static_cast<size_t>(inst) < fn.instructions.size()) {
    if (const ptx::Instruction* syntax = fn.instructions[inst].syntax) {
      location.ptxLine = syntax->pos.line;
      location.ptxColumn = syntax->pos.column;
    }
  }
  return location;
}

std::string_view toString(Severity severity) {
  switch (severity) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

}  // namespace fenceline::report
