// fenceline-lab: runs each hazard experiment's variants on the GPU and reports
// violations / trials, GPU time and rate, as a table and optionally as JSON.
// The flow: parse the options, pick experiments and variants from the table,
// split the time budget among them, run each (every launch under the host
// watchdog), print, and write the JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "Experiment.h"

namespace {

using lab::ExperimentInfo;
using lab::Result;

// The experiments, in the order they run.
std::vector<ExperimentInfo> experimentTable() {
  return {lab::mpL1Experiment(),          lab::proxyWarExperiment(),   lab::proxyWarTmaExperiment(),
          lab::proxyRawExperiment(),      lab::proxyRawTmaExperiment(), lab::barrierReuseExperiment(),
          lab::barrierInitRaceExperiment(), lab::litmusMpExperiment(),   lab::litmusSbExperiment(),
          lab::litmusLbExperiment(),      lab::gemmExperiment(),       lab::gemmLatencyExperiment(),
          lab::bulkStoreReuseExperiment(), lab::proxyGlobalExperiment(), lab::electedArriveExperiment(),
          lab::mbarrierInitFenceExperiment(), lab::bulkStoreExitExperiment(), lab::lastBlockExperiment(),
          lab::counterResetExperiment(), lab::zeroAccumulateExperiment(), lab::clusterExitExperiment()};
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return list.empty() || std::find(list.begin(), list.end(), item) != list.end();
}

std::string driverVersion() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (in && std::getline(in, line)) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..."
    std::stringstream words(line);
    std::string word, found;
    while (words >> word)
      if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) {
        found = word;
        break;
      }
    if (!found.empty()) return found;
  }
  int version = 0;
  cudaDriverGetVersion(&version);
  return "CUDA driver API " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string runtimeVersion() {
  int version = 0;
  cudaRuntimeGetVersion(&version);
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

nlohmann::json paramValue(const std::string& text) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (!text.empty() && end && *end == '\0') return number;
  return text;
}

nlohmann::json toJson(const Result& r) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, value] : r.params) params[key] = paramValue(value);
  return {{"name", r.experiment},
          {"variant", r.variant},
          {"violations", r.violations},
          {"trials", r.trials},
          {"rate", r.trials ? static_cast<double>(r.violations) / static_cast<double>(r.trials) : 0.0},
          {"seconds", r.seconds},
          {"launches", r.launches},
          {"status", r.status},
          {"params", params}};
}

void writeJson(const std::string& path, const nlohmann::json& header, const std::vector<Result>& results) {
  nlohmann::json out = header;
  out["experiments"] = nlohmann::json::array();
  for (const auto& r : results) out["experiments"].push_back(toJson(r));
  std::ofstream file(path);
  file << out.dump(2) << "\n";
  if (!file) std::fprintf(stderr, "fenceline-lab: cannot write %s\n", path.c_str());
}

// The parameters worth a glance in the table (the JSON has them all).
std::string tableNote(const Result& r) {
  std::string note;
  for (const char* key : {"reader", "saw_refill", "ns_per_stage", "ns_per_round", "passed_early", "timed_out",
                          "timeouts", "weak_per_million", "same_sm_pairs", "wrong_elements", "max_wrong_per_run",
                          "rel_error_vs_reference", "us_median", "vs_unfixed", "next_round", "wrong_words"})
    for (const auto& [k, v] : r.params)
      if (k == key && !(k == "timeouts" && v == "0")) note += (note.empty() ? "" : " ") + k + "=" + v;
  return note;
}

