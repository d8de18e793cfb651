// The one block that runs an instruction, where its guards name it (issue 34,
// shape P4). cuDNN's batch norm updates the running mean and variance by a
// read, a blend and a write in block 0 alone: `if (((threadIdx.x >> 4) |
// blockIdx.x) == 0) mean[c] = (1 - f) * mean[c] + f * m;`. The write and the
// read are both confined to block 0, so no other block of the grid ever
// writes what that read reads: the pair is the block's own, ordered (in one
// thread) by program order, and never a partner block's data behind a flag.
//
// The guards of an instruction are those of model/OwnWords.h (guardsOf: its
// own predicate and the branch edges every path to it takes, not a loop's
// exit). A guard pins %ctaid.d to c where it holds only if %ctaid.d == c: a
// `setp.eq`/`setp.ne` of the block index (through mov and integer cvt) with
// a constant, or of an `or` of values with 0 (each of them is 0: the block
// index among them is pinned), through and/or/not of predicates (one side of
// an `and` that holds, both sides of an `or` that does not). The block is
// pinned when every dimension in which the function tells blocks apart
// (reads %ctaid.d, %nctaid.d or a cluster register of d; %cluster_ctarank
// counts for all three) is pinned and one at least: a dimension the function
// never reads is one block wide, as MemoryAnalysis::blockSlices takes it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "model/Program.h"

namespace fenceline::model {

// Bit d (0 for x) set when the function tells blocks apart in dimension d:
// it reads %ctaid.d, %nctaid.d or a cluster register of d (%cluster_ctarank:
// all three).
int blockDimensionsRead(const FunctionModel& fn);

// The block position (%ctaid.x, y, z; 0 where the function never reads a
// dimension) that every thread that runs `inst` has, where its guards pin it
// in every dimension of `dimensionsRead` (blockDimensionsRead) and one at
// least; nothing otherwise. UniformModes::pinnedBlock keeps the answers.
std::optional<std::array<int64_t, 3>> pinnedBlock(const FunctionModel& fn, InstId inst, int dimensionsRead);

}  // namespace fenceline::model
