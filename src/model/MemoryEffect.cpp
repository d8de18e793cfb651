// The opcode table: PTX opcode + modifiers -> MemoryEffect. One row per form,
// most specific first; the first row whose opcode matches and whose required
// modifiers are all present wins. Modifiers then override the row's defaults:
// state space (.global, .shared::cta, ...), semantics (.relaxed, .acquire, ...)
// and scope (.cta, .cluster, .gpu, .sys). The defaults are the ISA's (see
// ../shared/ordering-rules.md): plain ld/st are weak; atom/red without .sem
// are relaxed at .gpu; mbarrier.arrive is release.cta; try_wait/test_wait are
// acquire.cta; fence without .sem is acq_rel; membar is fence.sc.
//
// Operand positions are not in the table: the address is the first `[...]`
// operand; bulk copies take destination, source and then the mbarrier in
// that order (prefetches have only a source).
#include "model/MemoryEffect.h"

#include <algorithm>

#include <array>
#include <unordered_map>
#include <vector>

namespace fenceline::model {
namespace {

enum Flag : uint16_t {
  Reads = 1 << 0,
  Writes = 1 << 1,
  BulkCopy = 1 << 2,      // cp.async.bulk*, cp.reduce.async.bulk*: spaces from modifiers, dst/src/mbarrier
  AmpereCopy = 1 << 3,    // cp.async.ca/cg: dst shared (op 0), src global (op 1)
  FenceSpace = 1 << 4,    // the space modifier says what a (proxy) fence covers
  HasMbarrier = 1 << 5,   // st.async / red.async: the last [..] operand is an mbarrier
  NoMemory = 1 << 6,      // has a [..] operand but no memory effect (prefetch)
  Shared = 1 << 7,        // defaults to shared::cta when no space modifier is given
  TensorMemory = 1 << 8,  // tcgen05 [taddr]: a tensor-memory address, no state space
};

struct Row {
  std::string_view opcode;
  std::array<std::string_view, 2> requires_;  // modifiers that must be present ("" = none)
  EffectKind kind;
  Proxy proxy;
  Semantics semantics;  // default when no .sem modifier
  Scope scope;          // default when no scope modifier
  uint16_t flags;
};

using EK = EffectKind;
using P = Proxy;
using Se = Semantics;
using Sc = Scope;

// Rows are tried in order; keep specific forms above general ones.
constexpr Row kTable[] = {
    // Loads and stores (generic proxy).
    {"ld", {}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},
    {"ldu", {}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},
    {"ldmatrix", {}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},
    {"st", {"async"}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes | HasMbarrier},
    {"st", {"bulk"}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    {"st", {}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    {"stmatrix", {}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    {"tensormap", {"replace"}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    // tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu [dst], [src], 128:
    // copies a tensor map from shared to global memory and fences the tensormap proxy.
    {"tensormap", {"cp_fenceproxy"}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    {"atom", {}, EK::ReadModifyWrite, P::Generic, Se::Relaxed, Sc::Gpu, Reads | Writes},
    {"red", {"async"}, EK::ReadModifyWrite, P::Generic, Se::Relaxed, Sc::Cluster, Writes | HasMbarrier},
    {"red", {}, EK::ReadModifyWrite, P::Generic, Se::Relaxed, Sc::Gpu, Writes},
    {"multimem", {"ld_reduce"}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},
    {"multimem", {"st"}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    {"multimem", {"red"}, EK::ReadModifyWrite, P::Generic, Se::Relaxed, Sc::Gpu, Writes},
    {"suld", {}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},
    {"sust", {}, EK::Store, P::Generic, Se::Weak, Sc::None, Writes},
    {"sured", {}, EK::ReadModifyWrite, P::Generic, Se::Relaxed, Sc::Gpu, Writes},
    {"tex", {}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},
    {"tld4", {}, EK::Load, P::Generic, Se::Weak, Sc::None, Reads},

    // Fences.
    {"fence", {"proxy", "async"}, EK::ProxyFence, P::Async, Se::None, Sc::None, FenceSpace},
    {"fence", {"proxy", "async::generic"}, EK::ProxyFence, P::Async, Se::None, Sc::None, FenceSpace},
    {"fence", {"proxy", "tensormap::generic"}, EK::ProxyFence, P::Generic, Se::None, Sc::None, 0},
    {"fence", {"proxy"}, EK::ProxyFence, P::Generic, Se::None, Sc::None, 0},  // fence.proxy.alias
    {"fence", {"mbarrier_init"}, EK::MbarrierInitFence, P::Generic, Se::Release, Sc::Cluster, 0},
    {"fence", {}, EK::Fence, P::Generic, Se::AcqRel, Sc::None, FenceSpace},
    {"membar", {}, EK::Fence, P::Generic, Se::Sc, Sc::None, 0},

    // mbarrier.
    {"mbarrier", {"init"}, EK::MbarrierInit, P::Generic, Se::None, Sc::None, Writes},
    {"mbarrier", {"arrive_drop"}, EK::MbarrierArrive, P::Generic, Se::Release, Sc::Cta, Reads | Writes},
    {"mbarrier", {"arrive"}, EK::MbarrierArrive, P::Generic, Se::Release, Sc::Cta, Reads | Writes},
    {"mbarrier", {"expect_tx"}, EK::MbarrierExpectTx, P::Generic, Se::Relaxed, Sc::Cta, Reads | Writes},
    // complete_tx decrements the transaction count (no arrival): grouped with expect_tx.
    {"mbarrier", {"complete_tx"}, EK::MbarrierExpectTx, P::Generic, Se::Relaxed, Sc::Cta, Reads | Writes},
    {"mbarrier", {"try_wait"}, EK::MbarrierWait, P::Generic, Se::Acquire, Sc::Cta, Reads},
    {"mbarrier", {"test_wait"}, EK::MbarrierWait, P::Generic, Se::Acquire, Sc::Cta, Reads},
    {"mbarrier", {"inval"}, EK::MbarrierInval, P::Generic, Se::None, Sc::None, Writes},
    {"mbarrier", {"pending_count"}, EK::None, P::None, Se::None, Sc::None, 0},

    // Asynchronous copies. cp.async.mbarrier.arrive before cp.async (same prefix).
    {"cp", {"async", "mbarrier"}, EK::MbarrierArrive, P::Generic, Se::Release, Sc::Cta, Reads | Writes | Shared},
    {"cp", {"async", "commit_group"}, EK::AsyncCommit, P::None, Se::None, Sc::None, 0},
    {"cp", {"async", "wait_group"}, EK::AsyncWait, P::None, Se::None, Sc::None, 0},
    {"cp", {"async", "wait_all"}, EK::AsyncWait, P::None, Se::None, Sc::None, 0},
    {"cp", {"reduce", "bulk"}, EK::AsyncCopy, P::Async, Se::None, Sc::None, Reads | Writes | BulkCopy},
    {"cp", {"async", "bulk"}, EK::AsyncCopy, P::Async, Se::None, Sc::None, Reads | Writes | BulkCopy},
    {"cp", {"async"}, EK::AsyncCopy, P::Generic, Se::None, Sc::None, Reads | Writes | AmpereCopy},

    // Barriers. bar.warp.sync before bar.sync; arrive-only forms before the rest.
    {"bar", {"warp", "sync"}, EK::WarpSync, P::None, Se::None, Sc::None, 0},
    {"bar", {"arrive"}, EK::CtaBarrierArrive, P::Generic, Se::Release, Sc::Cta, 0},
    {"barrier", {"cluster", "arrive"}, EK::CtaBarrierArrive, P::Generic, Se::Release, Sc::Cluster, 0},
    {"barrier", {"cluster", "wait"}, EK::CtaBarrier, P::Generic, Se::Acquire, Sc::Cluster, 0},
    {"barrier", {"arrive"}, EK::CtaBarrierArrive, P::Generic, Se::Release, Sc::Cta, 0},
    {"bar", {}, EK::CtaBarrier, P::Generic, Se::AcqRel, Sc::Cta, 0},
    {"barrier", {}, EK::CtaBarrier, P::Generic, Se::AcqRel, Sc::Cta, 0},

    // Warpgroup MMA: shared operands through descriptors, async proxy.
    {"wgmma", {"fence"}, EK::WgmmaFence, P::None, Se::None, Sc::None, 0},
    {"wgmma", {"mma_async"}, EK::Wgmma, P::Async, Se::None, Sc::None, Reads | Shared},
    {"wgmma", {"commit_group"}, EK::WgmmaCommit, P::None, Se::None, Sc::None, 0},
    {"wgmma", {"wait_group"}, EK::WgmmaWait, P::None, Se::None, Sc::None, 0},

    // tcgen05 (sm_100): mma and cp read shared memory through the async proxy;
    // commit arrives on an mbarrier when the prior tcgen05 work completes.
    {"tcgen05", {"mma"}, EK::Tcgen05, P::Async, Se::None, Sc::None, Reads | Shared},
    {"tcgen05", {"cp"}, EK::Tcgen05, P::Async, Se::None, Sc::None, Reads | Shared},
    {"tcgen05", {"commit"}, EK::MbarrierArrive, P::Async, Se::Release, Sc::Cta, Reads | Writes},
    // tcgen05 tensor-memory accesses, waits, thread-sync fences and allocation
    // (PTX ISA 8.6+, "tcgen05" instructions). The [taddr] operand of ld/st is a
    // tensor-memory address: no state space the other rows know.
    {"tcgen05", {"ld"}, EK::Tcgen05Load, P::Async, Se::None, Sc::None, TensorMemory},
    {"tcgen05", {"st"}, EK::Tcgen05Store, P::Async, Se::None, Sc::None, TensorMemory},
    {"tcgen05", {"wait::ld"}, EK::Tcgen05WaitLoad, P::None, Se::None, Sc::None, 0},
    {"tcgen05", {"wait::st"}, EK::Tcgen05WaitStore, P::None, Se::None, Sc::None, 0},
    {"tcgen05", {"fence::before_thread_sync"}, EK::Tcgen05FenceBefore, P::None, Se::None, Sc::None, 0},
    {"tcgen05", {"fence::after_thread_sync"}, EK::Tcgen05FenceAfter, P::None, Se::None, Sc::None, 0},
    {"tcgen05", {"alloc"}, EK::Tcgen05Alloc, P::Async, Se::None, Sc::None, Writes | Shared},
    {"tcgen05", {"relinquish_alloc_permit"}, EK::Tcgen05Alloc, P::None, Se::None, Sc::None, 0},
    {"tcgen05", {"dealloc"}, EK::Tcgen05Dealloc, P::Async, Se::None, Sc::None, TensorMemory},
    {"tcgen05", {}, EK::Tcgen05, P::None, Se::None, Sc::None, 0},  // tcgen05.shift

    // Cluster launch control (sm_100): try_cancel writes its 16-byte response
    // to shared memory through the async proxy and completes the mbarrier
    // (the last [..] operand) with complete_tx, like a bulk copy with no
    // source; query_cancel decodes a response in registers.
    {"clusterlaunchcontrol", {"try_cancel"}, EK::AsyncCopy, P::Async, Se::None, Sc::None, Writes | Shared | HasMbarrier},
    {"clusterlaunchcontrol", {}, EK::None, P::None, Se::None, Sc::None, 0},

    // Programmatic dependent launch: griddepcontrol.wait blocks until the
    // prerequisite grids have completed and their memory operations are
    // visible to this grid; launch_dependents only schedules.
    {"griddepcontrol", {"wait"}, EK::GridDependencyWait, P::Generic, Se::Acquire, Sc::Gpu, 0},
    {"griddepcontrol", {}, EK::None, P::None, Se::None, Sc::None, 0},

    // Control.
    {"call", {}, EK::Call, P::None, Se::None, Sc::None, 0},
    {"ret", {}, EK::Exit, P::None, Se::None, Sc::None, 0},
    {"exit", {}, EK::Exit, P::None, Se::None, Sc::None, 0},
    {"trap", {}, EK::Exit, P::None, Se::None, Sc::None, 0},

    // Address operands but no memory effect the checks care about.
    {"prefetch", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"prefetchu", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"applypriority", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"discard", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"cvta", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"mapa", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"isspacep", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
    {"createpolicy", {}, EK::None, P::None, Se::None, Sc::None, NoMemory},
};

struct Named {
  std::string_view name;
  uint8_t value;
};

constexpr Named kSpaces[] = {
    {"global", uint8_t(Space::Global)},         {"shared", uint8_t(Space::SharedCta)},
    {"shared::cta", uint8_t(Space::SharedCta)}, {"shared::cluster", uint8_t(Space::SharedCluster)},
    {"local", uint8_t(Space::Local)},           {"const", uint8_t(Space::Const)},
    {"param", uint8_t(Space::Param)},
};
constexpr Named kSemantics[] = {
    {"weak", uint8_t(Semantics::Weak)},       {"volatile", uint8_t(Semantics::Volatile)},
    {"relaxed", uint8_t(Semantics::Relaxed)}, {"acquire", uint8_t(Semantics::Acquire)},
    {"release", uint8_t(Semantics::Release)}, {"acq_rel", uint8_t(Semantics::AcqRel)},
    {"sc", uint8_t(Semantics::Sc)},           {"mmio", uint8_t(Semantics::Relaxed)},
};
constexpr Named kScopes[] = {
    {"cta", uint8_t(Scope::Cta)}, {"cluster", uint8_t(Scope::Cluster)}, {"gpu", uint8_t(Scope::Gpu)},
    {"sys", uint8_t(Scope::Sys)}, {"gl", uint8_t(Scope::Gpu)},  // membar.gl
};

template <size_t N>
int lookup(const Named (&table)[N], std::string_view name) {
  for (const auto& n : table)
    if (n.name == name) return n.value;
  return -1;
}

// Row indices per opcode, in table order.
const std::unordered_map<std::string_view, std::vector<const Row*>>& rowsByOpcode() {
  static const auto index = [] {
    std::unordered_map<std::string_view, std::vector<const Row*>> m;
    for (const Row& row : kTable) m[row.opcode].push_back(&row);
    return m;
  }();
  return index;
}

const Row* findRow(const ptx::Instruction& inst) {
  const auto& index = rowsByOpcode();
  auto it = index.find(inst.opcode);
  if (it == index.end()) return nullptr;
  for (const Row* rowPtr : it->second) {
    const Row& row = *rowPtr;
    bool all = true;
    for (auto m : row.requires_)
      if (!m.empty() && !inst.hasModifier(m)) all = false;
    if (all) return &row;
  }
  return nullptr;
}

// Space modifiers in order of appearance (bulk copies name dst then src).
std::vector<Space> spaceModifiers(const ptx::Instruction& inst) {
  std::vector<Space> spaces;
  for (const auto& m : inst.modifiers)
    if (int s = lookup(kSpaces, m); s >= 0) spaces.push_back(Space(s));
  return spaces;
}

std::vector<int8_t> addressOperands(const ptx::Instruction& inst) {
  std::vector<int8_t> out;
  for (size_t i = 0; i < inst.operands.size() && i < 127; ++i)
    if (inst.operands[i].kind == ptx::Operand::Kind::Address) out.push_back(static_cast<int8_t>(i));
  return out;
}

bool hasModifierPrefix(const ptx::Instruction& inst, std::string_view prefix) {
  for (const auto& m : inst.modifiers)
    if (m.starts_with(prefix)) return true;
  return false;
}

void fillBulkCopy(const ptx::Instruction& inst, const std::vector<int8_t>& addresses, MemoryEffect& e) {
  std::vector<Space> spaces = spaceModifiers(inst);
  const bool tensor = inst.hasModifier("tensor");
  auto asTensor = [&](Space s) { return tensor && s == Space::Global ? Space::Tensor : s; };
  auto at = [&](size_t k) -> int8_t { return k < addresses.size() ? addresses[k] : int8_t(-1); };
  if (inst.hasModifier("prefetch")) {  // cp.async.bulk.prefetch[.tensor].L2.global [src] ...
    e.writes = false;
    e.sourceSpace = asTensor(spaces.empty() ? Space::Global : spaces.front());
    e.source = at(0);
    e.address = e.source;
    e.space = e.sourceSpace;
    return;
  }
  e.destinationSpace = spaces.size() > 0 ? asTensor(spaces[0]) : Space::Generic;
  e.sourceSpace = spaces.size() > 1 ? asTensor(spaces[1]) : Space::Generic;
  e.destination = at(0);
  e.source = at(1);
  if (hasModifierPrefix(inst, "mbarrier")) e.mbarrier = at(2);
  e.address = e.destination;
  e.space = e.destinationSpace;
}

}  // namespace

MemoryEffect classify(const ptx::Instruction& inst) {
  MemoryEffect e;
  std::vector<int8_t> addresses = addressOperands(inst);
  const Row* row = findRow(inst);
  if (!row) {
    // Not in the table: pure computation unless it names memory.
    if (!addresses.empty()) {
      e.kind = EffectKind::Unknown;
      e.reads = e.writes = true;
      e.address = addresses.front();
      std::vector<Space> spaces = spaceModifiers(inst);
      e.space = spaces.empty() ? Space::Generic : spaces.front();
    }
    return e;
  }
  if (row->flags & NoMemory) return e;

  e.kind = row->kind;
  e.proxy = row->proxy;
  e.semantics = row->semantics;
  e.scope = row->scope;
  e.reads = row->flags & Reads;
  e.writes = row->flags & Writes;
  for (const auto& m : inst.modifiers) {
    if (int s = lookup(kSemantics, m); s >= 0) e.semantics = Semantics(s);
    if (int s = lookup(kScopes, m); s >= 0) e.scope = Scope(s);
  }
  // ld.volatile / st.volatile: relaxed at .sys scope, no ordering.
  if (e.semantics == Semantics::Volatile && e.scope == Scope::None) e.scope = Scope::Sys;

  std::vector<Space> spaces = spaceModifiers(inst);
  if (row->flags & BulkCopy) {
    fillBulkCopy(inst, addresses, e);
    return e;
  }
  if (row->flags & AmpereCopy) {  // cp.async.ca/cg.shared{::cta}.global [dst], [src], size
    e.destinationSpace = Space::SharedCta;
    e.sourceSpace = Space::Global;
    e.destination = addresses.size() > 0 ? addresses[0] : -1;
    e.source = addresses.size() > 1 ? addresses[1] : -1;
    e.address = e.destination;
    e.space = e.destinationSpace;
    return e;
  }
  if (row->flags & FenceSpace) {
    // fence.proxy.async.shared::cta, fence.acq_rel.sync_restrict::shared::cluster.cluster
    for (const auto& m : inst.modifiers) {
      if (int s = lookup(kSpaces, m); s >= 0) e.fenceSpace = Space(s);
      if (m.starts_with("sync_restrict::")) {
        if (int s = lookup(kSpaces, std::string_view(m).substr(15)); s >= 0) e.fenceSpace = Space(s);
      }
    }
    return e;
  }
  if (row->flags & TensorMemory) {
    e.address = addresses.empty() ? -1 : addresses.front();
    return e;
  }
  if (e.kind == EffectKind::Wgmma || e.kind == EffectKind::Tcgen05) {
    if (e.proxy == Proxy::Async) e.space = Space::SharedCta;  // through descriptors: no [..] operand
    return e;
  }
  if (!addresses.empty()) {
    e.address = addresses.front();
    e.space = spaces.empty() ? ((row->flags & Shared) ? Space::SharedCta : Space::Generic) : spaces.front();
    if (row->flags & HasMbarrier && addresses.size() > 1) e.mbarrier = addresses.back();
    if (e.kind == EffectKind::AsyncCopy) {  // clusterlaunchcontrol.try_cancel: a destination only
      e.destination = e.address;
      e.destinationSpace = e.space;
    }
  } else if (e.kind == EffectKind::MbarrierArrive && e.proxy == Proxy::Async) {
    e.space = Space::SharedCta;
  }
  if (e.space == Space::SharedCluster &&
      (e.kind == EffectKind::MbarrierArrive || e.kind == EffectKind::MbarrierExpectTx))
    e.isRemote = true;
  return e;
}

std::string_view toString(EffectKind k) {
  static constexpr std::string_view names[] = {
      "none", "load", "store", "rmw", "fence", "proxy-fence", "mbarrier-init", "mbarrier-init-fence",
      "mbarrier-arrive", "mbarrier-expect-tx", "mbarrier-wait", "mbarrier-inval", "cta-barrier",
      "cta-barrier-arrive", "warp-sync", "async-copy", "async-commit", "async-wait", "wgmma-fence", "wgmma",
      "wgmma-commit", "wgmma-wait", "tcgen05", "call", "exit", "unknown", "tcgen05-load", "tcgen05-store",
      "tcgen05-wait-load", "tcgen05-wait-store", "tcgen05-fence-before", "tcgen05-fence-after", "tcgen05-alloc",
      "tcgen05-dealloc", "grid-dependency-wait"};
  auto i = static_cast<size_t>(k);
  return i < std::size(names) ? names[i] : "?";
}

std::string_view toString(Space s) {
  static constexpr std::string_view names[] = {"none",  "generic", "global", "shared::cta", "shared::cluster",
                                               "local", "const",   "param",  "tensor"};
  auto i = static_cast<size_t>(s);
  return i < std::size(names) ? names[i] : "?";
}

std::string_view toString(Semantics s) {
  static constexpr std::string_view names[] = {"none",    "weak",    "volatile", "relaxed",
                                               "acquire", "release", "acq_rel",  "sc"};
  auto i = static_cast<size_t>(s);
  return i < std::size(names) ? names[i] : "?";
}

std::string_view toString(Scope s) {
  static constexpr std::string_view names[] = {"none", "cta", "cluster", "gpu", "sys"};
  auto i = static_cast<size_t>(s);
  return i < std::size(names) ? names[i] : "?";
}

bool isWholeCtaBarrier(const ptx::Instruction& instruction, const MemoryEffect& effect) {
  if (effect.kind != EffectKind::CtaBarrier || effect.scope != Scope::Cta) return false;
  // bar.sync a / bar.red.op p, a, c: the thread count, when given, follows the id.
  const size_t operands = instruction.operands.size();
  const bool reduction = std::find(instruction.modifiers.begin(), instruction.modifiers.end(), "red") !=
                         instruction.modifiers.end();
  return reduction ? operands == 3 : operands == 1;
}

bool isVolatileStyleRead(const ptx::Instruction& instruction, const MemoryEffect& effect) {
  if (effect.kind != EffectKind::Load || !effect.reads || instruction.opcode != "ld") return false;
  if (effect.space != Space::Global && effect.space != Space::Generic) return false;
  if (instruction.hasModifier("nc")) return false;
  if (effect.semantics == Semantics::Volatile) return true;
  return effect.semantics == Semantics::Weak && (instruction.hasModifier("cg") || instruction.hasModifier("cv"));
}

}  // namespace fenceline::model
