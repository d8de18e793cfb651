// A path that only a value from outside the kernel takes.
//
// counter-reset's shared form reports a word that one thread rewrites while
// other threads may not have read it yet: a path from their read to the
// rewrite that passes no barrier. Some such paths are taken only for values
// of the word that the kernel itself never produces (cuTENSOR's block-sparse
// contraction, issue 34's K: thread 0 stores a victim's published tile into
// the shared word, every thread reads it after a barrier, and the path back to
// thread 0's next store without a barrier is the one where the tile is not
// below the tile count; the kernel publishes a tile only under `tile <
// count`, and a slot holds a larger value only if the host seeded it so).
// Whether the path is ever taken then rests on memory written outside the
// kernel: the hazard's hand-off is not decided by the PTX.
//
// The test, in general form: every path from the read to the rewrite that
// passes no barrier leaves the read through one edge of a branch that
// compares the value read with a bound (cutting that edge leaves no such
// path); every store of the word is made by one thread, and the stores that
// thread may have made last before the read (a backward walk along the
// thread's own branches) store either a constant that a test of the value on
// the way turns away from the path (`tile == -1` exits), or a value loaded
// from global memory whose every in-kernel writer (decidedly the same
// location) stores only under the opposite comparison with the same bound.
// A writer whose location is not decidedly the same (two pointers read from
// the parameters) leaves the answer undecided as well, and is not asked.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

struct OutsideValuePath {
  InstId branch = -1;  // the branch whose edge every barrier-free path takes
  std::string detail;  // the comparison, and why no in-kernel writer satisfies it
};

// `read`: a load of the shared word; `rewrite`: a store of it some path from
// the read reaches without passing `barrier`; `wordStores`: every store of
// the word in the function. The branch edge and why the path needs a value
// from outside the kernel; nothing when any step is not shown.
std::optional<OutsideValuePath> pathOnlyForOutsideValues(const FunctionModel& fn, InstId read, InstId rewrite,
                                                         const std::vector<InstId>& wordStores,
                                                         const std::function<bool(InstId)>& barrier);

}  // namespace fenceline::model
