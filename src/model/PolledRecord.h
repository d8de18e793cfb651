// The record a wait polls its flag in (issue 34, NCCL's AlltoAll_LL).
//
// A queue descriptor holds counters that the ranks' copies of a kernel
// update and poll (a reservation, a posted count, a doorbell turn) beside
// configuration that the host set up before the launch (a ring's mask, its
// size). After a wait on a counter, a read of a configuration field of the
// same record is no data the counter publishes: no copy of the kernel
// writes it. The PTX shows that where the kernel reaches the record through
// one pointer and writes it only through that pointer, at other bytes.
#pragma once

#include "model/Protocol.h"

namespace fenceline::model {

// `read` goes through the pointer the wait `poll` reads its flag through (the
// same base and index terms: one record), the kernel writes that record
// through that pointer (its signals on it, at least), and no write of the
// kernel through a pointer of that base (the same record at another index
// included) may touch the read's bytes; no call is given the record. Every
// copy of the kernel reaches the record through this expression (on the
// peers it points to this rank's record), so no copy writes the field there:
// what the read returns was there before the launch. A write through an
// unrelated pointer that the analysis cannot tell apart from the record
// (`distinct-pointers`, `unknown-pointer`) stays what it is, undecided: it
// is no evidence that a peer wrote the field.
bool readsUnwrittenFieldOfPolledRecord(const ProtocolModel& ctx, InstId read, InstId poll);

}  // namespace fenceline::model
