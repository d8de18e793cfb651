// Grid-barrier steps for barrier-reuse and barrier-init-race, written as macros
// on purpose: every instruction of one use then carries the source line of
// that use, which is where `fenceline check` reports (and where `// expect:`
// sits). Each macro is run by one thread per block; `timedOut` is set when the
// %globaltimer deadline passes instead of hanging.
//
// FIXED_THRESHOLD_BARRIER: arrive with a release add, then wait (acquire)
// until the counter reaches `target`. Correct once per zeroed counter.
// PHASE_BIT_BARRIER: block 0 adds 0x80000000 - (blocks - 1), the others 1; the
// top bit flips when the last block arrives, and each waiter compares with its
// own arrival value, so the same counter serves any number of uses.
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

#define PHASE_BIT_BARRIER(counter, deadline, timedOut)                                                    \
  do {                                                                                                   \
    const unsigned add_ = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;                          \
    unsigned old_, seen_;                                                                                \
    asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old_) : "l"(counter), "r"(add_)  \
                 : "memory");                                                                            \
    do                                                                                                   \
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen_) : "l"(counter) : "memory");       \
    while (((old_ ^ seen_) & 0x80000000u) == 0 && !((timedOut) = ::lab::pastDeadline(deadline)));        \
  } while (0)
