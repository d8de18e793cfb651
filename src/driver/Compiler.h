// Running nvcc to turn a .cu input into PTX. The compiler runs directly
// (fork + exec of an argument vector, never a shell), writes into a private
// folder made with mkdtemp that is removed afterwards, and a missing or failing
// compiler comes back as an error carrying the compiler's own message.
#pragma once

#include <string>
#include <vector>

namespace fenceline::driver {

struct CompileRequest {
  std::string nvcc;                 // as given by --nvcc, or "" to search
  std::string source;               // the .cu file
  std::string arch;                 // sm_90a, compute_80, ...
  std::vector<std::string> flags;   // from compile_commands.json, then --nvcc-flag
  bool echo = false;                // print the command line to stderr first (--verbose)
};

struct CompileResult {
  bool ok = false;
  std::string ptx;     // the PTX text when ok
  std::string error;   // what went wrong, with the compiler's output, when not ok
};

// The nvcc to run: `requested` when it names a path (or a program found on
// PATH); with no request, nvcc on PATH, then /usr/local/cuda/bin/nvcc.
// Returns "" when nothing is found.
std::string findNvcc(const std::string& requested);

// The full argument vector (argv[0] = nvcc) that compiles request into outputPath.
std::vector<std::string> nvccArguments(const std::string& nvcc, const CompileRequest& request,
                                       const std::string& outputPath);

CompileResult compileToPtx(const CompileRequest& request);

}  // namespace fenceline::driver
