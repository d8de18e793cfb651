// A diagnostic is data: what a check found, where, why, and how to fix it.
// Renderers (Text.cpp, Json.cpp, Sarif.cpp) turn these values into output.
#pragma once

#include <string>
#include <vector>

#include "model/Program.h"

namespace fenceline::report {

enum class Severity { Note, Warning, Error };

// A location with its full inline chain: frames[0] is the innermost (where the
// instruction is), the following frames are the sites it was inlined into.
// `primary` is the frame reported first: the user's line (see report/Frames.h);
// frames[0..primary) are library helpers, shown as notes.
struct Location {
  std::vector<model::SourceFrame> frames;
  size_t primary = 0;
  std::string ptxFile;   // the PTX the instruction came from
  uint32_t ptxLine = 0;  // its line there (used when frames is empty)
  uint32_t ptxColumn = 0;
  std::string ptxText;   // the text of that PTX line, filled for --show-ptx
};

struct Note {
  std::string message;
  Location location;
};

struct Diagnostic {
  std::string check;       // check id, e.g. "proxy-war"
  Severity severity = Severity::Warning;
  std::string message;
  std::string function;    // PTX function (kernel) name, demangled when possible
  Location location;
  std::vector<Note> notes;
  std::string fix;         // what to insert, where, executed by whom
  // Kernels (template instantiations) whose copies of this site were merged
  // into this one finding, this one's first; empty when there was one.
  std::vector<std::string> instantiations;
  std::string input;       // the file checked when it is not the source (PTX, Triton kernel, binary)
  std::string fingerprint; // stable identity across runs (report/Fingerprint.h); set before rendering
};

// Builds a Location for an instruction of a function model.
Location locationOf(const model::FunctionModel& fn, model::InstId inst);

std::string_view toString(Severity);

}  // namespace fenceline::report
