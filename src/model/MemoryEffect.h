// What an instruction does to memory and to ordering, as the checks see it.
// One table (MemoryEffect.cpp) maps opcode + modifiers to these values, with the
// ISA's defaults filled in (../shared/ordering-rules.md). Checks never parse
// opcode strings themselves.
#pragma once

#include <cstdint>
#include <string_view>

#include "ptx/Ast.h"

namespace fenceline::model {

enum class Space : uint8_t {
  None,           // no memory operand
  Generic,        // generic address: the value analysis may narrow it
  Global,
  SharedCta,      // .shared / .shared::cta
  SharedCluster,  // .shared::cluster
  Local,
  Const,
  Param,
  Tensor,         // a tensor map (TMA) operand: global memory through a descriptor
};

// Shared memory of this CTA or of the cluster; global memory directly or
// through a tensor map.
constexpr bool isSharedSpace(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }
constexpr bool isGlobalSpace(Space s) { return s == Space::Global || s == Space::Tensor; }

enum class Proxy : uint8_t { None, Generic, Async };

enum class EffectKind : uint8_t {
  None,              // arithmetic, moves, branches: no memory effect
  Load,              // ld, ldu, ld.global.nc, ldmatrix, tex/suld (reads)
  Store,             // st, stmatrix, sust
  ReadModifyWrite,   // atom, red, cas (red: writes only, but an RMW for ordering)
  Fence,             // fence.{sc,acq_rel,acquire,release}.scope, membar
  ProxyFence,        // fence.proxy.async[.space], fence.proxy.{alias,tensormap...}
  MbarrierInit,      // mbarrier.init
  MbarrierInitFence, // fence.mbarrier_init.release.cluster
  MbarrierArrive,    // mbarrier.arrive[.expect_tx], arrive_drop, cp.async.mbarrier.arrive
  MbarrierExpectTx,  // mbarrier.expect_tx
  MbarrierWait,      // mbarrier.try_wait / test_wait (polled in a loop)
  MbarrierInval,     // mbarrier.inval
  CtaBarrier,        // bar.sync / barrier.sync / bar.red / barrier.cluster.* (arrive+wait)
  CtaBarrierArrive,  // bar.arrive / barrier.arrive (no wait)
  WarpSync,          // bar.warp.sync
  AsyncCopy,         // cp.async (Ampere), cp.async.bulk*, cp.reduce.async.bulk*, tensor copies
  AsyncCommit,       // cp.async.commit_group, cp.async.bulk.commit_group
  AsyncWait,         // cp.async.wait_group/_all, cp.async.bulk.wait_group[.read]
  WgmmaFence,        // wgmma.fence
  Wgmma,             // wgmma.mma_async (reads shared operands through the async proxy)
  WgmmaCommit,       // wgmma.commit_group
  WgmmaWait,         // wgmma.wait_group
  Tcgen05,           // tcgen05.* that read shared memory through the async proxy
  Call,              // call
  Exit,              // ret, exit, trap
  Unknown,           // a memory-looking opcode fenceline does not classify (reported as unanalyzed)
  // tcgen05 tensor-memory operations (sm_100), PTX ISA "Tensor Memory" and
  // "tcgen05 memory consistency model". ld/st are asynchronous: their
  // registers (ld) or tensor memory (st) are settled only by the matching wait.
  Tcgen05Load,        // tcgen05.ld: tensor memory -> registers
  Tcgen05Store,       // tcgen05.st: registers -> tensor memory
  Tcgen05WaitLoad,    // tcgen05.wait::ld: every prior tcgen05.ld of this thread has completed
  Tcgen05WaitStore,   // tcgen05.wait::st: every prior tcgen05.st of this thread has completed
  Tcgen05FenceBefore, // tcgen05.fence::before_thread_sync: orders prior tcgen05 ops before a later thread sync
  Tcgen05FenceAfter,  // tcgen05.fence::after_thread_sync: orders later tcgen05 ops after a prior thread sync
  Tcgen05Alloc,       // tcgen05.alloc (writes the tensor-memory address to shared memory), relinquish_alloc_permit
  Tcgen05Dealloc,     // tcgen05.dealloc: tensor memory is given back
  GridDependencyWait, // griddepcontrol.wait: prerequisite grids have completed and their memory is visible
};

enum class Semantics : uint8_t { None, Weak, Volatile, Relaxed, Acquire, Release, AcqRel, Sc };
enum class Scope : uint8_t { None, Cta, Cluster, Gpu, Sys };

struct MemoryEffect {
  EffectKind kind = EffectKind::None;
  Proxy proxy = Proxy::None;
  Semantics semantics = Semantics::None;
  Scope scope = Scope::None;
  Space space = Space::None;   // space of the address operand (loads, stores, atomics, mbarrier)
  bool reads = false;          // reads memory at `address`
  bool writes = false;         // writes memory at `address`
  int8_t address = -1;         // operand index of the address ([...]) or -1
  // Async copies: where data is written and read. For cp.async.bulk.shared::cluster.global
  // the destination is shared memory (written through the async proxy) and the source global.
  Space destinationSpace = Space::None;
  Space sourceSpace = Space::None;
  int8_t destination = -1;     // operand index
  int8_t source = -1;          // operand index
  int8_t mbarrier = -1;        // operand index of the completion mbarrier, or -1
  // ProxyFence: which state space it covers (None = all: plain fence.proxy.async).
  Space fenceSpace = Space::None;
  bool isRemote = false;       // mbarrier.arrive .shared::cluster to another CTA, mapa'd address
};

// Classifies one instruction. Total: never throws; unknown opcodes get kind None
// (pure computation) or Unknown (looks like memory but not understood).
MemoryEffect classify(const ptx::Instruction& instruction);

// A barrier every thread of the CTA takes part in and waits at: bar.sync /
// barrier.sync (or bar.red) with no thread count. A named barrier with a
// count (`bar.sync 1, 128`) and cluster barriers are not.
bool isWholeCtaBarrier(const ptx::Instruction& instruction, const MemoryEffect& effect);

// A read of global (or generic) memory in the pre-Volta idiom for reading
// what other blocks published: ld.volatile, or a load with the .cg or .cv
// cache operator (__ldcg, __ldcv). No SM's L1 serves it. Strong loads
// (ld.relaxed/.acquire) also read past L1 at .gpu/.sys scope, but a kernel
// that uses them has chosen the memory model's orderings: they are not this
// idiom. ld.global.nc, weak loads and atomics are not either.
bool isVolatileStyleRead(const ptx::Instruction& instruction, const MemoryEffect& effect);

std::string_view toString(EffectKind);
std::string_view toString(Space);
std::string_view toString(Semantics);
std::string_view toString(Scope);

}  // namespace fenceline::model
