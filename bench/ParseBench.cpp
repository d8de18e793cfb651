// Throughput of the front end on large PTX: parse alone, and parse + program
// model (what `fenceline check --checks='-*'` does per file). Reports bytes
// per second. Inputs: the .ptx paths given on the command line, else every
// .ptx in FENCELINE_BENCH_INPUT_DIR (see bench/CMakeLists.txt).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "model/Program.h"
#include "ptx/Parser.h"

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void parseOnly(benchmark::State& state, const std::string* text) {
  for (auto _ : state) {
    auto module = fenceline::ptx::parseModule(*text, "bench.ptx");
    benchmark::DoNotOptimize(module.functions.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text->size()));
}

void parseAndModel(benchmark::State& state, const std::string* text) {
  size_t instructions = 0;
  for (auto _ : state) {
    auto module = fenceline::ptx::parseModule(*text, "bench.ptx");
    auto program = fenceline::model::buildProgram(module);
    instructions = program.instructionCount;
    benchmark::DoNotOptimize(program.functions.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text->size()));
  state.counters["instructions"] = static_cast<double>(instructions);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty() && std::filesystem::is_directory(FENCELINE_BENCH_INPUT_DIR))
    for (const auto& entry : std::filesystem::directory_iterator(FENCELINE_BENCH_INPUT_DIR))
      if (entry.path().extension() == ".ptx") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) {
    std::cerr << "no inputs: build the fenceline_bench_inputs target or pass .ptx files\n";
    return 1;
  }
  static std::vector<std::string> texts;  // outlive the registered benchmarks
  texts.reserve(paths.size());
  for (const auto& path : paths) {
    texts.push_back(readFile(path));
    std::string name = std::filesystem::path(path).stem().string() + " (" +
                       std::to_string(texts.back().size() / 1000) + " kB)";
    benchmark::RegisterBenchmark(("parse/" + name).c_str(), parseOnly, &texts.back())->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("parse+model/" + name).c_str(), parseAndModel, &texts.back())
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
