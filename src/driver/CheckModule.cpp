// Parse, model, check, drop: one function at a time (see CheckModule.h).
#include "driver/CheckModule.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "model/MemoryStats.h"
#include "model/Program.h"
#include "model/Protocol.h"
#include "ptx/HeldBodies.h"

namespace fenceline::driver {

namespace {

// The notification about one function of `module`, at its definition.
report::RunNotification functionNotification(const ptx::Module& module, const ptx::Function& function,
                                             const char* kind, std::string message) {
  report::RunNotification notification;
  notification.kind = kind;
  notification.message = std::move(message);
  notification.file = module.path;
  notification.line = function.pos.line;
  notification.column = function.pos.column;
  notification.function = function.name;
  return notification;
}

// Records that `function` was not checked and why: the text line and the notification.
void notChecked(ModuleCheck& result, const ptx::Module& module, const ptx::Function& function, const std::string& why,
                const char* kind) {
  const char* what = function.isEntry ? "kernel" : "function";
  std::string message = fmt::format("{} '{}' not checked: {}", what, function.name, why);
  result.limitErrors.push_back(
      fmt::format("{}:{}:{}: error: {}", module.path, function.pos.line, function.pos.column, message));
  result.notifications.push_back(functionNotification(module, function, kind, std::move(message)));
}

// After an interrupted function: the functions of the module it did not begin
// (those with a body, among `only` when given), one notification for them all.
void notBegun(ModuleCheck& result, const ptx::Module& module, size_t after, const std::set<std::string>* only) {
  size_t count = 0;
  for (size_t index = after + 1; index < module.functions.size(); ++index) {
    const ptx::Function& function = module.functions[index];
    if (function.hasBody && (!only || only->contains(function.name))) ++count;
  }
  if (count == 0) return;
  std::string message =
      fmt::format("{} more function{} of this file not checked: the run was interrupted before {}", count,
                  count == 1 ? "" : "s", count == 1 ? "it began" : "they began");
  result.limitErrors.push_back(fmt::format("{}: error: {}", module.path, message));
  report::RunNotification notification;
  notification.kind = "interrupted";
  notification.message = std::move(message);
  notification.file = module.path;
  result.notifications.push_back(std::move(notification));
}

// Records that `function` was checked with its calls to synchronization-free
// callees left as calls (model/CallSummaries.h): a note, not an error (the
// function is checked; what those callees read is not followed).
void summarized(ModuleCheck& result, const ptx::Module& module, const ptx::Function& function,
                const model::FunctionModel& fn, const model::Limits& limits) {
  const char* what = function.isEntry ? "kernel" : "function";
  const bool over = fn.inlinedWhole > limits.maxInstructions;
  std::string message = fmt::format(
      "{} '{}' checked with {} call{} to synchronization-free functions not inlined (inlined whole, its model "
      "would have {} instructions: {}); they order nothing and write only their own frame, and what they read "
      "is not followed",
      what, function.name, fn.summarizedCalls, fn.summarizedCalls == 1 ? "" : "s", fn.inlinedWhole,
      over ? "more than --max-instructions" : "more than its inlining budget and the input's left (--inlining-growth)");
  result.notes.push_back(fmt::format("{}:{}:{}: note: {}", module.path, function.pos.line, function.pos.column, message));
  report::RunNotification notification = functionNotification(module, function, "summarized-calls", std::move(message));
  notification.level = "note";
  result.notifications.push_back(std::move(notification));
}

// The kind of a limit, from the option its message names.
const char* limitKind(const std::string& why) {
  if (why.find("--max-seconds-per-function") != std::string::npos) return "time";
  if (why.find("--max-memory-per-function") != std::string::npos) return "memory";
  return "limit";
}

// VmRSS, VmHWM, RssAnon and RssFile of this process, in KiB (FENCELINE_MEMSTATS).
struct Resident {
  long rss = 0, hwm = 0, anon = 0, file = 0;
};
Resident residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string key;
  Resident r;
  while (status >> key) {
    if (key == "VmRSS:") status >> r.rss;
    else if (key == "VmHWM:") status >> r.hwm;
    else if (key == "RssAnon:") status >> r.anon;
    else if (key == "RssFile:") status >> r.file;
  }
  return r;
}

}  // namespace