void printRow(const Result& r) {
  const double rate = r.trials ? static_cast<double>(r.violations) / static_cast<double>(r.trials) : 0.0;
  std::printf("%-18s %-15s %14llu %16llu %11.3g %9.3f  %-7s %s\n", r.experiment.c_str(), r.variant.c_str(),
              static_cast<unsigned long long>(r.violations), static_cast<unsigned long long>(r.trials), rate,
              r.seconds, r.status.c_str(), tableNote(r).c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fenceline-lab: reproduce GPU memory-ordering hazards, broken and fixed side by side"};
  bool list = false;
  std::string experiments, variants, jsonPath;
  uint64_t iterations = 10, seed = 1;
  double budget = 240, watchdog = 60;
  std::vector<std::string> paramArgs;
  app.add_flag("--list", list, "list experiments and their variants");
  app.add_option("--experiments", experiments, "comma-separated experiment names (default: all)");
  app.add_option("--variants", variants, "comma-separated variant names (default: all of each experiment)");
  app.add_option("--iterations", iterations, "launches per variant (fewer if the budget runs out)");
  app.add_option("--seed", seed, "seed of the thread randomization");
  app.add_option("--budget-seconds", budget, "wall-clock budget for the whole run, split among the variants");
  app.add_option("--watchdog-seconds", watchdog, "host-side limit on one launch");
  app.add_option("--param", paramArgs, "experiment knob, e.g. proxy-war.bank_conflicts=0 (repeatable)");
  app.add_option("--json", jsonPath, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  const auto table = experimentTable();
  if (list) {
    for (const auto& e : table) {
      std::printf("%-18s %s\n  variants:", e.name, e.summary);
      for (const auto& v : e.variants) std::printf(" %s", v.c_str());
      std::printf("\n");
    }
    return 0;
  }

  std::map<std::string, std::string> overrides;
  for (const auto& arg : paramArgs) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "fenceline-lab: --param wants key=value, got '%s'\n", arg.c_str());
      return 2;
    }
    overrides[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  const auto wantedExperiments = splitList(experiments), wantedVariants = splitList(variants);
  for (const auto& name : wantedExperiments) {
    bool known = false;
    for (const auto& e : table) known |= name == e.name;
    if (!known) {
      std::fprintf(stderr, "fenceline-lab: unknown experiment '%s' (see --list)\n", name.c_str());
      return 2;
    }
  }

  // What runs: every chosen variant of every chosen experiment.
  std::vector<std::pair<const ExperimentInfo*, std::string>> plan;
  for (const auto& e : table)
    if (contains(wantedExperiments, e.name))
      for (const auto& v : e.variants)
        if (contains(wantedVariants, v)) plan.emplace_back(&e, v);
  if (plan.empty()) {
    std::fprintf(stderr, "fenceline-lab: nothing to run\n");
    return 2;
  }

  lab::check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp device{};
  lab::check(cudaGetDeviceProperties(&device, 0), "cudaGetDeviceProperties");
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  const nlohmann::json header = {{"device", device.name},
                                 {"driver", driverVersion()},
                                 {"cuda", runtimeVersion()},
                                 {"command", command}};

  std::vector<Result> results;
  lab::setHangHandler([&](const std::string& what) {
    Result hung;
    hung.experiment = what;
    hung.variant = "?";
    hung.status = "hang";
    results.push_back(hung);
    if (!jsonPath.empty()) writeJson(jsonPath, header, results);
  });

  std::printf("device: %s (%d SMs), driver %s, CUDA runtime %s\n", device.name, device.multiProcessorCount,
              header["driver"].get<std::string>().c_str(), header["cuda"].get<std::string>().c_str());
  std::printf("%-18s %-15s %14s %16s %11s %9s  %-7s %s\n", "experiment", "variant", "violations", "trials", "rate",
              "GPU s", "status", "notes");
  lab::RunContext ctx;
  ctx.device = &device;
  ctx.iterations = iterations;
  ctx.seed = seed;
  ctx.budgetSeconds = budget / static_cast<double>(plan.size());
  ctx.watchdogSeconds = watchdog;
  ctx.overrides = &overrides;
  for (const auto& [experiment, variant] : plan) {
    for (auto& r : experiment->run(ctx, variant)) {
      printRow(r);
      results.push_back(std::move(r));
    }
  }
  if (!jsonPath.empty()) writeJson(jsonPath, header, results);
  return 0;
}
