// Running the CUDA toolkit's programs (nvcc, cuobjdump) safely: fork + exec
// of an argument vector, never a shell; stdin from /dev/null, stdout and
// stderr captured; output files in a private folder removed afterwards.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

namespace fenceline::driver {

bool isExecutable(const std::filesystem::path& path);

// `program` found in a folder of $PATH, or "".
std::string searchPath(const std::string& program);

// A private folder (mkdtemp under $TMPDIR or /tmp), removed with its contents
// when this goes out of scope. path() is "" when it could not be made.
class TemporaryFolder {
 public:
  TemporaryFolder();
  ~TemporaryFolder();
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

// Runs arguments[0] (a path) with arguments[1..], in `folder` when not empty.
Outcome run(const std::vector<std::string>& arguments, const std::string& folder = "");
// The same, the output handed to `onOutput` in pieces as it comes instead of
// kept whole (cuobjdump's symbol listing of a library is tens of MB):
// Outcome::output then holds only its last 64 KiB or more, for messages.
Outcome run(const std::vector<std::string>& arguments, const std::string& folder,
            const std::function<void(std::string_view)>& onOutput);

bool succeeded(const Outcome& outcome);

// "exit status 1", "killed by signal 9".
std::string describeStatus(int status);

}  // namespace fenceline::driver
