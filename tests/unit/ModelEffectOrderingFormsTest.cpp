// The PTX ISA 9.x ordering forms the newer checks depend on: tcgen05 tensor
// memory accesses, waits and thread-sync fences; the unidirectional proxy
// fences (their .release / .acquire direction); fence.proxy.tensormap;
// griddepcontrol.wait; tensormap.cp_fenceproxy. Instructions are built as
// the parser produces them (opcode, dot-separated modifiers, operand shapes).
#include <gtest/gtest.h>

#include <sstream>

#include "model/MemoryEffect.h"

using namespace fenceline;
using namespace fenceline::model;

namespace {

// "tcgen05.ld.sync.aligned.32x32b.x1.b32" + shape: r = register, a = [addr], i = immediate.
ptx::Instruction make(std::string_view dotted, std::string_view shape) {
  ptx::Instruction inst;
  inst.setSpelling(dotted);
  int id = 0;
  for (char c : shape) {
    ptx::Operand o;
    if (c == 'a') {
      o.kind = ptx::Operand::Kind::Address;
      o.base.kind = ptx::Operand::Kind::Register;
      o.base.reg = id++;
    } else if (c == 'i') {
      o.kind = ptx::Operand::Kind::Integer;
      o.intValue = 1;
    } else {
      o.kind = ptx::Operand::Kind::Register;
      o.reg = id++;
    }
    inst.operands.push_back(o);
  }
  return inst;
}

MemoryEffect effect(std::string_view dotted, std::string_view shape) { return classify(make(dotted, shape)); }

}  // namespace

TEST(ModelEffectOrderingForms, Tcgen05LoadAndStoreAreTensorMemoryAccesses) {
  auto ld = effect("tcgen05.ld.sync.aligned.32x32b.x1.b32", "ra");
  EXPECT_EQ(ld.kind, EffectKind::Tcgen05Load);
  EXPECT_EQ(ld.address, 1);
  EXPECT_EQ(ld.space, Space::None);  // not shared, not global: proxy checks leave it alone
  auto st = effect("tcgen05.st.sync.aligned.32x32b.x1.b32", "ar");
  EXPECT_EQ(st.kind, EffectKind::Tcgen05Store);
  EXPECT_EQ(st.address, 0);
}

TEST(ModelEffectOrderingForms, Tcgen05WaitsAndFences) {
  EXPECT_EQ(effect("tcgen05.wait::ld.sync.aligned", "").kind, EffectKind::Tcgen05WaitLoad);
  EXPECT_EQ(effect("tcgen05.wait::st.sync.aligned", "").kind, EffectKind::Tcgen05WaitStore);
  EXPECT_EQ(effect("tcgen05.fence::before_thread_sync", "").kind, EffectKind::Tcgen05FenceBefore);
  EXPECT_EQ(effect("tcgen05.fence::after_thread_sync", "").kind, EffectKind::Tcgen05FenceAfter);
}

TEST(ModelEffectOrderingForms, Tcgen05AllocationAndTheOldRowsStay) {
  auto alloc = effect("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", "ai");
  EXPECT_EQ(alloc.kind, EffectKind::Tcgen05Alloc);
  EXPECT_EQ(alloc.space, Space::SharedCta);
  EXPECT_TRUE(alloc.writes);
  EXPECT_EQ(effect("tcgen05.dealloc.cta_group::1.sync.aligned.b32", "rr").kind, EffectKind::Tcgen05Dealloc);
  EXPECT_EQ(effect("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned", "").kind, EffectKind::Tcgen05Alloc);
  EXPECT_EQ(effect("tcgen05.mma.cta_group::1.kind::f16", "arrrr").kind, EffectKind::Tcgen05);
  EXPECT_EQ(effect("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", "a").kind,
            EffectKind::MbarrierArrive);
}

TEST(ModelEffectOrderingForms, UnidirectionalProxyFencesKeepTheirDirection) {
  auto release = effect("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster", "");
  EXPECT_EQ(release.kind, EffectKind::ProxyFence);
  EXPECT_EQ(release.proxy, Proxy::Async);
  EXPECT_EQ(release.semantics, Semantics::Release);  // generic -> async only
  EXPECT_EQ(release.fenceSpace, Space::SharedCta);
  auto acquire = effect("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster", "");
  EXPECT_EQ(acquire.semantics, Semantics::Acquire);  // async -> generic only
  EXPECT_EQ(acquire.fenceSpace, Space::SharedCluster);
  auto both = effect("fence.proxy.async.global", "");
  EXPECT_EQ(both.semantics, Semantics::None);  // bidirectional
  EXPECT_EQ(both.fenceSpace, Space::Global);
  auto tensormap = effect("fence.proxy.tensormap::generic.acquire.gpu", "ai");
  EXPECT_EQ(tensormap.kind, EffectKind::ProxyFence);
  EXPECT_EQ(tensormap.semantics, Semantics::Acquire);
  EXPECT_EQ(tensormap.scope, Scope::Gpu);
}

TEST(ModelEffectOrderingForms, GridDependencyAndTensormapCopy) {
  auto wait = effect("griddepcontrol.wait", "");
  EXPECT_EQ(wait.kind, EffectKind::GridDependencyWait);
  EXPECT_EQ(wait.semantics, Semantics::Acquire);
  EXPECT_EQ(effect("griddepcontrol.launch_dependents", "").kind, EffectKind::None);
  auto copy = effect("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned", "aai");
  EXPECT_EQ(copy.kind, EffectKind::Store);
  EXPECT_EQ(copy.space, Space::Global);
}

TEST(ModelEffectOrderingForms, NewKindsHaveNames) {
  EXPECT_EQ(toString(EffectKind::Tcgen05WaitLoad), "tcgen05-wait-load");
  EXPECT_EQ(toString(EffectKind::GridDependencyWait), "grid-dependency-wait");
}
