// The per-function budget's checks (see Limits.h).
#include "model/Limits.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "model/MemoryStats.h"

namespace fenceline::model {

namespace memory {
thread_local int64_t threadBytes = 0;
thread_local int64_t threadPeak = 0;
void (*trimHook)() = nullptr;
void (*freeStatsHook)(int64_t&, int64_t&) = nullptr;
thread_local int64_t threadLimit = std::numeric_limits<int64_t>::max();
thread_local bool overBudget = false;
bool counted = false;
}  // namespace memory

namespace detail {
thread_local int pollCountdown = kPollInterval;
}  // namespace detail

namespace {
thread_local FunctionBudget* currentBudget = nullptr;
}  // namespace

std::atomic<int>& stopSignal() {
  static std::atomic<int> signal{0};
  return signal;
}

FunctionBudget::FunctionBudget(const Deadline& deadline, size_t maxMemoryMiB)
    : deadline_(deadline), maxMemoryMiB_(maxMemoryMiB), outer_(currentBudget) {
  startBytes_ = memory::threadBytes;
  savedLimit_ = memory::threadLimit;
  memory::overBudget = false;
  if (maxMemoryMiB > 0 && memory::counted) {
    const int64_t bytes = static_cast<int64_t>(maxMemoryMiB) << 20;
    memory::threadLimit = std::min(savedLimit_, startBytes_ + bytes);
  }
  currentBudget = this;
  detail::pollCountdown = detail::kPollInterval;
}

FunctionBudget::~FunctionBudget() {
  memory::threadLimit = savedLimit_;
  currentBudget = outer_;
}

FunctionBudget* FunctionBudget::current() { return currentBudget; }

int64_t FunctionBudget::bytesUsed() const { return memory::counted ? memory::threadBytes - startBytes_ : 0; }

void FunctionBudget::check() const {
  if (int signal = stopSignal().load(std::memory_order_relaxed))
    throw Interrupted("the run was interrupted (signal " + std::to_string(signal) + ") while " + stage_);
  if (memory::overBudget) throw MemoryExceeded(memoryMessage(maxMemoryMiB_));
  deadline_.check(stage_);
}

std::string memoryMessage(size_t maxMemoryMiB) {
  if (memory::overBudget && maxMemoryMiB > 0)
    return "more than " + std::to_string(maxMemoryMiB) + " MiB of memory (--max-memory-per-function)";
  return "out of memory";
}

namespace detail {
void pollSlow() {
  pollCountdown = kPollInterval;
  if (FunctionBudget* budget = currentBudget) budget->check();
  else if (int signal = stopSignal().load(std::memory_order_relaxed))
    throw Interrupted("the run was interrupted (signal " + std::to_string(signal) + ")");
}
}  // namespace detail

}  // namespace fenceline::model

namespace fenceline::model::memory {
bool statsEnabled() {
  static const bool enabled = std::getenv("FENCELINE_MEMSTATS") != nullptr;
  return enabled;
}
namespace {
thread_local std::string stageNotes;
}
void noteStage(const char* stage) {
  if (!statsEnabled()) return;
  stageNotes += std::string(" ") + stage + "=" + std::to_string(threadBytes >> 10) + "/" +
                std::to_string(threadPeak >> 10);
  noteResident(stage);
}
namespace {
// The process's VmHWM, RssAnon and RssFile in KiB.
struct Resident {
  long hwm = 0, anon = 0, file = 0;
};
Resident readResident() {
  Resident r;
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return r;
  char line[256];
  while (std::fgets(line, sizeof line, status)) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) r.hwm = std::atol(line + 6);
    else if (std::strncmp(line, "RssAnon:", 8) == 0) r.anon = std::atol(line + 8);
    else if (std::strncmp(line, "RssFile:", 8) == 0) r.file = std::atol(line + 8);
  }
  std::fclose(status);
  return r;
}
std::atomic<long> lastHwm{0};  // the process's, as last read by any thread
}  // namespace
void noteResident(std::string_view where) {
  if (!statsEnabled()) return;
  const Resident r = readResident();
  static const bool every = std::string_view(std::getenv("FENCELINE_MEMSTATS")) == "2";
  if (every) stageNotes += fmt::format(" rss@{}={}/{}", where, r.anon, r.file);
  const long last = lastHwm.exchange(std::max(r.hwm, lastHwm.load()));
  if (last && r.hwm > last) stageNotes += fmt::format(" hwm@{}+{}", where, r.hwm - last);
}
std::string takeStageNotes() {
  std::string notes;
  notes.swap(stageNotes);
  return notes;
}
}  // namespace fenceline::model::memory
