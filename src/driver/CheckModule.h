// Checking one module: each function with a body is parsed (with the bodies
// it calls, ptx/HeldBodies.h), modelled, checked and dropped in turn, so
// that peak memory is that of the module's headers and its largest function
// (syntax tree and model), not of all of them at once (a 100 MB file of
// 10,000 kernels). A function over a limit (model/Limits.h: instructions,
// time, memory) or whose check failed (an internal error) is reported as an
// error naming it and why, its findings are dropped, and the others are still
// checked. A stop request (SIGINT, SIGTERM) ends the module at the function
// being checked. The CLI and the
// fuzz target (fuzz/) both come through here.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "checks/CheckTable.h"
#include "model/Limits.h"
#include "ptx/Parser.h"
#include "report/Diagnostic.h"
#include "report/Stats.h"

namespace fenceline::driver {

struct ModuleCheck {
  std::vector<report::Diagnostic> diagnostics;
  std::vector<std::string> limitErrors;  // "file.ptx:12:1: error: function 'k' not checked: ..."
  std::vector<std::string> notes;        // "file.ptx:12:1: note: kernel 'k' checked with 126 calls ... not inlined ..."
  std::vector<report::RunNotification> notifications;  // the same, for JSON and SARIF
  size_t functions = 0;                  // modelled (and checked)
  size_t instructions = 0;               // in their models, after inlining
  bool interrupted = false;              // a stop request (a signal) ended it before its last function
};

// Throws ptx::ParseError when a body is malformed (the file's first error).
// `only`, when not null, names the functions to check (the others are
// skipped: a binary's older PTX targets of a kernel checked in a newer one).
// `textDone`, when set, is called whenever the parser is done with the text
// for now: once a function's bodies are parsed (before its model is built)
// and once it is checked and its bodies released (the driver gives back the
// pages of a mapped image, so that they are not resident at the model's peak).
// `onFound`, when set, is given each function's findings before they join
// `diagnostics` (the driver places them and applies its policy there, so that
// what the report will not show is not kept for the whole module).
ModuleCheck checkModule(ptx::ModuleReader& reader, const std::vector<const checks::CheckInfo*>& selected,
                        const model::Limits& limits, const std::set<std::string>* only = nullptr,
                        const std::function<void()>& textDone = {},
                        const std::function<void(std::vector<report::Diagnostic>&)>& onFound = {});

}  // namespace fenceline::driver
