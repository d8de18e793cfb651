// The opcode table, row by row: constructed instructions (opcode + modifiers +
// operand shapes as the parser produces them) and the effect the checks see.
#include <gtest/gtest.h>

#include <sstream>

#include "model/MemoryEffect.h"

using namespace fenceline;
using namespace fenceline::model;

namespace {

ptx::Operand reg(int id) {
  ptx::Operand o;
  o.kind = ptx::Operand::Kind::Register;
  o.reg = id;
  return o;
}
ptx::Operand addr(int id) {
  ptx::Operand o;
  o.kind = ptx::Operand::Kind::Address;
  o.base.kind = ptx::Operand::Kind::Register;
  o.base.reg = id;
  return o;
}
ptx::Operand imm(int64_t v) {
  ptx::Operand o;
  o.kind = ptx::Operand::Kind::Integer;
  o.intValue = v;
  return o;
}

// "ld.global.acquire.gpu.b32" + operand shape letters: r = register, a = [addr], i = immediate.
ptx::Instruction make(std::string_view dotted, std::string_view shape) {
  ptx::Instruction inst;
  inst.setSpelling(dotted);
  int id = 0;
  for (char c : shape) inst.operands.push_back(c == 'a' ? addr(id++) : c == 'i' ? imm(1) : reg(id++));
  return inst;
}

MemoryEffect effect(std::string_view dotted, std::string_view shape) { return classify(make(dotted, shape)); }

}  // namespace

TEST(ModelEffect, PlainLoadsAndStoresAreWeakGeneric) {
  auto ld = effect("ld.global.u32", "ra");
  EXPECT_EQ(ld.kind, EffectKind::Load);
  EXPECT_EQ(ld.semantics, Semantics::Weak);
  EXPECT_EQ(ld.scope, Scope::None);
  EXPECT_EQ(ld.space, Space::Global);
  EXPECT_EQ(ld.proxy, Proxy::Generic);
  EXPECT_EQ(ld.address, 1);
  EXPECT_TRUE(ld.reads);
  EXPECT_FALSE(ld.writes);

  auto st = effect("st.shared.v4.f32", "ar");
  EXPECT_EQ(st.kind, EffectKind::Store);
  EXPECT_EQ(st.space, Space::SharedCta);
  EXPECT_EQ(st.address, 0);
  EXPECT_TRUE(st.writes);

  EXPECT_EQ(effect("ld.u32", "ra").space, Space::Generic);
  EXPECT_EQ(effect("ld.shared::cluster.u32", "ra").space, Space::SharedCluster);
  EXPECT_EQ(effect("ld.global.nc.v4.u32", "ra").kind, EffectKind::Load);
  EXPECT_EQ(effect("ldu.global.u32", "ra").kind, EffectKind::Load);
  EXPECT_EQ(effect("ld.param.u64", "ra").space, Space::Param);
}

TEST(ModelEffect, SemanticsAndScopeFromModifiers) {
  auto acq = effect("ld.acquire.gpu.global.u32", "ra");
  EXPECT_EQ(acq.semantics, Semantics::Acquire);
  EXPECT_EQ(acq.scope, Scope::Gpu);
  auto rel = effect("st.release.sys.global.u32", "ar");
  EXPECT_EQ(rel.semantics, Semantics::Release);
  EXPECT_EQ(rel.scope, Scope::Sys);
  auto relaxed = effect("ld.relaxed.cluster.shared::cluster.u32", "ra");
  EXPECT_EQ(relaxed.semantics, Semantics::Relaxed);
  EXPECT_EQ(relaxed.scope, Scope::Cluster);
  auto vol = effect("ld.volatile.global.u32", "ra");
  EXPECT_EQ(vol.semantics, Semantics::Volatile);
  EXPECT_EQ(vol.scope, Scope::Sys);
}

