// Reads on the first turn of a turn word (issue 34, cuDNN's shape P7, session
// 28); see model/FirstTurnWaits.cpp. Asked by the protocol model
// (Protocol.cpp computeGuardedRead): such a read follows no signal of the
// wait, and every partner's write comes after it.
#pragma once

#include <vector>

#include "model/Program.h"
#include "model/SpinLoops.h"

namespace fenceline::model {

// Per block of the function: 1 where the observation by `poll` reaches the
// block only on paths where the wait left on the value 0 of a turn word that
// every in-kernel store (`signals`) hands on as `turn + c`; 0 elsewhere. Empty
// when the wait is no such turn wait.
std::vector<char> firstTurnOnlyBlocks(const FunctionModel& fn, const SpinLoop& spin, InstId poll,
                                      const std::vector<InstId>& signals);

}  // namespace fenceline::model
