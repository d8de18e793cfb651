// Running programs without a shell (see Process.h).
#include "driver/Process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

namespace fenceline::driver {

namespace fs = std::filesystem;

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

TemporaryFolder::TemporaryFolder() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/fenceline-XXXXXX";
  if (::mkdtemp(pattern.data())) path_ = pattern;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code error;
  if (!path_.empty()) fs::remove_all(path_, error);
}

// fork + execv (after chdir to folder, when given) with stdout/stderr captured through a pipe and stdin from
// /dev/null. A second close-on-exec pipe carries exec's errno back when the
// program cannot be started. Everything the child needs is prepared before
// fork, so the child only calls async-signal-safe functions.
Outcome run(const std::vector<std::string>& arguments, const std::string& folder) {
  return run(arguments, folder, {});
}

Outcome run(const std::vector<std::string>& arguments, const std::string& folder,
            const std::function<void(std::string_view)>& onOutput) {
  constexpr size_t kTail = 64 << 10;
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
    if (!folder.empty() && ::chdir(folder.c_str()) != 0) {
      int error = errno;
      ssize_t ignored = ::write(failure[1], &error, sizeof error);
      (void)ignored;
      ::_exit(127);
    }
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
    if (count > 0) {
      outcome.output.append(buffer, static_cast<size_t>(count));
      if (onOutput) {
        onOutput(std::string_view(buffer, static_cast<size_t>(count)));
        if (outcome.output.size() > 2 * kTail) outcome.output.erase(0, outcome.output.size() - kTail);
      }
    } else if (count == 0 || errno != EINTR) {
      break;
    }
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

bool succeeded(const Outcome& outcome) {
  return outcome.execErrno == 0 && WIFEXITED(outcome.status) && WEXITSTATUS(outcome.status) == 0;
}

}  // namespace fenceline::driver