TEST(ModelEffect, AtomicsDefaultToRelaxedGpu) {
  auto atom = effect("atom.global.add.u32", "rar");
  EXPECT_EQ(atom.kind, EffectKind::ReadModifyWrite);
  EXPECT_EQ(atom.semantics, Semantics::Relaxed);
  EXPECT_EQ(atom.scope, Scope::Gpu);
  EXPECT_EQ(atom.address, 1);
  EXPECT_TRUE(atom.reads && atom.writes);
  auto red = effect("red.release.sys.global.add.u32", "ar");
  EXPECT_EQ(red.kind, EffectKind::ReadModifyWrite);
  EXPECT_EQ(red.semantics, Semantics::Release);
  EXPECT_EQ(red.scope, Scope::Sys);
  EXPECT_EQ(red.address, 0);
  auto sysAtom = effect("atom.sys.cas.b32", "rarr");
  EXPECT_EQ(sysAtom.scope, Scope::Sys);
  EXPECT_EQ(sysAtom.space, Space::Generic);
}

TEST(ModelEffect, MatrixLoadsAndStores) {
  auto ldm = effect("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ra");
  EXPECT_EQ(ldm.kind, EffectKind::Load);
  EXPECT_EQ(ldm.space, Space::SharedCta);
  EXPECT_EQ(ldm.proxy, Proxy::Generic);
  auto stm = effect("stmatrix.sync.aligned.m8n8.x2.shared.b16", "ar");
  EXPECT_EQ(stm.kind, EffectKind::Store);
  EXPECT_EQ(stm.address, 0);
}

TEST(ModelEffect, Fences) {
  auto sc = effect("fence.sc.gpu", "");
  EXPECT_EQ(sc.kind, EffectKind::Fence);
  EXPECT_EQ(sc.semantics, Semantics::Sc);
  EXPECT_EQ(sc.scope, Scope::Gpu);
  auto ar = effect("fence.acq_rel.sys", "");
  EXPECT_EQ(ar.semantics, Semantics::AcqRel);
  EXPECT_EQ(ar.scope, Scope::Sys);
  auto restricted = effect("fence.acquire.sync_restrict::shared::cluster.cluster", "");
  EXPECT_EQ(restricted.kind, EffectKind::Fence);
  EXPECT_EQ(restricted.semantics, Semantics::Acquire);
  EXPECT_EQ(restricted.scope, Scope::Cluster);
  EXPECT_EQ(restricted.fenceSpace, Space::SharedCluster);

  struct Membar { const char* text; Scope scope; } membars[] = {
      {"membar.cta", Scope::Cta}, {"membar.gl", Scope::Gpu}, {"membar.sys", Scope::Sys}};
  for (auto m : membars) {
    auto e = effect(m.text, "");
    EXPECT_EQ(e.kind, EffectKind::Fence) << m.text;
    EXPECT_EQ(e.semantics, Semantics::Sc) << m.text;
    EXPECT_EQ(e.scope, m.scope) << m.text;
  }
}

TEST(ModelEffect, ProxyFences) {
  auto all = effect("fence.proxy.async", "");
  EXPECT_EQ(all.kind, EffectKind::ProxyFence);
  EXPECT_EQ(all.proxy, Proxy::Async);
  EXPECT_EQ(all.fenceSpace, Space::None);
  EXPECT_EQ(effect("fence.proxy.async.shared::cta", "").fenceSpace, Space::SharedCta);
  EXPECT_EQ(effect("fence.proxy.async.shared::cluster", "").fenceSpace, Space::SharedCluster);
  EXPECT_EQ(effect("fence.proxy.async.global", "").fenceSpace, Space::Global);
  auto tmap = effect("fence.proxy.tensormap::generic.release.gpu", "");
  EXPECT_EQ(tmap.kind, EffectKind::ProxyFence);
  EXPECT_NE(tmap.proxy, Proxy::Async);
  auto init = effect("fence.mbarrier_init.release.cluster", "");
  EXPECT_EQ(init.kind, EffectKind::MbarrierInitFence);
  EXPECT_EQ(init.scope, Scope::Cluster);
}

