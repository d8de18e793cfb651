// The contract between fenceline-lab's driver (main.cpp) and each experiment
// (experiments/*.cu). An experiment runs one variant at a time and returns a
// Result; the driver owns the CLI, the table, the JSON and the time budget.
// Kept free of anything but the CUDA runtime so that every experiment file
// compiles on its own (`fenceline check --verify lab/experiments/x.cu`).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// One row of the lab's output: one variant of one experiment.
struct Result {
  std::string experiment;
  std::string variant;
  uint64_t violations = 0;  // trials whose outcome the variant's ordering forbids
  uint64_t trials = 0;
  double seconds = 0;       // GPU time of the measured launches (CUDA events)
  uint64_t launches = 0;
  std::string status = "ok";  // "ok", or "timeout" when a device watchdog fired
  // Parameters and side counts; values are JSON literals (numbers) or plain text.
  std::vector<std::pair<std::string, std::string>> params;

  void set(const std::string& key, double value);
  void set(const std::string& key, const std::string& value);
};

// What the driver hands an experiment for one variant.
struct RunContext {
  const cudaDeviceProp* device = nullptr;
  uint64_t iterations = 1;      // launches to make (fewer if the budget runs out)
  uint64_t seed = 1;
  double budgetSeconds = 60;    // wall-clock share of this variant
  double watchdogSeconds = 30;  // host-side limit on one launch
  const std::map<std::string, std::string>* overrides = nullptr;  // --param key=value

  long param(const std::string& key, long fallback) const;
  std::string param(const std::string& key, const std::string& fallback) const;
};

// Dies with a message when a CUDA call fails.
void check(cudaError_t status, const char* what);

// Launches through `launch`, waits for it under the host watchdog (a launch that
// outlives ctx.watchdogSeconds ends the process after the driver has written
// what it has), and returns the launch's GPU time in seconds.
double timedLaunch(const RunContext& ctx, const char* what, const std::function<void()>& launch);

// Called (once) when the host watchdog gives up on a launch, before the process
// exits: the driver writes the rows it has and a row for the hung launch.
void setHangHandler(std::function<void(const std::string& what)> handler);

// Wall-clock seconds since `start` (steady clock), for the budget.
double secondsSince(const std::chrono::steady_clock::time_point& start);

// One experiment: its variants and the function that runs one of them.
struct ExperimentInfo {
  const char* name;
  const char* summary;
  std::vector<std::string> variants;
  std::function<std::vector<Result>(const RunContext&, const std::string& variant)> run;
};

// Each experiment file provides one of these (listed by the driver's table).
ExperimentInfo mpL1Experiment();
ExperimentInfo proxyWarExperiment();
ExperimentInfo proxyWarTmaExperiment();
ExperimentInfo proxyRawExperiment();
ExperimentInfo proxyRawTmaExperiment();
ExperimentInfo barrierReuseExperiment();
ExperimentInfo barrierInitRaceExperiment();
ExperimentInfo litmusMpExperiment();
ExperimentInfo litmusSbExperiment();
ExperimentInfo litmusLbExperiment();
ExperimentInfo gemmExperiment();
ExperimentInfo gemmLatencyExperiment();
ExperimentInfo bulkStoreReuseExperiment();
ExperimentInfo proxyGlobalExperiment();
ExperimentInfo electedArriveExperiment();
ExperimentInfo mbarrierInitFenceExperiment();
ExperimentInfo bulkStoreExitExperiment();
ExperimentInfo lastBlockExperiment();
ExperimentInfo counterResetExperiment();
ExperimentInfo zeroAccumulateExperiment();
ExperimentInfo clusterExitExperiment();

}  // namespace lab
