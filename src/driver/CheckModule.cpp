// Parse, model, check, drop: one function at a time (see CheckModule.h).
#include "driver/CheckModule.h"

#include <fmt/format.h>

#include "model/Program.h"
#include "ptx/HeldBodies.h"

namespace fenceline::driver {

namespace {

std::string limitError(const ptx::Module& module, const ptx::Function& function, const std::string& why) {
  const char* kind = function.isEntry ? "kernel" : "function";
  return fmt::format("{}:{}:{}: error: {} '{}' not checked: {}", module.path, function.pos.line, function.pos.column,
                     kind, function.name, why);
}

}  // namespace

ModuleCheck checkModule(ptx::ModuleReader& reader, const std::vector<const checks::CheckInfo*>& selected,
                        const model::Limits& limits) {
  ModuleCheck result;
  const ptx::Module& module = reader.module();
  auto budget = model::InliningBudget::forInput(reader.instructionCount(), limits);
  ptx::HeldBodies bodies(reader, limits.maxCallDepth);
  for (size_t index = 0; index < module.functions.size(); ++index) {
    const ptx::Function& function = module.functions[index];
    if (!function.hasBody) continue;
    // Parse its body and those it may inline (a malformed one throws ParseError).
    bodies.hold(index);
    model::Deadline deadline(limits.maxSecondsPerFunction);
    try {
      // The model lives for this iteration only: its checks are all that use it.
      model::FunctionModel fn;
      model::buildFunctionModel(fn, module, function, limits, budget, deadline);
      ++result.functions;
      result.instructions += fn.instructions.size();
      for (const checks::CheckInfo* check : selected) {
        check->run(fn, result.diagnostics);
        deadline.check("checking it");
      }
    } catch (const model::LimitExceeded& e) {
      result.limitErrors.push_back(limitError(module, function, e.what()));
    }
    bodies.release();
  }
  return result;
}

}  // namespace fenceline::driver
