// Signals a wait never leaves on (issue 34, MSCCL++'s shape FW); see
// model/ExitValueSignals.cpp. Asked by the protocol model (Protocol.cpp) when
// it gathers a poll's in-kernel signals and a signal's polls.
#pragma once

#include <cstdint>
#include <optional>

#include "model/Program.h"

namespace fenceline::model {

class ProtocolModel;

// The constant `write` puts into the bytes `poll` reads: ProtocolModel's
// storedConstant for a store of the poll's size, or the one element of a
// vector store that the poll's bytes may fall in (a trigger `{1, work}` whose
// first word is polled), or nullopt.
std::optional<int64_t> storedConstantAt(const ProtocolModel& protocol, InstId write, InstId poll);

// The spin of `poll` never leaves on what `signal` stores into the polled
// bytes (a constant on which every exit's test fails, SpinLoops.h
// exitOnValue): the signal releases no waiter of that poll. Not for a signal
// inside the poll's own loop.
bool leavesNeverOn(const ProtocolModel& protocol, InstId signal, InstId poll);

}  // namespace fenceline::model
