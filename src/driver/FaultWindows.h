// Keeps what one touch of a mapped file makes resident near what is read.
//
// Why: a file mapping's page fault maps the neighbouring pages that are in
// the page cache as well ("fault-around"), and Linux 6.18 maps the whole of
// a large folio that lies inside the mapping (ext4 and others cache a
// freshly written file in folios of up to 2 MiB). A binary's PTX image is
// such a file (cuobjdump has just written it), so parsing a body of a few KB
// made 2 to 4 MiB of the image resident, every function: on CuPy's thrust
// library, 4 of its 24 MB peak (docs/performance.md, session 25). Fault-around
// never maps past the mapping's region (its VMA), so the mapping is cut into
// regions of a few pages: every other window gets the advice MADV_DONTDUMP,
// which only leaves it out of a core dump (a read-only file mapping, dumped
// by no default filter) but makes the kernel keep the windows apart.
#pragma once

#include <cstddef>

namespace fenceline::driver {

// Splits the mapping [start, start + bytes) into regions of kFaultWindow
// bytes or more (at most kMaxFaultWindows of them). Errors are ignored: an
// unsplit mapping only holds more pages.
void limitFaultWindows(void* start, size_t bytes);

inline constexpr size_t kFaultWindow = size_t(64) << 10;  // the kernel's default fault-around
inline constexpr size_t kMaxFaultWindows = 8192;            // well under vm.max_map_count

}  // namespace fenceline::driver
