// The hand-written grid barrier of the unfixed barrier-reuse and barrier-init-race, a macro
// on purpose: every instruction of one use then carries the source line of
// that use, which is where `fenceline check` reports (and where `// expect:`
// sits). The macro is run by one thread per block; `timedOut` is set when the
// %globaltimer deadline passes instead of hanging.
//
// FIXED_THRESHOLD_BARRIER: arrive with a release add, then wait (acquire)
// until the counter reaches `target`. Correct once per zeroed counter. The
// fixed variants use the library's fenceline::GridBarrier
// (include/fenceline/grid_barrier.cuh) instead.
#pragma once

#include "../DeviceCommon.cuh"

#define FIXED_THRESHOLD_BARRIER(counter, target, deadline, timedOut)                                     \
  do {                                                                                                   \
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");                   \
    unsigned seen_;                                                                                      \
    do                                                                                                   \
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen_) : "l"(counter) : "memory");       \
    while (seen_ < (target) && !((timedOut) = ::lab::pastDeadline(deadline)));                           \
  } while (0)
