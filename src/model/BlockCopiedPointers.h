// Pointers read from a block's own copy of its slice (issue 34, MSCCL++'s
// shape FW); see model/BlockCopiedPointers.cpp. Asked by the protocol model's
// per-block slices of a data pair (ProtocolModel::dataSlices).
#pragma once

#include <string>

#include "model/Program.h"

namespace fenceline::model {

// Why the two accesses, through one pointer read from memory, may touch
// different bytes when made by threads of two different blocks: the pointer
// is read from a slot the block reads as its own (a slot that carries the
// block index, or the block's shared-memory copy of its own slice of a plan),
// and another block reads its own slot, whose pointer the PTX does not show
// to be this one. One sentence, or "" when the rule does not apply.
std::string blockCopiedPointers(const FunctionModel& fn, InstId a, int operandA, InstId b, int operandB);

// The access goes through a pointer read from such a slot (the reason, or
// ""): acquire-missing's presumption that a read through a peer pointer is of
// another rank's memory, written by that rank before its signal
// (`peer-memory`), does not hold for it: that rank reads its own slot.
std::string blockCopiedPointer(const FunctionModel& fn, InstId access);

}  // namespace fenceline::model