TEST(ModelEffect, Mbarriers) {
  auto init = effect("mbarrier.init.shared::cta.b64", "ar");
  EXPECT_EQ(init.kind, EffectKind::MbarrierInit);
  EXPECT_EQ(init.address, 0);
  EXPECT_EQ(init.space, Space::SharedCta);

  auto arrive = effect("mbarrier.arrive.shared::cta.b64", "ra");
  EXPECT_EQ(arrive.kind, EffectKind::MbarrierArrive);
  EXPECT_EQ(arrive.semantics, Semantics::Release);
  EXPECT_EQ(arrive.scope, Scope::Cta);
  EXPECT_EQ(arrive.address, 1);
  EXPECT_FALSE(arrive.isRemote);

  auto remote = effect("mbarrier.arrive.release.cluster.shared::cluster.b64", "ra");
  EXPECT_TRUE(remote.isRemote);
  EXPECT_EQ(remote.scope, Scope::Cluster);
  auto remoteDefault = effect("mbarrier.arrive.shared::cluster.b64", "ra");
  EXPECT_TRUE(remoteDefault.isRemote);
  EXPECT_EQ(remoteDefault.scope, Scope::Cta);

  EXPECT_EQ(effect("mbarrier.arrive.expect_tx.shared::cta.b64", "rar").kind, EffectKind::MbarrierArrive);
  EXPECT_EQ(effect("mbarrier.arrive_drop.shared.b64", "ra").kind, EffectKind::MbarrierArrive);
  EXPECT_EQ(effect("mbarrier.expect_tx.relaxed.cta.shared::cta.b64", "ar").kind, EffectKind::MbarrierExpectTx);

  auto wait = effect("mbarrier.try_wait.parity.shared::cta.b64", "rar");
  EXPECT_EQ(wait.kind, EffectKind::MbarrierWait);
  EXPECT_EQ(wait.semantics, Semantics::Acquire);
  EXPECT_EQ(wait.scope, Scope::Cta);
  EXPECT_EQ(wait.address, 1);
  auto clusterWait = effect("mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64", "rar");
  EXPECT_EQ(clusterWait.scope, Scope::Cluster);
  EXPECT_EQ(effect("mbarrier.test_wait.shared.b64", "rar").kind, EffectKind::MbarrierWait);
  EXPECT_EQ(effect("mbarrier.inval.shared.b64", "a").kind, EffectKind::MbarrierInval);

  auto cpArrive = effect("cp.async.mbarrier.arrive.noinc.shared.b64", "a");
  EXPECT_EQ(cpArrive.kind, EffectKind::MbarrierArrive);
  EXPECT_EQ(cpArrive.space, Space::SharedCta);
}

TEST(ModelEffect, CtaBarriers) {
  EXPECT_EQ(effect("bar.sync", "i").kind, EffectKind::CtaBarrier);
  EXPECT_EQ(effect("barrier.sync.aligned", "i").kind, EffectKind::CtaBarrier);
  EXPECT_EQ(effect("bar.red.popc.u32", "rir").kind, EffectKind::CtaBarrier);
  EXPECT_EQ(effect("bar.arrive", "ii").kind, EffectKind::CtaBarrierArrive);
  EXPECT_EQ(effect("bar.warp.sync", "i").kind, EffectKind::WarpSync);
  auto clusterArrive = effect("barrier.cluster.arrive.release.aligned", "");
  EXPECT_EQ(clusterArrive.kind, EffectKind::CtaBarrierArrive);
  EXPECT_EQ(clusterArrive.scope, Scope::Cluster);
  auto clusterWait = effect("barrier.cluster.wait.acquire.aligned", "");
  EXPECT_EQ(clusterWait.kind, EffectKind::CtaBarrier);
  EXPECT_EQ(clusterWait.semantics, Semantics::Acquire);
  EXPECT_EQ(effect("barrier.cluster.arrive.relaxed.aligned", "").semantics, Semantics::Relaxed);
}

