// The PTX of one input (see PtxSources.h).
#include "driver/PtxSources.h"

#include <charconv>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
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

// The architecture a PTX text targets (`.target sm_90a, debug`): its number
// and suffix, {0, ""} when it names none.
std::pair<int, std::string> targetOf(std::string_view ptx) {
  size_t at = ptx.find(".target");
  if (at == std::string::npos) return {0, ""};
  size_t sm = ptx.find("sm_", at);
  size_t end = ptx.find('\n', at);
  if (sm == std::string::npos || (end != std::string::npos && sm > end)) return {0, ""};
  size_t digits = sm + 3, stop = digits;
  while (stop < ptx.size() && std::isdigit(static_cast<unsigned char>(ptx[stop]))) ++stop;
  size_t suffix = stop;
  while (suffix < ptx.size() && std::isalpha(static_cast<unsigned char>(ptx[suffix]))) ++suffix;
  int number = 0;
  std::from_chars(ptx.data() + digits, ptx.data() + stop, number);
  return {number, std::string(ptx.substr(stop, suffix - stop))};
}

// The functions a PTX text defines with a body (`.entry k(...) {`, `.func
// (.param ...) f(...) {`), by name; declarations (`;`) are not. A mapped
// text gives back its pages behind the scan.
std::set<std::string> definedFunctions(std::string_view ptx, const MappedFile* mapped) {
  std::set<std::string> names;
  auto isNameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; };
  auto skipSpace = [&](size_t at) {
    while (at < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[at]))) ++at;
    return at;
  };
  auto skipParens = [&](size_t at) {  // at: '('
    int depth = 0;
    for (; at < ptx.size(); ++at) {
      if (ptx[at] == '(') ++depth;
      else if (ptx[at] == ')' && --depth == 0) return at + 1;
    }
    return at;
  };
  for (const char* directive : {".entry", ".func"}) {
    const size_t length = std::strlen(directive);
    auto next = [&](size_t from) { return mapped ? mapped->find(directive, from) : ptx.find(directive, from); };
    for (size_t at = next(0); at != std::string::npos; at = next(at + length)) {
      size_t begin = at + length;
      if (begin >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[begin]))) continue;
      begin = skipSpace(begin);
      if (begin < ptx.size() && ptx[begin] == '(') begin = skipSpace(skipParens(begin));  // a .func's return values
      size_t end = begin;
      while (end < ptx.size() && isNameChar(ptx[end])) ++end;
      if (end == begin) continue;
      size_t next = skipSpace(end);
      if (next < ptx.size() && ptx[next] == '(') next = skipParens(next);
      size_t body = ptx.find_first_of(";{", next);
      if (body != std::string::npos && ptx[body] == '{') names.insert(std::string(ptx.substr(begin, end - begin)));
    }
  }
  return names;
}

PtxOfInput readBinaryInput(const Input& input, const CheckOptions& options, const std::string& nvcc) {
  PtxOfInput result;
  BinaryContents contents = readBinary(input.path, findCuobjdump(options.cuobjdump, nvcc), options.verbose);
  if (!contents.ok) {
    result.error = fmt::format("{}: error: {}\n", input.path, contents.error);
    return result;
  }
  if (!contents.incomplete.empty()) result.incomplete = fmt::format("{}: error: {}\n", input.path, contents.incomplete);
  // A kernel embedded for several architectures is checked once, in the
  // newest PTX target that defines it (a site is then one finding, not one
  // per architecture); --all-targets checks every image whole.
  std::vector<std::pair<int, std::string>> targets;
  std::vector<std::set<std::string>> defined;
  std::map<std::string, size_t> newest;  // function -> image
  for (size_t i = 0; i < contents.ptx.size(); ++i) {
    // One image at a time, mapped: read whole into the heap, a 20 MB image
    // stayed in malloc's free memory for the rest of the run.
    const MappedFile mapped(contents.ptx[i].file);
    const std::string copy = mapped.ok() ? std::string() : readWholeFile(contents.ptx[i].file);
    const std::string_view text = mapped.ok() ? mapped.text() : std::string_view(copy);
    targets.push_back(targetOf(text));
    defined.push_back(definedFunctions(text, mapped.ok() ? &mapped : nullptr));
    if (options.allTargets) continue;
    for (const auto& name : defined[i]) {
      auto [it, added] = newest.try_emplace(name, i);
      if (!added && targets[i] > targets[it->second]) it->second = i;
    }
  }
  for (size_t i = 0; i < contents.ptx.size(); ++i) {
    PtxUnit unit{"", input.path + ":" + contents.ptx[i].name,
                 fmt::format("PTX embedded in {} ({})", input.path, contents.ptx[i].name)};
    unit.file = contents.ptx[i].file;
    unit.keep = contents.folder;
    if (!options.allTargets) {
      unit.filtered = true;
      for (const auto& name : defined[i])
        if (newest[name] == i) unit.only.insert(name);
      if (unit.only.empty()) continue;  // every function of it is in a newer image
    }
    result.units.push_back(std::move(unit));
  }
  // SASS-only kernels: one line per binary with the count; -v lists them.
  std::set<std::string> sassOnly;
  for (const auto& kernel : contents.sassOnly) sassOnly.insert(kernel.name);
  if (options.verbose)
    for (const auto& kernel : contents.sassOnly)
      result.notes += fmt::format("{}: note: kernel '{}' is only SASS{} in this binary, no PTX: not checked\n",
                                  input.path, kernel.name, kernel.arch.empty() ? "" : " (" + kernel.arch + ")");
  if (!sassOnly.empty()) {
    std::string message = sassOnly.size() == 1
                              ? fmt::format("1 kernel is only SASS in this binary, no PTX: not checked")
                              : fmt::format("{} kernels are only SASS in this binary, no PTX: not checked",
                                            sassOnly.size());
    if (!options.verbose) result.notes += fmt::format("{}: note: {} (-v lists them)\n", input.path, message);
    report::RunNotification n;
    n.level = "note";
    n.kind = "sass-only";
    n.message = message;
    n.file = input.path;
    result.notifications.push_back(std::move(n));
  }
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
