// Limits on the work one input may cost, so that a hostile or corrupt file
// ends in a clear error instead of running for hours or taking gigabytes.
// Each limit is per function model except the inlining budget, which is
// shared by all the functions of one input: a small call tree inlined into
// thousands of kernels must not multiply past it. A function over a limit is
// not checked (a LimitExceeded names it and the limit); the rest of the input
// is. `fenceline check --max-...` raises them (docs/cli.md, "Limits").
#pragma once

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
  // Instructions that inlining may add, over all functions of one input:
  // this many times the instructions the input has, plus maxInstructions.
  size_t inliningGrowth = 16;
  // Wall-clock seconds to model and check one function (0 = no limit).
  // Checked between the stages and between the checks.
  double maxSecondsPerFunction = 60;
};

// The budget of instructions that inlining may still add in one input.
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
// between stages and between checks (a stage itself is not interrupted).
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

}  // namespace fenceline::model