TEST(ModelEffect, AmpereAsyncCopy) {
  auto cp = effect("cp.async.cg.shared.global", "aai");
  EXPECT_EQ(cp.kind, EffectKind::AsyncCopy);
  EXPECT_EQ(cp.proxy, Proxy::Generic);
  EXPECT_EQ(cp.destinationSpace, Space::SharedCta);
  EXPECT_EQ(cp.sourceSpace, Space::Global);
  EXPECT_EQ(cp.destination, 0);
  EXPECT_EQ(cp.source, 1);
  EXPECT_EQ(effect("cp.async.commit_group", "").kind, EffectKind::AsyncCommit);
  EXPECT_EQ(effect("cp.async.wait_group", "i").kind, EffectKind::AsyncWait);
  EXPECT_EQ(effect("cp.async.wait_all", "").kind, EffectKind::AsyncWait);
}

TEST(ModelEffect, BulkCopies) {
  auto load = effect("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "aara");
  EXPECT_EQ(load.kind, EffectKind::AsyncCopy);
  EXPECT_EQ(load.proxy, Proxy::Async);
  EXPECT_EQ(load.destinationSpace, Space::SharedCluster);
  EXPECT_EQ(load.sourceSpace, Space::Global);
  EXPECT_EQ(load.destination, 0);
  EXPECT_EQ(load.source, 1);
  EXPECT_EQ(load.mbarrier, 3);

  auto store = effect("cp.async.bulk.global.shared::cta.bulk_group", "aar");
  EXPECT_EQ(store.destinationSpace, Space::Global);
  EXPECT_EQ(store.sourceSpace, Space::SharedCta);
  EXPECT_EQ(store.mbarrier, -1);

  auto tensorLoad = effect("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "aaa");
  EXPECT_EQ(tensorLoad.destinationSpace, Space::SharedCluster);
  EXPECT_EQ(tensorLoad.sourceSpace, Space::Tensor);
  EXPECT_EQ(tensorLoad.mbarrier, 2);

  auto tensorStore = effect("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", "aa");
  EXPECT_EQ(tensorStore.destinationSpace, Space::Tensor);
  EXPECT_EQ(tensorStore.sourceSpace, Space::SharedCta);

  auto reduce = effect("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32", "aar");
  EXPECT_EQ(reduce.kind, EffectKind::AsyncCopy);
  EXPECT_EQ(reduce.proxy, Proxy::Async);
  EXPECT_EQ(reduce.destinationSpace, Space::Global);

  auto prefetch = effect("cp.async.bulk.prefetch.L2.global", "ar");
  EXPECT_EQ(prefetch.kind, EffectKind::AsyncCopy);
  EXPECT_EQ(prefetch.sourceSpace, Space::Global);
  EXPECT_EQ(prefetch.destinationSpace, Space::None);
  EXPECT_FALSE(prefetch.writes);

  EXPECT_EQ(effect("cp.async.bulk.commit_group", "").kind, EffectKind::AsyncCommit);
  EXPECT_EQ(effect("cp.async.bulk.wait_group.read", "i").kind, EffectKind::AsyncWait);
}

TEST(ModelEffect, Wgmma) {
  EXPECT_EQ(effect("wgmma.fence.sync.aligned", "").kind, EffectKind::WgmmaFence);
  auto mma = effect("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "rrrrr");
  EXPECT_EQ(mma.kind, EffectKind::Wgmma);
  EXPECT_EQ(mma.proxy, Proxy::Async);
  EXPECT_EQ(mma.space, Space::SharedCta);
  EXPECT_TRUE(mma.reads);
  EXPECT_EQ(effect("wgmma.commit_group.sync.aligned", "").kind, EffectKind::WgmmaCommit);
  EXPECT_EQ(effect("wgmma.wait_group.sync.aligned", "i").kind, EffectKind::WgmmaWait);
}

TEST(ModelEffect, NoMemoryEffect) {
  for (auto [text, shape] : {std::pair{"vote.sync.all.pred", "rrr"}, {"shfl.sync.bfly.b32", "rrrrr"},
                            {"match.any.sync.b32", "rrr"}, {"elect.sync", "rr"}, {"add.s32", "rrr"},
                            {"prefetch.global.L2", "a"}, {"mov.u32", "rr"}}) {
    EXPECT_EQ(effect(text, shape).kind, EffectKind::None) << text;
  }
}

TEST(ModelEffect, ControlAndUnknown) {
  EXPECT_EQ(effect("call.uni", "").kind, EffectKind::Call);
  EXPECT_EQ(effect("ret", "").kind, EffectKind::Exit);
  EXPECT_EQ(effect("exit", "").kind, EffectKind::Exit);
  EXPECT_EQ(effect("trap", "").kind, EffectKind::Exit);
  auto unknown = effect("frobnicate.global.b32", "ar");
  EXPECT_EQ(unknown.kind, EffectKind::Unknown);
  EXPECT_EQ(unknown.space, Space::Global);
  EXPECT_EQ(effect("frobnicate.b32", "rr").kind, EffectKind::None);
}

TEST(ModelEffect, AsyncStoresToRemoteShared) {
  auto st = effect("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32", "ara");
  EXPECT_EQ(st.kind, EffectKind::Store);
  EXPECT_EQ(st.space, Space::SharedCluster);
  EXPECT_EQ(st.mbarrier, 2);
  auto red = effect("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32", "ara");
  EXPECT_EQ(red.kind, EffectKind::ReadModifyWrite);
  EXPECT_EQ(red.mbarrier, 2);
}

TEST(ModelEffect, Names) {
  EXPECT_EQ(toString(EffectKind::ProxyFence), "proxy-fence");
  EXPECT_EQ(toString(EffectKind::Unknown), "unknown");
  EXPECT_EQ(toString(Space::SharedCluster), "shared::cluster");
  EXPECT_EQ(toString(Semantics::AcqRel), "acq_rel");
  EXPECT_EQ(toString(Scope::Sys), "sys");
}

// The pre-Volta idiom's reads (model::isVolatileStyleRead, acquire-missing's disputed form).
TEST(ModelEffect, VolatileStyleReadsAreVolatileCgAndCvLoads) {
  auto idiom = [](std::string_view dotted, std::string_view shape) {
    const ptx::Instruction inst = make(dotted, shape);
    return isVolatileStyleRead(inst, classify(inst));
  };
  EXPECT_TRUE(idiom("ld.volatile.global.f32", "ra"));
  EXPECT_TRUE(idiom("ld.volatile.f32", "ra"));  // generic address
  EXPECT_TRUE(idiom("ld.global.cg.f32", "ra"));
  EXPECT_TRUE(idiom("ld.global.cv.u32", "ra"));

  EXPECT_FALSE(idiom("ld.global.u32", "ra"));             // weak: an L1 line may serve it
  EXPECT_FALSE(idiom("ld.global.ca.u32", "ra"));
  EXPECT_FALSE(idiom("ld.relaxed.gpu.global.u32", "ra"));  // the memory model's orderings, chosen
  EXPECT_FALSE(idiom("ld.acquire.sys.global.u32", "ra"));
  EXPECT_FALSE(idiom("atom.global.add.u32", "rar"));
  EXPECT_FALSE(idiom("ld.global.nc.u32", "ra"));          // read-only cache
  EXPECT_FALSE(idiom("ld.volatile.shared.u32", "ra"));    // shared memory
  EXPECT_FALSE(idiom("st.volatile.global.u32", "ar"));    // not a read
}
