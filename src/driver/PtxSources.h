// Getting the PTX of one input, whatever its kind: a .ptx file or a Triton
// kernel is read; a .cu file is compiled by nvcc; a binary gives the PTX
// embedded in it (one unit per image) and the names of its SASS-only
// kernels. Each unit says how to name the input in messages when it is not
// the source file the diagnostics point at.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "driver/Inputs.h"
#include "driver/Options.h"
#include "report/Stats.h"

namespace fenceline::driver {

struct PtxUnit {
  std::string text;
  std::string path;   // names the PTX in messages (a generated one is never written)
  std::string label;  // "PTX file k.ptx", "Triton kernel 'add' (cache/.../add.ptx)", "" for a .cu
  // A binary's image: only these functions are checked (each kernel in the
  // newest PTX target that defines it, unless --all-targets).
  bool filtered = false;
  std::set<std::string> only;
  // A binary's image is read from here when its turn comes (text is empty
  // until then), and `keep` holds the folder it lies in.
  std::string file;
  std::shared_ptr<void> keep;
};

struct PtxOfInput {
  std::vector<PtxUnit> units;
  std::vector<std::string> sourceFiles;  // the .cu input, for --verify
  std::string error;                     // an input error, printed as is
  std::string notes;                     // SASS-only kernels, printed to stderr
  std::vector<report::RunNotification> notifications;  // the notes, for JSON and SARIF
  // An error about the part of the input that could not be read (a binary
  // cuobjdump read only partway), reported after the units that were read are
  // checked: "PATH: error: ...\n".
  std::string incomplete;
};

// The architecture for `nvcc -ptx`: --arch when given, else the newest one
// the build's compile command (or the flags file) names, else the default.
std::string archFor(const Input& input, const CheckOptions& options);

PtxOfInput ptxOf(const Input& input, const CheckOptions& options, const std::string& nvcc);

}  // namespace fenceline::driver
