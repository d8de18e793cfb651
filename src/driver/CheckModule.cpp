// Model, check, drop: one function at a time (see CheckModule.h).
#include "driver/CheckModule.h"

#include <fmt/format.h>

#include "model/Program.h"

namespace fenceline::driver {

namespace {

std::string limitError(const ptx::Module& module, const ptx::Function& function, const std::string& why) {
  const char* kind = function.isEntry ? "kernel" : "function";
  return fmt::format("{}:{}:{}: error: {} '{}' not checked: {}", module.path, function.pos.line, function.pos.column,
                     kind, function.name, why);
}

}  // namespace

ModuleCheck checkModule(const ptx::Module& module, const std::vector<const checks::CheckInfo*>& selected,
                        const model::Limits& limits) {
  ModuleCheck result;
  auto budget = model::InliningBudget::forInput(model::instructionsBeforeInlining(module), limits);
  for (const auto& function : module.functions) {
    if (!function.hasBody) continue;
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
  }
  return result;
}

}  // namespace fenceline::driver
