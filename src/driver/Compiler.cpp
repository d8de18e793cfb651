// nvcc invocation (see Compiler.h).
#include "driver/Compiler.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "driver/Process.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

std::string trimTrailing(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string findNvcc(const std::string& requested) {
  if (!requested.empty()) {
    if (requested.find('/') != std::string::npos) return requested;  // exec reports what is wrong with it
    return searchPath(requested);
  }
  if (std::string found = searchPath("nvcc"); !found.empty()) return found;
  if (isExecutable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return {};
}

std::vector<std::string> nvccArguments(const std::string& nvcc, const CompileRequest& request,
                                       const std::string& outputPath) {
  std::vector<std::string> arguments{nvcc, "-ptx", "-lineinfo", "-arch=" + request.arch};
  arguments.insert(arguments.end(), request.flags.begin(), request.flags.end());
  arguments.push_back(request.source);
  arguments.push_back("-o");
  arguments.push_back(outputPath);
  return arguments;
}

CompileResult compileToPtx(const CompileRequest& request) {
  CompileResult result;
  std::string nvcc = findNvcc(request.nvcc);
  if (nvcc.empty()) {
    result.error = request.nvcc.empty()
                       ? "cannot find the CUDA compiler: no nvcc on PATH or in /usr/local/cuda/bin (pass --nvcc PATH)"
                       : fmt::format("cannot find the CUDA compiler '{}' on PATH (pass --nvcc PATH)", request.nvcc);
    return result;
  }
  TemporaryFolder folder;
  if (folder.path().empty()) {
    result.error = fmt::format("cannot create a temporary folder: {}", std::strerror(errno));
    return result;
  }
  std::string outputPath = folder.path() + "/" + fs::path(request.source).stem().string() + ".ptx";
  std::vector<std::string> arguments = nvccArguments(nvcc, request, outputPath);
  if (request.echo) {
    std::string line;
    for (const auto& argument : arguments) line += (line.empty() ? "" : " ") + argument;
    line += "\n";
    ssize_t ignored = ::write(2, line.data(), line.size());  // one write: lines of parallel jobs stay whole
    (void)ignored;
  }
  Outcome outcome = run(arguments);
  if (outcome.execErrno) {
    result.error = fmt::format("cannot run the CUDA compiler '{}': {} (pass --nvcc PATH)", nvcc,
                               std::strerror(outcome.execErrno));
    return result;
  }
  if (!WIFEXITED(outcome.status) || WEXITSTATUS(outcome.status) != 0) {
    result.error = fmt::format("'{}' failed ({}):\n{}", nvcc, describeStatus(outcome.status),
                               trimTrailing(outcome.output));
    return result;
  }
  std::ifstream in(outputPath, std::ios::binary);
  if (!in) {
    result.error = fmt::format("'{}' produced no PTX:\n{}", nvcc, trimTrailing(outcome.output));
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  result.ptx = text.str();
  result.ok = true;
  return result;
}

}  // namespace fenceline::driver
