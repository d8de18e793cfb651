// Host-side plumbing shared by the experiments: parameter lookup, CUDA error
// checks, and the launch watchdog. A launch is timed with CUDA events and
// waited for by polling, so that a kernel that never finishes (a barrier that
// hangs despite the device-side timeouts) ends the run with a report instead of
// blocking it: the process cannot kill a running kernel, but it can exit.
#include "Experiment.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace lab {

namespace {
std::function<void(const std::string&)> gHangHandler;

std::string formatNumber(double value) {
  char text[64];
  if (value == static_cast<double>(static_cast<long long>(value)) && value < 9e15 && value > -9e15)
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  else
    std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}
}  // namespace

void Result::set(const std::string& key, double value) { set(key, formatNumber(value)); }

void Result::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : params)
    if (k == key) {
      v = value;
      return;
    }
  params.emplace_back(key, value);
}

long RunContext::param(const std::string& key, long fallback) const {
  if (!overrides) return fallback;
  auto it = overrides->find(key);
  return it == overrides->end() ? fallback : std::strtol(it->second.c_str(), nullptr, 0);
}

std::string RunContext::param(const std::string& key, const std::string& fallback) const {
  if (!overrides) return fallback;
  auto it = overrides->find(key);
  return it == overrides->end() ? fallback : it->second;
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "fenceline-lab: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(2);
}

void setHangHandler(std::function<void(const std::string&)> handler) {
  gHangHandler = std::move(handler);
}

double secondsSince(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double timedLaunch(const RunContext& ctx, const char* what, const std::function<void()>& launch) {
  static cudaEvent_t start = nullptr, stop = nullptr;
  if (!start) {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  check(cudaEventRecord(start), "cudaEventRecord");
  launch();
  check(cudaGetLastError(), what);
  check(cudaEventRecord(stop), "cudaEventRecord");
  const auto began = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t status = cudaEventQuery(stop);
    if (status == cudaSuccess) break;
    if (status != cudaErrorNotReady) check(status, what);
    if (secondsSince(began) > ctx.watchdogSeconds) {
      std::fprintf(stderr, "fenceline-lab: watchdog: %s did not finish within %.0f s\n", what,
                   ctx.watchdogSeconds);
      if (gHangHandler) gHangHandler(what);
      std::fflush(nullptr);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  return ms / 1000.0;
}

}  // namespace lab
