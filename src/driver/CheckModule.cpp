// Parse, model, check, drop: one function at a time (see CheckModule.h).
#include "driver/CheckModule.h"

#include <fmt/format.h>

#include "model/Program.h"
#include "ptx/HeldBodies.h"

namespace fenceline::driver {

namespace {

// Records that `function` was not checked and why: the text line and the notification.
void notChecked(ModuleCheck& result, const ptx::Module& module, const ptx::Function& function, const std::string& why,
                const char* kind) {
  const char* what = function.isEntry ? "kernel" : "function";
  std::string message = fmt::format("{} '{}' not checked: {}", what, function.name, why);
  result.limitErrors.push_back(
      fmt::format("{}:{}:{}: error: {}", module.path, function.pos.line, function.pos.column, message));
  report::RunNotification notification;
  notification.kind = kind;
  notification.message = std::move(message);
  notification.file = module.path;
  notification.line = function.pos.line;
  notification.column = function.pos.column;
  notification.function = function.name;
  result.notifications.push_back(std::move(notification));
}

// The kind of a limit, from the option its message names.
const char* limitKind(const std::string& why) {
  if (why.find("--max-seconds-per-function") != std::string::npos) return "time";
  if (why.find("--max-memory-per-function") != std::string::npos) return "memory";
  return "limit";
}

}  // namespace

ModuleCheck checkModule(ptx::ModuleReader& reader, const std::vector<const checks::CheckInfo*>& selected,
                        const model::Limits& limits, const std::set<std::string>* only) {
  ModuleCheck result;
  const ptx::Module& module = reader.module();
  auto budget = model::InliningBudget::forInput(reader.instructionCount(), limits);
  ptx::HeldBodies bodies(reader, limits.maxCallDepth);
  for (size_t index = 0; index < module.functions.size(); ++index) {
    const ptx::Function& function = module.functions[index];
    if (!function.hasBody || (only && !only->contains(function.name))) continue;
    if (int signal = model::stopSignal().load()) {
      result.interrupted = true;
      notChecked(result, module, function, "the run was interrupted (signal " + std::to_string(signal) + ")",
                 "interrupted");
      break;
    }
    // Parse its body and those it may inline (a malformed one throws ParseError).
    bodies.hold(index);
    model::Deadline deadline(limits.maxSecondsPerFunction);
    // What the function found so far is kept only when it is checked whole.
    std::vector<report::Diagnostic> found;
    try {
      // Time, memory and the run's stop request, polled inside the stages.
      model::FunctionBudget functionBudget(deadline, limits.maxMemoryPerFunction);
      // The model lives for this iteration only: its checks are all that use it.
      model::FunctionModel fn;
      model::buildFunctionModel(fn, module, function, limits, budget, deadline);
      for (const checks::CheckInfo* check : selected) {
        check->run(fn, found);
        deadline.check("checking it");
        functionBudget.check();
      }
      ++result.functions;
      result.instructions += fn.instructions.size();
      result.diagnostics.insert(result.diagnostics.end(), std::make_move_iterator(found.begin()),
                                std::make_move_iterator(found.end()));
    } catch (const model::Interrupted& e) {
      result.interrupted = true;
      notChecked(result, module, function, e.what(), "interrupted");
      bodies.release();
      break;
    } catch (const model::LimitExceeded& e) {
      notChecked(result, module, function, e.what(), limitKind(e.what()));
    } catch (const std::bad_alloc&) {
      // The function's memory budget (the allocator refused past it) or the system's.
      found = {};
      notChecked(result, module, function, model::memoryMessage(limits.maxMemoryPerFunction), "memory");
    } catch (const ptx::ParseError&) {
      throw;  // the file's error, reported as such
    } catch (const std::exception& e) {
      notChecked(result, module, function, std::string("internal error: ") + e.what(), "internal-error");
    }
    bodies.release();
  }
  return result;
}

}  // namespace fenceline::driver
