// Turning the command line's INPUT... (and -p's compilation database) into
// the list of files to check:
//   .ptx files are read as they are; a .ptx with a Triton metadata .json of
//     the same name beside it (the ~/.triton/cache layout) is a Triton kernel,
//     named by the metadata's Python name;
//   .cu files are compiled to PTX (flags from -p, --flags-file, --nvcc-flag);
//   .cubin, .fatbin, .o, .a and .so files have their embedded PTX checked
//     (driver/Binaries.h); only when named, never found in a directory, where
//     host objects would be errors;
//   directories are searched recursively for .ptx and .cu (hidden folders
//     skipped, names sorted so the order is stable).
#pragma once

#include <string>
#include <vector>

#include "driver/Options.h"

namespace fenceline::driver {

struct Input {
  enum class Kind { Ptx, Cuda, TritonKernel, Binary };
  std::string path;                 // as given, or as found in a directory / database
  Kind kind = Kind::Ptx;
  std::vector<std::string> flags;   // device-codegen flags from compile_commands.json or --flags-file
  std::vector<std::string> archs;   // architectures named there
  std::string root;                 // the input's own tree (driver/UserCode.h)
  std::string kernelName;           // TritonKernel: the Python name from the metadata
};

// Collects the inputs. On a usage or input error (unknown extension, missing
// file, unreadable database or flags file, nothing to check) returns false
// and sets error.
bool collectInputs(const CheckOptions& options, std::vector<Input>& inputs, std::string& error);

// The Python name of the Triton kernel whose PTX is `ptxPath`: the "name" of
// the metadata .json beside it, when that file is Triton's; else "".
std::string tritonKernelName(const std::string& ptxPath);

}  // namespace fenceline::driver
