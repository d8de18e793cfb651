// A grid barrier's own index word (issue 34, MSCCL++'s shape GS); see
// model/BarrierStateWords.cpp. Asked for the data link of acquire-missing's
// and release-missing's evidence (checks/ProtocolReport.cpp).
#pragma once

#include "model/Memory.h"
#include "model/Program.h"

namespace fenceline::model {

class ProtocolModel;

// A scalar global store whose value is computed, through register arithmetic
// on integer constants, only from the same thread's loads of the same word,
// with a spin on an acquiring poll between the loads and the store (a grid
// barrier of rotating counters storing its next index after the wait:
// `i = (s.index + 1) % 3; arrive; wait; s.index = i`). Every block that
// passes the barrier stores what every other one does and reads back its own
// store: as data it hands nothing, provided every block that stores the word
// passes that barrier, which rests on the count the spin waits for (a value
// of the launch). A data link whose write is one is undecided
// (barrierStateEvidence).
bool isBarrierStateStore(const ProtocolModel& protocol, InstId write);
AliasEvidence barrierStateEvidence();

}  // namespace fenceline::model
