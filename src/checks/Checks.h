// The check functions, one per file in src/checks/. CheckTable.cpp lists them.
#pragma once

#include <vector>

#include "model/Program.h"
#include "report/Diagnostic.h"

namespace fenceline::checks {

using Findings = std::vector<report::Diagnostic>;

void checkProxyWar(const model::FunctionModel&, Findings&);          // ProxyWar.cpp
void checkProxyRaw(const model::FunctionModel&, Findings&);          // ProxyRaw.cpp
void checkAcquireMissing(const model::FunctionModel&, Findings&);    // AcquireMissing.cpp
void checkReleaseMissing(const model::FunctionModel&, Findings&);    // ReleaseMissing.cpp
// release-missing's cluster-barrier form, called by checkReleaseMissing.
void checkClusterBarrierRelease(const model::FunctionModel&, Findings&);  // ClusterBarrierRelease.cpp
void checkScopeTooNarrow(const model::FunctionModel&, Findings&);    // ScopeTooNarrow.cpp
void checkBarrierReuse(const model::FunctionModel&, Findings&);      // BarrierReuse.cpp
void checkBarrierInitRace(const model::FunctionModel&, Findings&);   // BarrierInitRace.cpp
void checkMbarrierInitFence(const model::FunctionModel&, Findings&);  // MbarrierInitFence.cpp
void checkElectedArrive(const model::FunctionModel&, Findings&);      // ElectedArrive.cpp
void checkTcgen05Wait(const model::FunctionModel&, Findings&);        // Tcgen05Wait.cpp
void checkTcgen05Fence(const model::FunctionModel&, Findings&);       // Tcgen05Wait.cpp
void checkTmemDeallocRace(const model::FunctionModel&, Findings&);    // Tcgen05Wait.cpp
void checkProxyGlobal(const model::FunctionModel&, Findings&);        // ProxyGlobal.cpp
void checkBulkStoreReuse(const model::FunctionModel&, Findings&);     // BulkStoreReuse.cpp
void checkCounterReset(const model::FunctionModel&, Findings&);       // CounterReset.cpp
void checkSlotReuse(const model::FunctionModel&, Findings&);         // SlotReuse.cpp
void checkTensormapWar(const model::FunctionModel&, Findings&);      // TensormapWar.cpp
void checkClusterExit(const model::FunctionModel&, Findings&);       // ClusterExit.cpp
void checkSharedRace(const model::FunctionModel&, Findings&);        // SharedRace.cpp

}  // namespace fenceline::checks
