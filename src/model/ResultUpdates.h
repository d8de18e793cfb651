// A read-modify-write that updates a result (issue 34, the held-out look's
// shape O: cuDF's group-by aggregations). The value it writes is computed from
// data the thread read: the min or max of an input element, a sum that a CAS
// retry loop computes from the word's old value, an exchange of a loaded
// value. Such a word ends holding whatever the data make it; no poller knows
// which value to wait for, so the write is no statement that the host or
// another device polls the word (a `.sys` scope on it asks for atomicity with
// other agents' updates, as for memory the host also writes). A flag or a
// count writes a value a poller can test: a constant, a kernel parameter, the
// launch shape, a block or thread index (`atomicExch_system(done, 1)`,
// `atomicAdd_system(finished, 1)`, `atomicMax_system(epoch, iteration)`).
//
// The written operand (a CAS's new value) is followed back through register
// computations: a load of global, generic, shared or local memory, or the
// value an atomic on the same word returned (a CAS retry's old value), is
// data. A kernel parameter (`ld.param`), `ld.const` and what an atomic on
// another word returned (a reservation's slot: a producer index that a
// doorbell record is raised to, `atomicMax_system(dbr, slot + 1)`) are not;
// a callee's parameter or a local slot bound to the one store that wrote it
// (Inst::boundStore) is what that store wrote.
#pragma once

#include "model/Program.h"

namespace fenceline::model {

bool isResultUpdate(const FunctionModel& fn, InstId rmw);

}  // namespace fenceline::model
