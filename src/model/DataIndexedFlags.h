// A flag whose word is chosen by data (session 27, cuDSS's solve_btf_lu row
// counters). A triangular solve keeps one counter per row: a row's solver
// waits for its counter to reach zero, and each row it depends on decrements
// it. The words polled and decremented are `counters + row`, the rows read
// from the matrix's structure. Whether the thread that decrements a row's
// counter runs in the waiting thread's block is then a property of the
// matrix (how its rows fall to blocks), not of the PTX. The scope such a flag
// needs (.gpu for another block) rests on that: with every access of the
// protocol indexed so, and none naming the block index, the partner block is
// not decided (ProtocolModel::requiredScopeEvidence: `data-indexed-flag`). A
// word every block shares (one address for the grid), a slot indexed by the
// block (its own, or a chained block's) and a pointer read from memory keep
// their rules.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// `access` (a poll or a signal) and each of `partners` (the other side's
// accesses of the word; none: false) reach a word of a kernel parameter's
// buffer (`rootOf` names the object an access points into) at an index
// computed from a value read from global memory, with no block index, no
// shared or local value and no atomic's result among its sources; and some
// of these accesses may run on more than one thread of the block (a protocol
// run by one thread per block on both sides keeps the presumption).
bool dataIndexedProtocol(const FunctionModel& fn, InstId access, const std::vector<InstId>& partners,
                         const std::function<const std::string&(InstId)>& rootOf);

}  // namespace fenceline::model
