// Which source files are the user's and which are library code, for the
// primary-location rule (report/Frames.h): a diagnostic is reported at the
// user's line, with the library frames below it as notes.
//
// Library code: the CUDA toolkit's headers, the system's (/usr/include,
// /usr/lib), Python packages (site-packages, dist-packages: Triton's own
// tl.* helpers, pip-installed CUTLASS), the folders named by -isystem (from
// compile_commands.json or --nvcc-flag) or --system-header-prefix, and every
// file outside the input's own tree. The input's tree is the project a file
// or a directory given on the command line lies in (the nearest folder above
// it holding .git), or else the directory given, or the file's folder; the
// working directory counts as the user's tree too.
//
// "Outside the tree" is weaker evidence than a system folder: when no frame of
// a chain is the user's under the full rule (a Triton kernel checked from a
// cache folder, its .py elsewhere), the chain is read again with only the
// system folders as library code.
#pragma once

#include <string>
#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::driver {

class UserCode {
 public:
  // systemPrefixes: toolkit root, -isystem folders, --system-header-prefix;
  // userRoots: the input's tree and the working directory.
  UserCode(std::vector<std::string> systemPrefixes, std::vector<std::string> userRoots);

  bool isSystem(const std::string& file) const;
  bool isLibrary(const std::string& file) const;  // system, or outside every user root

  // Sets location.primary by the rule above.
  void choosePrimary(report::Location& location) const;

 private:
  std::vector<std::string> systemPrefixes_;
  std::vector<std::string> userRoots_;
};

// The input's own tree for a file: the nearest folder above it holding .git,
// else its folder (absolute, normalized).
std::string projectRootOf(const std::string& file);

// The folders named by -isystem flags ("-isystem DIR", "-isystemDIR").
std::vector<std::string> isystemDirs(const std::vector<std::string>& flags);

}  // namespace fenceline::driver
