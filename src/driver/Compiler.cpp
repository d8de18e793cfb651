// nvcc invocation (see Compiler.h).
#include "driver/Compiler.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

bool isExecutable(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::string searchPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream list(path);
  for (std::string dir; std::getline(list, dir, ':');) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (isExecutable(candidate)) return candidate.string();
  }
  return {};
}

// A private folder for nvcc's output, removed when this goes out of scope.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/fenceline-XXXXXX";
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code error;
    if (!path_.empty()) fs::remove_all(path_, error);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Outcome {
  int execErrno = 0;   // exec failed in the child with this errno
  int status = 0;      // waitpid status
  std::string output;  // stdout and stderr, interleaved
};

// fork + execv with stdout/stderr captured through a pipe and stdin from
// /dev/null. A second close-on-exec pipe carries exec's errno back when the
// program cannot be started. Everything the child needs is prepared before
// fork, so the child only calls async-signal-safe functions.
Outcome run(const std::vector<std::string>& arguments) {
  Outcome outcome;
  std::vector<char*> argv;
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);

  int output[2], failure[2];
  if (::pipe2(output, O_CLOEXEC) != 0) return {errno, 0, {}};
  if (::pipe2(failure, O_CLOEXEC) != 0) {
    int saved = errno;
    ::close(output[0]);
    ::close(output[1]);
    return {saved, 0, {}};
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(output[1], 1);
    ::dup2(output[1], 2);
    ::execv(argv[0], argv.data());
    int error = errno;
    ssize_t ignored = ::write(failure[1], &error, sizeof error);
    (void)ignored;
    ::_exit(127);
  }
  int forkErrno = errno;
  ::close(output[1]);
  ::close(failure[1]);
  if (pid < 0) {
    ::close(output[0]);
    ::close(failure[0]);
    return {forkErrno, 0, {}};
  }
  char buffer[4096];
  for (;;) {
    ssize_t count = ::read(output[0], buffer, sizeof buffer);
    if (count > 0) outcome.output.append(buffer, static_cast<size_t>(count));
    else if (count == 0 || errno != EINTR) break;
  }
  ::close(output[0]);
  int error = 0;
  ssize_t got;
  do got = ::read(failure[0], &error, sizeof error);
  while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof error)) outcome.execErrno = error;
  ::close(failure[0]);
  while (::waitpid(pid, &outcome.status, 0) < 0 && errno == EINTR) {}
  return outcome;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "abnormal termination";
}

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
