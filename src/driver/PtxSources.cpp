// The PTX of one input (see PtxSources.h).
#include "driver/PtxSources.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "report/SourceText.h"

#include "driver/Binaries.h"
#include "driver/Compiler.h"

namespace fenceline::driver {

namespace {

// A .ptx input: a regular file (not a FIFO or a device behind a .ptx name),
// under 2 GiB (the front end's text offsets are 32-bit).
std::string readFile(const std::string& path, std::string& error) {
  std::string why;
  auto text = report::readRegularFile(path, size_t{2} << 30, why);
  if (!text) error = fmt::format("{}: error: cannot read file: {}", path, why);
  return text ? std::move(*text) : std::string();
}

PtxOfInput readPtx(const Input& input) {
  PtxOfInput result;
  PtxUnit unit;
  unit.text = readFile(input.path, result.error);
  if (!result.error.empty()) return result;
  unit.path = input.path;
  unit.label = input.kind == Input::Kind::TritonKernel
                   ? fmt::format("Triton kernel '{}' ({})", input.kernelName, input.path)
                   : fmt::format("PTX file {}", input.path);
  result.units.push_back(std::move(unit));
  return result;
}

PtxOfInput compileCuda(const Input& input, const CheckOptions& options) {
  PtxOfInput result;
  CompileRequest request{options.nvcc, input.path, archFor(input, options), input.flags, options.verbose};
  request.flags.insert(request.flags.end(), options.nvccFlags.begin(), options.nvccFlags.end());
  CompileResult compiled = compileToPtx(request);
  if (!compiled.ok) {
    result.error = fmt::format("{}: error: {}\n", input.path, compiled.error);
    return result;
  }
  result.units.push_back({std::move(compiled.ptx), input.path + ".ptx", ""});
  result.sourceFiles.push_back(input.path);
  return result;
}

PtxOfInput readBinaryInput(const Input& input, const CheckOptions& options, const std::string& nvcc) {
  PtxOfInput result;
  BinaryContents contents = readBinary(input.path, findCuobjdump(options.cuobjdump, nvcc), options.verbose);
  if (!contents.ok) {
    result.error = fmt::format("{}: error: {}\n", input.path, contents.error);
    return result;
  }
  for (auto& ptx : contents.ptx)
    result.units.push_back({std::move(ptx.text), input.path + ":" + ptx.name,
                            fmt::format("PTX embedded in {} ({})", input.path, ptx.name)});
  for (const auto& kernel : contents.sassOnly)
    result.notes += fmt::format("{}: note: kernel '{}' is only SASS{} in this binary, no PTX: not checked\n",
                                input.path, kernel.name, kernel.arch.empty() ? "" : " (" + kernel.arch + ")");
  if (contents.ptx.empty() && contents.sassOnly.empty())
    result.notes += fmt::format("{}: note: no CUDA kernels in this binary: nothing to check\n", input.path);
  return result;
}

}  // namespace

std::string archFor(const Input& input, const CheckOptions& options) {
  if (options.archGiven || input.archs.empty()) return options.arch;
  auto number = [](const std::string& arch) {
    size_t digit = arch.find_first_of("0123456789");
    return digit == std::string::npos ? 0 : std::atoi(arch.c_str() + digit);
  };
  std::string best;
  for (const auto& arch : input.archs)
    if (number(arch) > 0 && (best.empty() || number(arch) > number(best))) best = arch;
  return best.empty() ? options.arch : best;
}

PtxOfInput ptxOf(const Input& input, const CheckOptions& options, const std::string& nvcc) {
  switch (input.kind) {
    case Input::Kind::Ptx:
    case Input::Kind::TritonKernel: return readPtx(input);
    case Input::Kind::Cuda: return compileCuda(input, options);
    case Input::Kind::Binary: return readBinaryInput(input, options, nvcc);
  }
  return {};
}

}  // namespace fenceline::driver
