// The per-function budget's checks (see Limits.h).
#include "model/Limits.h"

#include <cstdlib>
#include <limits>

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
}
std::string takeStageNotes() {
  std::string notes;
  notes.swap(stageNotes);
  return notes;
}
}  // namespace fenceline::model::memory
