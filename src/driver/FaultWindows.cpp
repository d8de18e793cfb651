// See FaultWindows.h.
#include "driver/FaultWindows.h"

#include <sys/mman.h>
#include <unistd.h>

namespace fenceline::driver {

void limitFaultWindows(void* start, size_t bytes) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t window = kFaultWindow;
  if (bytes / window > kMaxFaultWindows) window = (bytes / kMaxFaultWindows + page - 1) / page * page;
  char* base = static_cast<char*>(start);
  // Windows 1, 3, 5, ... differ from their neighbours in one flag.
  for (size_t offset = window; offset + window < bytes; offset += 2 * window)
    ::madvise(base + offset, window, MADV_DONTDUMP);
}

}  // namespace fenceline::driver
