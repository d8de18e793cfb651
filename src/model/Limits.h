// Limits on the work one input may cost, so that a hostile or corrupt file
// ends in a clear error instead of running for hours or taking gigabytes.
// Each limit is per function model except the inlining budget, which is a
// function's own (proportional to the code of its call tree) and, past that,
// shared by all the functions of one input: a small call tree inlined into
// thousands of kernels must not multiply past it. A function over a limit is
// not checked (a LimitExceeded names it and the limit); the rest of the input
// is. `fenceline check --max-...` raises them (docs/cli.md, "Limits").
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace fenceline::model {

struct Limits {
  // Instructions of one function model after inlining. A model costs about
  // 450 bytes per instruction; the largest real kernels seen have 10^4 to 10^5.
  size_t maxInstructions = size_t{1} << 19;
  // Registers of one function model after inlining (its own and the fresh
  // ones of every inlined body that it uses).
  size_t maxRegisters = size_t{1} << 22;
  // Nesting of inlined calls.
  int maxCallDepth = 16;
  // Instructions that inlining may add to one function: this many times the
  // instructions of its call tree (itself and each function it may inline,
  // each counted once); past that, from a budget shared by the functions of
  // one input: this many times the instructions the input has, plus
  // maxInstructions.
  size_t inliningGrowth = 16;
  // Wall-clock seconds to model and check one function (0 = no limit).
  // Checked inside the stages' loops (poll() below) and between the checks.
  double maxSecondsPerFunction = 60;
  // Memory one function's model and checks may hold, in MiB (0 = no limit):
  // counted by the executable's allocator (src/alloc), per thread.
  size_t maxMemoryPerFunction = 512;
};

// The budget of instructions that inlining may still add in one input, once
// a function has spent its own (inliningGrowth times its call tree: the
// Flattener, model/Inliner.cpp). The function's own share keeps the input's
// order from deciding which kernels are checked: a kernel whose calls copy
// each body of its call tree at most inliningGrowth times on average never
// draws on this one.
struct InliningBudget {
  size_t remaining = 0;
  static InliningBudget forInput(size_t inputInstructions, const Limits& limits) {
    return {inputInstructions * limits.inliningGrowth + limits.maxInstructions};
  }
};

// Why a function model was not built (or not finished): the limit, in words
// that name its option ("more than 2097152 instructions after inlining
// (--max-instructions)").
class LimitExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The time limit of one function: started when its model is begun, checked
// between stages and between checks, and inside the stages through poll().
class Deadline {
 public:
  explicit Deadline(double seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  bool passed() const {
    return seconds_ > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > seconds_;
  }
  // Throws LimitExceeded once the time is up; `doing` says what was cut short.
  void check(const char* doing) const {
    if (!passed()) return;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", seconds_);
    throw LimitExceeded(std::string("more than ") + seconds + " seconds " + doing + " (--max-seconds-per-function)");
  }

 private:
  double seconds_;
  std::chrono::steady_clock::time_point start_;
};

// The run was asked to stop (SIGINT, SIGTERM): the function being checked is
// abandoned at its next poll(), and no further input is begun.
class Interrupted : public LimitExceeded {
 public:
  using LimitExceeded::LimitExceeded;
};

// A function's memory went past --max-memory-per-function: thrown by poll()
// (the allocator itself throws std::bad_alloc past the budget, see memory below).
class MemoryExceeded : public LimitExceeded {
 public:
  using LimitExceeded::LimitExceeded;
};

// The stop request of the whole run: 0, or the signal that asked for it.
// Set from a signal handler (lock-free), read by poll() and the driver.
std::atomic<int>& stopSignal();

// Memory counted per thread by the executable's operator new and delete
// (src/alloc/SizeClassAllocator.cpp); without that allocator (sanitizer and
// fuzzer builds, the unit tests) nothing is counted and there is no budget.
namespace memory {
// Bytes this thread has allocated and not freed (a block freed by another
// thread is taken off that thread's count).
extern thread_local int64_t threadBytes;
// operator new fails (std::bad_alloc) when threadBytes would pass this.
extern thread_local int64_t threadLimit;
// Set when operator new failed because of threadLimit (not of the system).
extern thread_local bool overBudget;
// Whether an allocator that counts is linked in (it sets this at start-up).
extern bool counted;
}  // namespace memory

// The budget of the function being modelled and checked on this thread: its
// deadline, its memory (--max-memory-per-function) and the run's stop
// request. Made by the driver around one function; the stages' loops call
// poll(), which costs a decrement and reads the clock every kPollInterval
// calls, so that no stage runs past the deadline by more than a few
// milliseconds. A stage names itself (stage()) for the message.
class FunctionBudget {
 public:
  FunctionBudget(const Deadline& deadline, size_t maxMemoryMiB);
  ~FunctionBudget();
  FunctionBudget(const FunctionBudget&) = delete;
  FunctionBudget& operator=(const FunctionBudget&) = delete;
  // The budget in force on this thread, or null.
  static FunctionBudget* current();
  // What the function is doing now, for the message ("building the value analysis").
  void setStage(const char* doing) { stage_ = doing; }
  const char* stage() const { return stage_; }
  // Throws LimitExceeded (Interrupted, MemoryExceeded) when a limit is passed.
  void check() const;
  size_t maxMemoryMiB() const { return maxMemoryMiB_; }
  // Bytes held by this thread since the budget began (0 when not counted).
  int64_t bytesUsed() const;

 private:
  const Deadline& deadline_;
  size_t maxMemoryMiB_;
  int64_t startBytes_ = 0, savedLimit_ = 0;
  const char* stage_ = "modelling it";
  FunctionBudget* outer_ = nullptr;
};

namespace detail {
inline constexpr int kPollInterval = 1024;
extern thread_local int pollCountdown;
void pollSlow();
}  // namespace detail

// Called in the stages' loops (see FunctionBudget). Cheap: a thread-local
// decrement; every kPollInterval calls, the budget's check().
inline void poll() {
  if (--detail::pollCountdown > 0) return;
  detail::pollSlow();
}

// Names the stage for the messages of the budget in force, if any.
inline void enterStage(const char* doing) {
  if (FunctionBudget* budget = FunctionBudget::current()) budget->setStage(doing);
}

// The message of a std::bad_alloc caught while a function was checked: the
// budget's when the allocator refused past it, else the system's.
std::string memoryMessage(size_t maxMemoryMiB);

}  // namespace fenceline::model
