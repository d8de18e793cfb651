// Function and file names as a reader expects them in a diagnostic.
//
// What the PTX records is what the compiler saw, not what the user wrote:
// nvcc gives every internal-linkage entity (a `static` function, anything in
// an anonymous namespace) a namespace of its own, `_INTERNAL_<hash>_<n>_<file>_<hash>`,
// so cooperative groups' `details::cta::sync()` demangles as
// `_INTERNAL_cf2a3d62_15_toolkit_sync_cu_68fadb86::cooperative_groups::__v1::details::cta::sync()`,
// and its anonymous namespaces as `_GLOBAL__N__<hash>_<n>_<file>_<hash>`; and
// nvcc names the toolkit's headers through its own bin folder
// (`/usr/local/cuda/bin/../targets/x86_64-linux/include/cooperative_groups.h`).
// The renderers (text, JSON, SARIF) print names through these functions;
// matching (suppressions, --verify, deduplication) keeps the recorded names.
#pragma once

#include <string>
#include <string_view>

namespace fenceline::report {

// `_INTERNAL_...::` qualifiers dropped, `_GLOBAL__N__...` shown as
// `(anonymous namespace)`; any other name unchanged.
std::string displayFunction(std::string_view name);

// An absolute path with `.` and `..` components resolved lexically (no file
// system access: a path that no longer exists still reads the same); a
// relative path unchanged.
std::string displayFile(std::string_view path);

}  // namespace fenceline::report
