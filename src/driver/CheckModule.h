// Checking one module: each function with a body is parsed (with the bodies
// it calls, ptx/HeldBodies.h), modelled, checked and dropped in turn, so
// that peak memory is that of the module's headers and its largest function
// (syntax tree and model), not of all of them at once (a 100 MB file of
// 10,000 kernels). A function over a limit (model/Limits.h) is reported as an error
// naming it and the limit, and the others are still checked. The CLI and the
// fuzz target (fuzz/) both come through here.
#pragma once

#include <string>
#include <vector>

#include "checks/CheckTable.h"
#include "model/Limits.h"
#include "ptx/Parser.h"
#include "report/Diagnostic.h"

namespace fenceline::driver {

struct ModuleCheck {
  std::vector<report::Diagnostic> diagnostics;
  std::vector<std::string> limitErrors;  // "file.ptx:12:1: error: function 'k' not checked: ..."
  size_t functions = 0;                  // modelled (and checked)
  size_t instructions = 0;               // in their models, after inlining
};

// Throws ptx::ParseError when a body is malformed (the file's first error).
ModuleCheck checkModule(ptx::ModuleReader& reader, const std::vector<const checks::CheckInfo*>& selected,
                        const model::Limits& limits);

}  // namespace fenceline::driver
