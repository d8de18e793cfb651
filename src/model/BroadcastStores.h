// Which stores a block's broadcast load reads: `if (tid == 0) slot = v;
// __syncthreads(); x = slot;`, the way one thread hands a value (a work item,
// a ticket) to its block through a shared word.
//
// Asked by the ticket search (ProtocolModel::findTickets), which follows a
// value through a shared load back to the stores that may have written the
// word. Two values handed through one word (cuDSS's `factorize_dtmn_ker`: the
// work item taken at the top of a persistent loop and the item's arrival
// ticket taken at its bottom, both stored by thread 0 to one word; docs/
// real-code.md, "Shape L in cuOpt's form; A' in cuDSS") must not be taken for
// one: every thread reads, after the barrier, what the storing thread stored
// last, and on that thread's path the store of this round lies between any
// earlier store and the load.
//
// The rule: a store S' of exactly the load's word (the same word for every
// thread), made by one thread of the block (an election), under a branch at a
// block D that dominates the load and is run by more than one thread, where
// the elected edge of D always leads to S' (S' post-dominates it) and the
// load lies past the elected region and is reached from S' without passing D
// again, screens every other store S from which each path to the load passes
// D's branch: S was overwritten by S' in the elected thread's program order
// before the others read the word.
#pragma once

#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// `mayRead`: the stores that may write the word `load` reads (sorted). Returns
// those not screened by a broadcast store of this round (the same list when no
// store of `mayRead` is one).
std::vector<InstId> storesReadByBroadcast(const FunctionModel& fn, InstId load, const std::vector<InstId>& mayRead);

}  // namespace fenceline::model