ModuleCheck checkModule(ptx::ModuleReader& reader, const std::vector<const checks::CheckInfo*>& selected,
                        const model::Limits& limits, const std::set<std::string>* only,
                        const std::function<void()>& textDone,
                        const std::function<void(std::vector<report::Diagnostic>&)>& onFound) {
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
      notBegun(result, module, index, only);
      break;
    }
    // Parse its body and those it may inline (a malformed one throws ParseError).
    const bool stats = model::memory::statsEnabled();
    const int64_t beforeHold = model::memory::threadBytes;
    if (stats) model::memory::resetPeak(beforeHold);
    model::memory::noteResident("before-hold");
    bodies.hold(index);
    model::memory::noteResident("hold");
    const int64_t afterHold = model::memory::threadBytes;
    // A mapped image's pages are not needed while the model is built and
    // checked (what reads the text again faults its pages back in): at
    // vLLM's CUTLASS kernels the callees' pages were 14 MB of the peak.
    if (textDone) textDone();
    model::memory::noteResident("textDone");
    model::Deadline deadline(limits.maxSecondsPerFunction);
    // What the function found so far is kept only when it is checked whole.
    std::vector<report::Diagnostic> found;
    try {
      // Time, memory and the run's stop request, polled inside the stages.
      model::FunctionBudget functionBudget(deadline, limits.maxMemoryPerFunction);
      // The model lives for this iteration only: its checks are all that use it.
      model::FunctionModel fn;
      auto since = std::chrono::steady_clock::now();
      auto takeMillis = [&since] {
        const auto now = std::chrono::steady_clock::now();
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - since).count();
        since = now;
        return static_cast<long long>(ms);
      };
      model::buildFunctionModel(fn, module, function, limits, budget, deadline);
      std::string checkNotes;
      if (stats) checkNotes += fmt::format(" model_ms={}", takeMillis());
      for (const checks::CheckInfo* check : selected) {
        const int64_t beforeCheck = model::memory::threadBytes;
        const int64_t peakSoFar = model::memory::threadPeak;
        if (stats) model::memory::resetPeak(beforeCheck);
        check->run(fn, found);
        model::memory::noteResident(check->id);
        if (stats) {
          checkNotes += fmt::format(" {}=+{}/+{}:{}ms", check->id, (model::memory::threadBytes - beforeCheck) >> 10,
                                    (model::memory::threadPeak - beforeCheck) >> 10, takeMillis());
          model::memory::resetPeak(std::max(peakSoFar, model::memory::threadPeak));
        }
        deadline.check("checking it");
        functionBudget.check();
      }
      ++result.functions;
      if (fn.summarizedCalls > 0) summarized(result, module, function, fn, limits);
      if (stats) {
        const int64_t beforeCopy = model::memory::threadBytes;
        int64_t diagnosticBytes = 0;
        {
          std::vector<report::Diagnostic> copy = found;
          diagnosticBytes = model::memory::threadBytes - beforeCopy;
        }
        checkNotes += fmt::format(" diagnostics={}:{}", found.size(), diagnosticBytes >> 10);
        if (fn.protocol) checkNotes += " memo:" + fn.protocol->memoStats();
        const Resident r = residentKiB();
        int64_t freeBytes = 0, chunkBytes = 0;
        if (model::memory::freeStatsHook) model::memory::freeStatsHook(freeBytes, chunkBytes);
        checkNotes += fmt::format(" anon={} file={} freelists={} chunks={}", r.anon, r.file, freeBytes >> 10,
                                  chunkBytes >> 10);
        std::fprintf(stderr, "memstats\t%s\tbody=%zu\tmodel=%zu\tbase=%lld\tparse=%lld\tpeak=%lld\trss=%ld\thwm=%ld\t%s\n",
                     function.name.c_str(), function.instructions.size(), fn.instructions.size(),
                     static_cast<long long>(beforeHold >> 10), static_cast<long long>((afterHold - beforeHold) >> 10),
                     static_cast<long long>((model::memory::threadPeak - beforeHold) >> 10), r.rss, r.hwm,
                     (model::memory::takeStageNotes() + checkNotes).c_str());
      }
      result.instructions += fn.instructions.size();
      if (onFound) onFound(found);
      model::memory::noteResident("placed");
      result.diagnostics.insert(result.diagnostics.end(), std::make_move_iterator(found.begin()),
                                std::make_move_iterator(found.end()));
    } catch (const model::Interrupted& e) {
      result.interrupted = true;
      notChecked(result, module, function, e.what(), "interrupted");
      notBegun(result, module, index, only);
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
    // What the function's model freed goes back to the system once it adds up.
    model::memory::giveBackFreeMemory();
    if (textDone) textDone();
  }
  return result;
}

}  // namespace fenceline::driver
