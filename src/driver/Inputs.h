// Turning the command line's INPUT... (and -p's compilation database) into
// the list of files to check: .ptx files are read as they are, .cu files are
// compiled to PTX, directories are searched recursively for both (hidden
// folders skipped, names sorted so the order is stable).
#pragma once

#include <string>
#include <vector>

#include "driver/Options.h"

namespace fenceline::driver {

struct Input {
  enum class Kind { Ptx, Cuda };
  std::string path;                 // as given, or as found in a directory / database
  Kind kind = Kind::Ptx;
  std::vector<std::string> flags;   // device-codegen flags from compile_commands.json
  std::vector<std::string> archs;   // architectures named there
};

// Collects the inputs. On a usage or input error (unknown extension, missing
// file, unreadable database, nothing to check) returns false and sets error.
bool collectInputs(const CheckOptions& options, std::vector<Input>& inputs, std::string& error);

}  // namespace fenceline::driver
