// The check table. Adding a check: write src/checks/<Name>.cpp, declare it in
// Checks.h, add one row here, and write docs/checks/<id>.md.
#include "checks/CheckTable.h"

#include "checks/Checks.h"

namespace fenceline::checks {

namespace {
using report::Severity;
constexpr CheckInfo kChecks[] = {
    {"proxy-war", Severity::Warning,
     "generic shared-memory access reaches an async-proxy (TMA/bulk) overwrite without fence.proxy.async",
     "docs/checks/proxy-war.md", checkProxyWar},
    {"proxy-raw", Severity::Warning,
     "generic shared-memory write is read by the async proxy (TMA store, wgmma) without fence.proxy.async",
     "docs/checks/proxy-raw.md", checkProxyRaw},
    {"acquire-missing", Severity::Warning,
     "spin loop on a flag exits without acquire ordering before the guarded data is read",
     "docs/checks/acquire-missing.md", checkAcquireMissing},
    {"release-missing", Severity::Warning,
     "signal (flag store, arrival atomic) follows data writes without release ordering",
     "docs/checks/release-missing.md", checkReleaseMissing},
    {"scope-too-narrow", Severity::Warning,
     "ordering is present but its scope does not cover the partner thread",
     "docs/checks/scope-too-narrow.md", checkScopeTooNarrow},
    {"barrier-reuse", Severity::Warning,
     "fixed-threshold counter barrier is used again without a reset or phase flip",
     "docs/checks/barrier-reuse.md", checkBarrierReuse},
    {"barrier-init-race", Severity::Warning,
     "grid-scope counter is initialized inside the kernel whose other blocks update it",
     "docs/checks/barrier-init-race.md", checkBarrierInitRace},
    {"mbarrier-init-fence", Severity::Warning,
     "mbarrier used by the async proxy or other CTAs without fence.mbarrier_init after its init",
     "docs/checks/mbarrier-init-fence.md", checkMbarrierInitFence},
    {"elected-arrive", Severity::Warning,
     "one elected thread releases data other threads wrote, with no warp or block synchronization before",
     "docs/checks/elected-arrive.md", checkElectedArrive},
    {"tcgen05-wait", Severity::Warning,
     "tcgen05.ld/st not waited for before a signal that hands the tensor memory over or frees it",
     "docs/checks/tcgen05-wait.md", checkTcgen05Wait},
    {"tcgen05-fence", Severity::Warning,
     "tcgen05 work handed between threads through a synchronization without tcgen05.fence::before/after_thread_sync",
     "docs/checks/tcgen05-fence.md", checkTcgen05Fence},
    {"tmem-dealloc-race", Severity::Warning,
     "tcgen05.dealloc not ordered after other threads' tensor-memory accesses by a thread synchronization",
     "docs/checks/tmem-dealloc-race.md", checkTmemDeallocRace},
    {"proxy-global", Severity::Warning,
     "global memory crosses proxies (generic writes -> TMA read, TMA writes -> generic read) through a hand-off",
     "docs/checks/proxy-global.md", checkProxyGlobal},
    {"bulk-store-reuse", Severity::Warning,
     "shared memory a bulk/TMA store still reads is overwritten (or the CTA exits) before wait_group.read",
     "docs/checks/bulk-store-reuse.md", checkBulkStoreReuse},
    {"counter-reset", Severity::Warning,
     "a counter or phase word is reset or rewritten while other threads may still need the value it overwrites",
     "docs/checks/counter-reset.md", checkCounterReset},
    {"slot-reuse", Severity::Warning,
     "shared-memory record handed over through an mbarrier is rewritten with no wait for its readers (no \"empty\" barrier)",
     "docs/checks/slot-reuse.md", checkSlotReuse},
    {"tensormap-war", Severity::Warning,
     "tensor map in global memory is rewritten while bulk tensor copies issued through it may still read it",
     "docs/checks/tensormap-war.md", checkTensormapWar},
    {"cluster-exit", Severity::Warning,
     "a CTA of a cluster may exit while another CTA still arrives on its barriers (distributed shared memory)",
     "docs/checks/cluster-exit.md", checkClusterExit},
    {"shared-race", Severity::Warning,
     "shared-memory write and another thread's read of the same bytes with no barrier between (__syncwarp / __syncthreads missing)",
     "docs/checks/shared-race.md", checkSharedRace},
};
}  // namespace

std::span<const CheckInfo> allChecks() { return kChecks; }

const CheckInfo* findCheck(std::string_view id) {
  for (const auto& check : kChecks)
    if (check.id == id) return &check;
  return nullptr;
}

}  // namespace fenceline::checks
