// A register that a dominating branch shows to be non-zero (issue 34, NCCL's
// AlltoAll_LL: a block count `n = field >> 48`, where the kernel leaves at
// its entry when `n == 0`; its waiters leave on `arrived == n`, so a reset of
// the count to 0 satisfies none of them).
//
// The value analysis gives such a register no range (or one that includes 0:
// [0, 65535] for a 16-bit field). The edges every path to an instruction
// takes do: walking up the dominator tree, an edge into a block entered only
// through it whose condition implies `x != 0` (`setp.eq x, 0` false, or
// `setp.ne x, 0` true, through `not`, `or` false and `and` true) holds for
// the value `x` has there. It is the register's value at the instruction
// when the register has one definition there, which the guard also reads and
// which no path from the guard executes again. The test may be of the
// register's source through a conversion that keeps 0 and only 0 at 0 (a
// widening `cvt`, or a narrowing one of a value the analysis bounds below
// 2^32).
#pragma once

#include "model/Program.h"

namespace fenceline::model {

// Every path to `at` passes a branch edge on which `reg` (its value at `at`)
// is non-zero.
bool nonZeroByGuard(const FunctionModel& fn, ValueReg reg, InstId at);

}  // namespace fenceline::model
