// The memory analysis (see Memory.h): memory objects and byte ranges from
// the value analysis, the alias rules between them and copy extents (the
// matrix descriptors of wgmma / tcgen05 are decoded in MatrixDescriptors.cpp).
#include "model/Memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <numeric>
#include <limits>
#include <tuple>

#include "model/GuardedRanges.h"
#include "model/Operands.h"
#include "model/Paths.h"
#include "model/ValueIdentity.h"
#include "model/ValueAlgebra.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using BaseKind = AbstractValue::BaseKind;
using Kind = ptx::Operand::Kind;
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();


bool disjointSpaces(Space a, Space b) {
  auto concrete = [](Space s) { return s != Space::None && s != Space::Generic; };
  if (!concrete(a) || !concrete(b) || a == b) return false;
  if (isSharedSpace(a) && isSharedSpace(b)) return false;
  if (isGlobalSpace(a) && isGlobalSpace(b)) return false;
  return true;
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kUnbounded : std::numeric_limits<int64_t>::min();
  return r;
}

// The parameter a field object belongs to: "p+48" -> "p".
std::string_view paramOf(const std::string& name) {
  size_t plus = name.find('+');
  return plus == std::string::npos ? std::string_view(name) : std::string_view(name).substr(0, plus);
}

bool never(InstId) { return false; }

}  // namespace

std::string MemoryObject::toString() const {
  switch (kind) {
    case Kind::Unknown: return "unknown";
    case Kind::SharedSymbol: return "shared:" + name;
    case Kind::DynamicShared: return "dynamic-shared";
    case Kind::GlobalSymbol: return "global:" + name;
    case Kind::Param: return "param:" + name;
    case Kind::Loaded: return "loaded:" + name;
  }
  return "unknown";
}

std::string MemoryLocation::toString() const {
  std::string text = object.toString();
  if (bytes) {
    text += "[" + std::to_string(bytes->begin) + ", ";
    text += bytes->end == kUnbounded ? std::string("?") : std::to_string(bytes->end);
    text += ")";
  }
  return text;
}

MemoryAnalysis::MemoryAnalysis(const FunctionModel& fn) : fn_(fn) {}

namespace {

MemoryObject objectOfBase(const FunctionModel& fn, const AbstractValue& v, InstId at);

// A value that points into one of several objects: the object when they all
// map to one (two extern shared arrays are the one dynamic buffer), else the
// choice of them, when they are of one kind.
MemoryObject objectOfChoice(const FunctionModel& fn, const AbstractValue& v, InstId at) {
  std::vector<MemoryObject> choices;
  for (const auto& name : v.alternatives) {
    AbstractValue one = v;
    one.alternatives.clear();
    one.base = name;
    MemoryObject object = objectOfBase(fn, one, at);
    if (!object.known() || (!choices.empty() && object.kind != choices.front().kind)) return {};
    if (std::find(choices.begin(), choices.end(), object) == choices.end()) choices.push_back(object);
  }
  if (choices.empty()) return {};
  if (choices.size() == 1) return choices.front();
  std::sort(choices.begin(), choices.end());
  MemoryObject choice;
  choice.kind = choices.front().kind;
  choice.space = choices.front().space;
  for (const auto& c : choices) {
    choice.alternatives.push_back(c.name);
    choice.name += (choice.name.empty() ? "" : "|") + c.name;
  }
  return choice;
}

MemoryObject objectFromValue(const FunctionModel& fn, const AbstractValue& v, InstId at) {
  if (v.known && !v.alternatives.empty()) return objectOfChoice(fn, v, at);
  return objectOfBase(fn, v, at);
}

MemoryObject objectOfBase(const FunctionModel& fn, const AbstractValue& v, InstId at) {
  MemoryObject object;
  if (!v.known) return object;
  switch (v.baseKind) {
    case BaseKind::SharedSymbol: {
      const ptx::Variable* var = fn.values->variable(at, v.base);
      if (var && (var->isExtern || var->arraySize == 0)) {
        object.kind = MemoryObject::Kind::DynamicShared;
      } else {
        object.kind = MemoryObject::Kind::SharedSymbol;
        object.name = v.base;
      }
      object.space = Space::SharedCta;
      return object;
    }
    case BaseKind::GlobalSymbol:
      object.kind = MemoryObject::Kind::GlobalSymbol;
      object.name = v.base;
      object.space = v.space;
      return object;
    case BaseKind::Param:
      object.kind = MemoryObject::Kind::Param;
      object.name = v.base;
      object.space = v.space;
      return object;
    case BaseKind::Loaded:
      object.kind = MemoryObject::Kind::Loaded;
      object.name = v.base;
      return object;
    default:
      return object;
  }
}


// Every offset an affine value may take (its terms as independent bounded
// variables), when there are at most kMaxOffsets of them; sorted.
constexpr size_t kMaxOffsets = 1 << 14;

std::optional<std::vector<int64_t>> startOffsets(const AbstractValue& v) {
  if (!v.known || !v.offsetRange()) return std::nullopt;
  std::vector<int64_t> offsets{v.constant};
  for (const auto& t : v.terms) {
    const uint64_t count = static_cast<uint64_t>(t.high) - static_cast<uint64_t>(t.low) + 1;
    if (count == 0 || count > kMaxOffsets || offsets.size() * count > kMaxOffsets) return std::nullopt;
    std::vector<int64_t> next;
    next.reserve(offsets.size() * count);
    for (int64_t o : offsets)
      for (int64_t x = t.low; x <= t.high; ++x) next.push_back(o + t.coefficient * x);
    offsets = std::move(next);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

// Does some [a, a + sizeA) overlap some [b, b + sizeB)?
bool anyOverlap(const std::vector<int64_t>& a, int64_t sizeA, const std::vector<int64_t>& b, int64_t sizeB) {
  for (int64_t x : a) {
    // the first b with b + sizeB > x, i.e. b > x - sizeB
    auto it = std::upper_bound(b.begin(), b.end(), x - sizeB);
    if (it != b.end() && *it < x + sizeA) return true;
  }
  return false;
}

// A cluster special register: the rank of a CTA in its cluster, or one of
// its coordinates (a term's name is the register's).
bool isClusterRank(const AbstractValue::Term& t) {
  return t.name == "%cluster_ctarank" || t.name.starts_with("%cluster_ctaid.");
}

// A multicast copy's destination is one slice of a tile that every CTA of the
// cluster receives: base + S * stage + c * rank, the rank a cluster register.
// Without a declared cluster the rank is bounded only by the architecture's 16
// CTAs, so sixteen slices would reach far past the stage. But a stage holds
// its whole tile: slices of c bytes lie within the stage's S bytes, so the
// rank is below S / c. S is the smallest stride of another bounded index
// that is larger than c (the stage); with no such index nothing is narrowed.
void boundMulticastSlices(AbstractValue& destination) {
  int64_t stage = 0;
  for (const auto& t : destination.terms) {
    const int64_t stride = t.coefficient < 0 ? -t.coefficient : t.coefficient;
    if (!isClusterRank(t) && t.bounded() && t.high > t.low && (stage == 0 || stride < stage)) stage = stride;
  }
  if (stage == 0) return;
  for (auto& t : destination.terms) {
    const int64_t slice = t.coefficient < 0 ? -t.coefficient : t.coefficient;
    if (isClusterRank(t) && slice > 0 && slice < stage && t.low >= 0)
      t.high = std::min(t.high, std::max(t.low, stage / slice - 1));
  }
}

// The thread-index terms of an address, narrowed by the role branches that
// guard the instruction (model/GuardedRanges.h).
void narrowThreadIndices(const FunctionModel& fn, InstId at, AbstractValue& address) {
  static constexpr std::string_view kIndices[] = {"%tid.x", "%tid.y", "%tid.z", "%laneid"};
  for (auto& t : address.terms)
    if (t.bounded() && (std::find(std::begin(kIndices), std::end(kIndices), t.name) != std::end(kIndices) ||
                        isWarpIndexTerm(fn, t.name)))
      std::tie(t.low, t.high) = guardedRange(fn, at, t.name, {t.low, t.high});
}

}  // namespace

// Offsets too many to list, but on one stride (Memory.h). The terms are
// split by the size of their coefficient: the large ones (and every
// unbounded one) contribute multiples of their gcd g, the small bounded ones
// an interval. a - b is then d + g * m, d in [dLo, dHi], and the ranges
// meet iff some such value lies in (-sizeA, sizeB): iff a multiple of g lies
// in (-sizeA - dHi, sizeB - dLo). Every split is sound; the accesses are
// apart if one split proves it (a record index times the record's size with
// a bounded field offset inside: `3104 * g + 4 * i`, i in [0, 767], against
// `3104 * g' + 3080`). `foldBounded` false: the one split with every term
// in the gcd.
namespace {
bool apartBySplits(const AbstractValue& a, int64_t sizeA, const AbstractValue& b, int64_t sizeB, bool foldBounded) {
  if (!a.known || !b.known || sizeA <= 0 || sizeB <= 0) return false;
  auto magnitude = [](int64_t c) { return c < 0 ? ~static_cast<uint64_t>(c) + 1 : static_cast<uint64_t>(c); };
  // Candidate splits: fold the bounded terms whose coefficient is below a
  // threshold: none, those below each coefficient, all of them.
  std::vector<uint64_t> thresholds{0};
  if (foldBounded) {
    thresholds.push_back(UINT64_MAX);
    for (const auto* v : {&a, &b})
      for (const auto& t : v->terms) thresholds.push_back(magnitude(t.coefficient));
  }
  std::sort(thresholds.begin(), thresholds.end());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
  for (uint64_t threshold : thresholds) {
    uint64_t g = 0;
    __int128 foldLow[2] = {0, 0}, foldHigh[2] = {0, 0};
    bool anyFolded = false;
    int side = 0;
    for (const auto* v : {&a, &b}) {
      for (const auto& t : v->terms) {
        const uint64_t c = magnitude(t.coefficient);
        if (!t.bounded() || c >= threshold) {
          g = std::gcd(g, c);
          continue;
        }
        const __int128 x = __int128(t.coefficient) * t.low, y = __int128(t.coefficient) * t.high;
        foldLow[side] += std::min(x, y);
        foldHigh[side] += std::max(x, y);
        anyFolded = true;
      }
      ++side;
    }
    if (threshold != 0 && !anyFolded) continue;  // the same split as no folding
    if (g > (uint64_t(1) << 62)) continue;
    const __int128 k = __int128(a.constant) - b.constant;
    const __int128 dLo = k + foldLow[0] - foldHigh[1], dHi = k + foldHigh[0] - foldLow[1];
    const __int128 lo = -__int128(sizeA) - dHi + 1, hi = __int128(sizeB) - dLo - 1;  // closed
    if (lo > hi) return true;
    bool meet;
    if (g == 0) {
      meet = lo <= 0 && 0 <= hi;
    } else {
      const __int128 stride = g;
      __int128 below = hi >= 0 ? hi / stride : -((-hi + stride - 1) / stride);  // floor(hi / g)
      meet = below * stride >= lo;
    }
    if (!meet) return true;
  }
  return false;
}
}  // namespace

bool apartByStride(const AbstractValue& a, int64_t sizeA, const AbstractValue& b, int64_t sizeB) {
  return apartBySplits(a, sizeA, b, sizeB, /*foldBounded=*/false);
}

bool apartByStrideAndRange(const AbstractValue& a, int64_t sizeA, const AbstractValue& b, int64_t sizeB) {
  return apartBySplits(a, sizeA, b, sizeB, /*foldBounded=*/true);
}

struct MemoryAnalysis::OperandFacts {
  AbstractValue value;
  MemoryLocation location;  // bytes not set: they depend on the size asked for
  int64_t accessSize = -1;
  mutable std::optional<MemoryLocation> ownSize;  // location(inst, operand, 0), once asked
  // startOffsets(value), computed when an alias question first needs it
  // (most accesses are only asked for their object and size).
  const std::optional<std::vector<int64_t>>& starts() const {
    if (!startsComputed) {
      startsCache = startOffsets(value);
      startsComputed = true;
    }
    return startsCache;
  }

 private:
  mutable bool startsComputed = false;
  mutable std::optional<std::vector<int64_t>> startsCache;
};

struct MemoryAnalysis::FactsStore {
  std::deque<OperandFacts> facts;
};

MemoryAnalysis::~MemoryAnalysis() = default;

const MemoryAnalysis::OperandFacts& MemoryAnalysis::facts(InstId inst, int operand) const {
  const uint64_t key = (uint64_t(uint32_t(inst)) << 8) | uint8_t(operand);
  if (!facts_) facts_ = std::make_unique<FactsStore>();
  if (const uint32_t* known = factsIndex_.find(key)) return facts_->facts[*known];
  // Numbered before it is filled in, as a question asked again while it is
  // computed finds it (the map's slot did so before).
  factsIndex_.insert(key, static_cast<uint32_t>(facts_->facts.size()));
  OperandFacts& f = facts_->facts.emplace_back();
  if (!fn_.values || inst < 0 || static_cast<size_t>(inst) >= fn_.instructions.size() || operand < 0 ||
      static_cast<size_t>(operand) >= fn_.instructions[inst].operands.size())
    return f;
  f.value = fn_.values->operandValue(inst, operand);
  narrowThreadIndices(fn_, inst, f.value);
  const Inst& instruction = fn_.instructions[inst];
  if (instruction.hasModifier("multicast::cluster") && operand == instruction.effect.destination)
    boundMulticastSlices(f.value);
  f.accessSize = computeAccessSize(inst, operand);
  f.location.object = objectFromValue(fn_, f.value, inst);
  f.location.space = space(inst, operand);
  if (fn_.instructions[inst].operands[operand].kind == Kind::Address)
    f.location.address = fn_.values->identity(inst, operand);
  return f;
}

const AbstractValue& MemoryAnalysis::narrowedValue(InstId inst, int operand) const { return facts(inst, operand).value; }

AbstractValue MemoryAnalysis::narrowedAt(InstId at, AbstractValue value) const {
  narrowThreadIndices(fn_, at, value);
  return value;
}

const MemoryLocation& MemoryAnalysis::accessLocation(InstId inst, int operand) const {
  const OperandFacts& f = facts(inst, operand);
  if (!f.ownSize) f.ownSize = location(inst, operand, 0);
  return *f.ownSize;
}

MemoryLocation MemoryAnalysis::location(InstId inst, int operand, int64_t size) const {
  const OperandFacts& f = facts(inst, operand);
  MemoryLocation loc = f.location;
  const int64_t bytes = size == 0 ? f.accessSize : size;
  if (auto range = f.value.offsetRange(); range && loc.object.known()) {
    // A load or store is naturally aligned (the PTX ISA requires the address
    // of an access to be a multiple of its size), and its object's start is
    // at least that aligned: its first and last start offsets round to that
    // multiple (a swizzled 16-byte store whose offset the analysis bounds by
    // its bits alone ends at the buffer's end, not 15 bytes past it).
    int64_t first = range->first, last = range->second;
    const int64_t natural = f.accessSize;
    const EffectKind kind = fn_.instructions[inst].effect.kind;
    if ((kind == EffectKind::Load || kind == EffectKind::Store) && natural > 1 && natural <= 16 &&
        (natural & (natural - 1)) == 0 && (bytes == natural)) {
      first = (first + natural - 1) / natural * natural;
      last = last >= 0 ? last / natural * natural : -((-last + natural - 1) / natural * natural);
      if (last < first) last = first;
    }
    loc.bytes = ByteRange{first, bytes > 0 ? saturatingAdd(last, bytes) : kUnbounded};
    loc.lastStart = last;
  }
  return loc;
}

namespace {

// A copy into a stage ring: its destination advances by `stride` bytes per
// stage (base + stride * s, s taking two values or more), or per slice of a
// multicast tile (base + slice * rank). The copies a ring's stages (or a
// tile's slices) receive do not overlap, so one copy writes at most the
// smallest such stride: a tighter bound than an expect_tx count shared by
// several copies (A and B tiles completing on one barrier). 0 when the
// destination has no such index.
int64_t ringStride(const AbstractValue& destination) {
  if (!destination.known) return 0;
  int64_t smallest = 0;
  for (const auto& t : destination.terms) {
    if (!t.bounded() || t.high <= t.low) continue;
    int64_t stride = t.coefficient < 0 ? -t.coefficient : t.coefficient;
    if (stride >= 16 && (smallest == 0 || stride < smallest)) smallest = stride;
  }
  return smallest;
}

}  // namespace

int64_t MemoryAnalysis::copyExtent(InstId copy, int operand) const {
  int64_t extent = copyExtent(copy);
  if (!fn_.values || operand < 0 || !fn_.instructions[copy].hasModifier("tensor")) return extent;
  if (int64_t stride = ringStride(facts(copy, operand).value)) {
    extent = extent > 0 ? std::min(extent, stride) : stride;
    if (int64_t siblings = stageSiblingBound(copy, operand, stride); siblings > 0) extent = std::min(extent, siblings);
  } else if (int64_t gap = unrolledRingGap(copy, operand); gap > 0) {
    extent = extent > 0 ? std::min(extent, gap) : gap;
  }
  return extent;
}

namespace {

// Same object and the same index terms (names and coefficients): two
// addresses a constant apart.
bool sameIndexTerms(const AbstractValue& a, const AbstractValue& b) {
  if (a.baseKind != b.baseKind || a.base != b.base || a.terms.size() != b.terms.size()) return false;
  for (size_t i = 0; i < a.terms.size(); ++i)
    if (a.terms[i].name != b.terms[i].name || a.terms[i].coefficient != b.terms[i].coefficient) return false;
  return true;
}

}  // namespace

// The copies that fill one stage with this one: tensor copies into the same
// object with the same index terms, less than a stride apart. The stage opens
// at the first of them, so this copy ends before the next one starts and
// within `stride` bytes of the first. -1 when it has no such sibling.
const std::vector<InstId>& MemoryAnalysis::tensorCopies() const {
  if (!tensorCopies_) {
    tensorCopies_.emplace();
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i)
      if (fn_.instructions[i].effect.kind == EffectKind::AsyncCopy && fn_.instructions[i].hasModifier("tensor") &&
          fn_.instructions[i].effect.destination >= 0)
        tensorCopies_->push_back(i);
  }
  return *tensorCopies_;
}

int64_t MemoryAnalysis::stageSiblingBound(InstId copy, int operand, int64_t stride) const {
  if (operand != fn_.instructions[copy].effect.destination) return -1;
  const AbstractValue& own = facts(copy, operand).value;
  if (!own.known || !own.hasBase()) return -1;
  int64_t first = own.constant, next = INT64_MAX;
  bool sibling = false;
  for (InstId other : tensorCopies()) {
    if (other == copy) continue;
    const AbstractValue& v = facts(other, fn_.instructions[other].effect.destination).value;
    if (!v.known || !sameIndexTerms(own, v) || v.constant == own.constant) continue;
    const int64_t distance = v.constant - own.constant;
    if (distance >= stride || distance <= -stride) continue;
    sibling = true;
    if (distance > 0) next = std::min(next, v.constant);
    first = std::min(first, v.constant);
  }
  if (!sibling) return -1;
  return std::min(next == INT64_MAX ? INT64_MAX : next - own.constant, first + stride - own.constant);
}

// A ring whose stages the compiler unrolled: tensor copies through one
// tensor map (so with one box size) into one object at constant distances
// (CUTLASS's epilogue loads C into stages smem + 4096 * k, k = 0..7, each copy
// at its own constant address). The stages do not overlap, so no copy writes
// more than the smallest distance between two of them: a bound where the
// expect_tx count is a run-time value. -1 when the copy has no such sibling.
int64_t MemoryAnalysis::unrolledRingGap(InstId copy, int operand) const {
  const Inst& in = fn_.instructions[copy];
  if (operand != in.effect.destination || in.operands.size() < 2 || in.operands[1].kind != Kind::Address) return -1;
  const AbstractValue& own = facts(copy, operand).value;
  if (!own.known || !own.hasBase()) return -1;
  int64_t gap = INT64_MAX;
  for (InstId other : tensorCopies()) {
    const Inst& o = fn_.instructions[other];
    if (other == copy || o.operands.size() < 2 || o.operands[1].kind != Kind::Address ||
        !std::ranges::equal(o.syntax->modifiers, in.syntax->modifiers) || !fn_.values->sameValue(copy, 1, other, 1))
      continue;
    const AbstractValue& v = facts(other, o.effect.destination).value;
    if (!v.known || !sameIndexTerms(own, v) || v.constant == own.constant) continue;
    gap = std::min(gap, v.constant > own.constant ? v.constant - own.constant : own.constant - v.constant);
  }
  return gap == INT64_MAX ? -1 : gap;
}

MemoryLocation MemoryAnalysis::copyDestination(InstId copy) const {
  const MemoryEffect& e = fn_.instructions[copy].effect;
  return location(copy, e.destination, copyExtent(copy, e.destination));
}

MemoryLocation MemoryAnalysis::copySource(InstId copy) const {
  const MemoryEffect& e = fn_.instructions[copy].effect;
  return location(copy, e.source, copyExtent(copy, e.source));
}

namespace {

// The single objects a (possibly chosen) object may be.
std::vector<MemoryObject> choicesOf(const MemoryObject& object) {
  if (object.alternatives.empty()) return {object};
  std::vector<MemoryObject> out;
  for (const auto& name : object.alternatives) {
    MemoryObject one = object;
    one.alternatives.clear();
    one.name = name;
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace

AliasResult MemoryAnalysis::alias(const MemoryLocation& a, const MemoryLocation& b) const {
  if (a.address >= 0 && a.address == b.address) return AliasResult::Must;
  if (disjointSpaces(a.space, b.space)) return AliasResult::No;
  // A choice of objects: disjoint only when every choice is.
  if (!a.object.alternatives.empty() || !b.object.alternatives.empty()) {
    for (const MemoryObject& x : choicesOf(a.object))
      for (const MemoryObject& y : choicesOf(b.object)) {
        MemoryLocation la = a, lb = b;
        la.object = x;
        lb.object = y;
        la.address = lb.address = -1;
        if (alias(la, lb) != AliasResult::No) return AliasResult::May;
      }
    return AliasResult::No;
  }
  using K = MemoryObject::Kind;
  const bool kernel = fn_.function && fn_.function->isEntry;
  auto isNamedMemory = [](K k) { return k == K::SharedSymbol || k == K::DynamicShared || k == K::GlobalSymbol; };
  auto isSharedObject = [](K k) { return k == K::SharedSymbol || k == K::DynamicShared; };
  if (!a.object.known() || !b.object.known()) return AliasResult::May;
  if (!(a.object == b.object)) {
    // Different named variables never overlap.
    if (isNamedMemory(a.object.kind) && isNamedMemory(b.object.kind)) return AliasResult::No;
    // A kernel's parameters point to global memory, never into shared memory.
    if (kernel && ((a.object.kind == K::Param && isSharedObject(b.object.kind)) ||
                   (b.object.kind == K::Param && isSharedObject(a.object.kind))))
      return AliasResult::No;
    // Different fields of one by-value struct parameter are different pointers.
    if (a.object.kind == K::Param && b.object.kind == K::Param && paramOf(a.object.name) == paramOf(b.object.name))
      return AliasResult::No;
    // Pointers read from different addresses (different fields, different
    // table entries) are different objects unless something says otherwise.
    if (a.object.kind == K::Loaded && b.object.kind == K::Loaded)
      return readFromLocalMemory(a.object) || readFromLocalMemory(b.object) || slotsMayCoincide(a.object, b.object)
                 ? AliasResult::May
                 : AliasResult::No;
    return AliasResult::May;
  }
  if (a.bytes && b.bytes && !a.bytes->overlaps(*b.bytes)) return AliasResult::No;
  return AliasResult::May;
}

namespace {

// An object that is one buffer: a pointer parameter (or a field of a
// by-value struct), a pointer read from memory, a global variable, a static
// __shared__ variable. Not the dynamic shared buffer, which kernels carve
// into many buffers (an allocator, a shared-storage struct).
bool isOneBuffer(const MemoryObject& object) {
  using K = MemoryObject::Kind;
  return object.kind == K::Param || object.kind == K::Loaded || object.kind == K::SharedSymbol ||
         (object.kind == K::GlobalSymbol && object.space == Space::Global);
}

}  // namespace

AliasEvidence MemoryAnalysis::aliasEvidence(const MemoryLocation& a, const MemoryLocation& b, bool withDetail) const {
  AliasEvidence e;
  e.result = alias(a, b);
  if (e.result == AliasResult::No) {
    e.decided = true;
    e.how = "disjoint";
    return e;
  }
  if (e.result == AliasResult::Must) {
    e.decided = true;
    e.how = "must-alias";
    if (withDetail) e.detail = fmt::format("both use the same address ({})", a.toString());
    return e;
  }
  auto bounded = [](const MemoryLocation& l) { return l.bytes && l.bytes->end != kUnbounded; };
  // The same object, and a reason its bytes meet: both ranges bounded and
  // overlapping; one side spans the whole object; or one side starts at one
  // fixed offset (its size unknown) inside the other's bounded range.
  auto meet = [&](const MemoryLocation& x, const MemoryLocation& y) -> std::string {
    if (bounded(x) && bounded(y)) return x.bytes->overlaps(*y.bytes) ? "same-object" : "";
    const int64_t size = objectSize(x.object);
    if (size > 0 && bounded(x) && x.bytes->begin <= 0 && x.bytes->end >= size) return "covers-object";
    if (x.bytes && x.bytes->end == kUnbounded && x.lastStart == x.bytes->begin && bounded(y) &&
        y.bytes->begin <= x.bytes->begin && x.bytes->begin < y.bytes->end)
      return "same-object";
    return "";
  };
  if (!a.object.known() || !b.object.known()) {
    e.how = "unknown-pointer";
    if (withDetail)
      e.detail = fmt::format("the memory of {} could not be traced to a named object",
                           !a.object.known() && !b.object.known() ? "both sides" : "one side");
  } else if (!a.object.alternatives.empty() || !b.object.alternatives.empty()) {
    e.how = "one-of-several-objects";
    if (withDetail)
      e.detail = fmt::format("{} and {}: one of several objects, chosen at run time", a.toString(), b.toString());
  } else if (!(a.object == b.object)) {
    e.how = "distinct-pointers";
    if (withDetail)
      e.detail = fmt::format("{} and {} are different pointers that may or may not point to one buffer",
                           a.object.toString(), b.object.toString());
  } else if (std::string how = meet(a, b).empty() ? meet(b, a) : meet(a, b); !how.empty()) {
    e.decided = true;
    e.how = how;
    if (withDetail)
      e.detail = how == "covers-object"
                   ? fmt::format("both touch {}, one of them all of it ({} and {})", a.object.toString(), a.toString(),
                                 b.toString())
                   : fmt::format("both touch {}: {} and {} overlap", a.object.toString(), a.toString(), b.toString());
  } else if (isOneBuffer(a.object)) {
    // A pointer (a parameter, one read from memory, a global or static
    // shared variable) names one buffer: accesses through it at offsets not
    // provably apart meet. Not so for the dynamic shared buffer.
    e.decided = true;
    e.how = "same-buffer";
    if (withDetail) e.detail = fmt::format("both go through {}, at offsets not provably apart", a.object.toString());
  } else {
    e.how = "unbounded-index";
    if (withDetail)
      e.detail = fmt::format("both are in {}, at offsets the analysis cannot bound ({} and {})", a.object.toString(),
                           a.toString(), b.toString());
  }
  return e;
}

bool MemoryAnalysis::mappedToAnotherCta(InstId inst, int operand) const {
  if (!fn_.values || inst < 0 || operand < 0 || static_cast<size_t>(operand) >= fn_.instructions[inst].operands.size())
    return false;
  const ptx::Operand& op = fn_.instructions[inst].operands[operand];
  ValueReg reg = op.valueRegister();
  InstId at = inst;
  // Back through the moves, conversions and additions that carry the address.
  for (int step = 0; step < 16 && reg >= 0; ++step) {
    const InstId def = fn_.values->definition(reg, at);
    if (def < 0) return false;
    const Inst& d = fn_.instructions[def];
    if (d.opcode() == "mapa") return !fn_.values->isSpecialRegister(def, 2, "%cluster_ctarank");
    static constexpr std::string_view kCarriers[] = {"mov", "cvta", "cvt", "add", "sub", "and", "or"};
    if (std::find(std::begin(kCarriers), std::end(kCarriers), d.opcode()) == std::end(kCarriers)) return false;
    reg = -1;
    for (size_t k = 1; k < d.operands.size() && reg < 0; ++k)
      if (d.operands[k].kind == ptx::Operand::Kind::Register && fn_.registerTypes[d.operands[k].reg].find("64") !=
                                                                     std::string::npos)
        reg = d.operands[k].reg;
    if (reg < 0)
      for (size_t k = 1; k < d.operands.size() && reg < 0; ++k)
        if (d.operands[k].kind == ptx::Operand::Kind::Register) reg = d.operands[k].reg;
    at = def;
  }
  return false;
}

namespace {

// The smallest stride of a page selector: 4096 bytes, a page. Memory is
// mapped and carved into objects in units of at least a page (the CPU's and
// NCCL's symmetric heap's 4 KiB pages; CUDA's VMM maps in 2 MiB granules), so a
// stride of a page or more over an unknown value selects a region that may be
// an object of its own. Below a page a stride is an element or a record of one
// array, whose entries at different indices are the ordinary "same-buffer"
// case (`flags[i]` and `flags[j]`, `records[i].f` and `records[j].f`).
constexpr int64_t kPageBytes = 4096;

// The page selectors of an offset: its terms of stride at least a page over a
// value the analysis cannot bound (a kernel parameter, a value read from
// memory). A bounded index (a thread or block index, a stage counter) is not
// one: its values are known, and the offsets compare by them.
std::vector<AbstractValue::Term> pageSelectors(const AbstractValue& v) {
  std::vector<AbstractValue::Term> out;
  for (const auto& t : v.terms)
    if (!t.bounded() && (t.coefficient >= kPageBytes || t.coefficient <= -kPageBytes)) out.push_back(t);
  return out;  // sorted by name, as the terms are
}

// Two offsets into one buffer that both select pages, by different terms (a
// term is one value: the same name on both sides is the same parameter, the
// same loaded value): each side may be in a page the other never touches,
// or in the same one, as the unknown values fall.
bool pageSelectorsDiffer(const AbstractValue& a, const AbstractValue& b) {
  if (!a.known || !b.known) return false;
  const auto sa = pageSelectors(a), sb = pageSelectors(b);
  if (sa.empty() || sb.empty()) return false;
  auto same = [](const AbstractValue::Term& x, const AbstractValue::Term& y) {
    return x.name == y.name && x.coefficient == y.coefficient;
  };
  return !std::ranges::equal(sa, sb, same);
}

std::string selectorsText(const AbstractValue& v) {
  std::string text;
  for (const auto& t : pageSelectors(v))
    text += fmt::format("{}{} * {}", text.empty() ? "" : " + ", t.coefficient, t.name);
  return text;
}

}  // namespace

// The rule (docs/real-code.md, "page selectors"): an arena carved into objects
// at page-scaled offsets (NCCL's symmetric heap: a barrier's counters at
// `heap + 4096 * param.page`, a user's window at `heap + 4096 * window->page`)
// shows one base for all its objects. "One pointer names one buffer" is then a
// presumption: the two accesses meet only if the two unknown values select
// the same page, which the PTX does not say. Accesses through the same
// selector, or at offsets provably related (constant apart, bounded indices),
// keep their answer.
void MemoryAnalysis::undecidePageSelectors(AliasEvidence& e, InstId a, int oa, InstId b, int ob,
                                           bool withDetail) const {
  if (!e.decided || e.how != "same-buffer") return;
  const AbstractValue &va = facts(a, oa).value, &vb = facts(b, ob).value;
  if (!pageSelectorsDiffer(va, vb)) return;
  e.decided = false;
  e.how = "page-selectors";
  if (withDetail)
    e.detail = fmt::format("both go through {}, at pages selected by different values ({} and {}): one object of "
                           "an arena or two, as those values fall",
                           facts(a, oa).location.object.toString(), selectorsText(va), selectorsText(vb));
}

AliasEvidence MemoryAnalysis::aliasEvidence(InstId a, int oa, int64_t sizeA, InstId b, int ob, int64_t sizeB,
                                            bool barriers, bool withDetail) const {
  std::optional<MemoryLocation> ownA, ownB;  // only for sizes other than the access's own
  if (sizeA != 0) ownA = location(a, oa, sizeA);
  if (sizeB != 0) ownB = location(b, ob, sizeB);
  const MemoryLocation& la = ownA ? *ownA : accessLocation(a, oa);
  const MemoryLocation& lb = ownB ? *ownB : accessLocation(b, ob);
  AliasEvidence e = aliasEvidence(la, lb, withDetail);
  undecidePageSelectors(e, a, oa, b, ob, withDetail);
  if (!barriers && e.decided && e.result != AliasResult::No && mappedToAnotherCta(a, oa) != mappedToAnotherCta(b, ob)) {
    e.decided = false;
    e.how = "another-cta";
    if (withDetail)
      e.detail = "one address is mapped to a CTA of the cluster (mapa): it may be another CTA's shared memory";
    return e;
  }
  if (e.decided || e.how != "unbounded-index") return e;
  const AbstractValue &va = facts(a, oa).value, &vb = facts(b, ob).value;
  if (!va.known || !vb.known || va.terms.empty() || vb.terms.empty()) return e;
  std::vector<int64_t> ca, cb;
  for (const auto& t : va.terms) ca.push_back(t.coefficient);
  for (const auto& t : vb.terms) cb.push_back(t.coefficient);
  std::sort(ca.begin(), ca.end());
  std::sort(cb.begin(), cb.end());
  if (va.constant == vb.constant && ca == cb) {
    e.decided = true;
    e.how = "same-array";
    if (withDetail)
      e.detail = fmt::format("both are entries of one array in {} ({} and {}), at indices that take the same values",
                           la.object.toString(), va.toString(), vb.toString());
    return e;
  }
  // Two addresses into the stages of one ring: the same largest stride S on
  // a stage index (a loop counter or a value computed from one), every other
  // coefficient below S, and each side's extent within a stage. A ring's
  // stage index takes every value, so the stage one side touches is the
  // other's on some round ("same-ring-stage").
  auto largest = [](const AbstractValue& v) {
    int64_t s = 0;
    for (const auto& t : v.terms) s = std::max(s, std::abs(t.coefficient));
    return s;
  };
  auto subStage = [](const AbstractValue& v, int64_t stride) {
    return std::all_of(v.terms.begin(), v.terms.end(),
                       [&](const AbstractValue::Term& t) { return std::abs(t.coefficient) <= stride; });
  };
  const int64_t stride = largest(va);
  const int64_t extentA = sizeA > 0 ? sizeA : facts(a, oa).accessSize, extentB = sizeB > 0 ? sizeB : facts(b, ob).accessSize;
  if (stride >= 512 && stride == largest(vb) && subStage(va, stride) && subStage(vb, stride) && extentA > 0 &&
      extentB > 0 && extentA <= stride && extentB <= stride) {
    e.decided = true;
    e.how = "same-ring-stage";
    if (withDetail)
      e.detail = fmt::format("both address the stages of one ring in {} (stride {}): {} and {}", la.object.toString(),
                           stride, va.toString(), vb.toString());
  }
  return e;
}

int64_t MemoryAnalysis::objectSize(const MemoryObject& object) const {
  using K = MemoryObject::Kind;
  if ((object.kind != K::SharedSymbol && object.kind != K::GlobalSymbol) || !fn_.module) return -1;
  auto sizeOf = [&](const ptx::Variable& v) -> int64_t {
    // .b8 / .u16 / .f32 / .b64 ...: the digits of the type give its bits.
    size_t digits = v.type.find_first_of("0123456789");
    if (digits == std::string::npos || v.arraySize <= 0) return -1;
    const int64_t bits = std::stoll(v.type.substr(digits));
    return bits % 8 == 0 ? v.arraySize * (bits / 8) : -1;
  };
  for (const auto& v : fn_.module->globals)
    if (v.name == object.name) return sizeOf(v);
  if (fn_.function)
    for (const auto& v : fn_.function->locals)
      if (v.name == object.name) return sizeOf(v);
  return -1;
}

// What says otherwise, first: the pointer was read from the thread's own
// local memory (a local array of pointers indexed at run time,
// `comm.data_bufs[rank]`): it is one of the pointers the kernel stored
// there, which may be any other.
bool MemoryAnalysis::readFromLocalMemory(const MemoryObject& loaded) const {
  if (!fn_.values) return false;
  const InstId load = fn_.values->pointerLoad(loaded.name);
  return load >= 0 && fn_.instructions[load].effect.space == Space::Local;
}

// Or the two slots the pointers were read from may be one
// word, on bounded evidence: both slot addresses have bounded offsets into
// one object and the analysis cannot keep them apart (`boxes[blockIdx.x].f`
// and `boxes[0].f`: blockIdx.x may be 0). Slots indexed by values it knows
// nothing of (`ptrs[peer]`, `ptrs[rank]`, two parameters) stay apart, by the
// rule above.
bool MemoryAnalysis::slotsMayCoincide(const MemoryObject& a, const MemoryObject& b) const {
  if (!fn_.values || slotDepth_ > kMaxSlotDepth) return false;
  const InstId la = fn_.values->pointerLoad(a.name), lb = fn_.values->pointerLoad(b.name);
  if (la < 0 || lb < 0) return false;
  const int oa = fn_.instructions[la].effect.address, ob = fn_.instructions[lb].effect.address;
  const MemoryLocation &sa = accessLocation(la, oa), &sb = accessLocation(lb, ob);
  if (!sa.bytes || !sb.bytes || sa.bytes->end == kUnbounded || sb.bytes->end == kUnbounded) return false;
  ++slotDepth_;
  const bool coincide = alias(la, oa, lb, ob) != AliasResult::No;
  --slotDepth_;
  return coincide;
}

AliasResult MemoryAnalysis::alias(InstId a, int oa, InstId b, int ob) const { return alias(a, oa, 0, b, ob, 0); }

AliasResult MemoryAnalysis::alias(InstId a, int oa, int64_t sizeA, InstId b, int ob, int64_t sizeB) const {
  std::optional<MemoryLocation> ownA, ownB;  // only for sizes other than the access's own
  if (sizeA != 0) ownA = location(a, oa, sizeA);
  if (sizeB != 0) ownB = location(b, ob, sizeB);
  const MemoryLocation& la = ownA ? *ownA : accessLocation(a, oa);
  const MemoryLocation& lb = ownB ? *ownB : accessLocation(b, ob);
  AliasResult result = alias(la, lb);
  if (result != AliasResult::May || !(la.object == lb.object)) return result;
  // Same object, both offsets bounded: compare the exact sets of start
  // offsets (a stage ring's accesses are strided: `8448 * s + 8192` never
  // falls inside `[8448 * s', 8448 * s' + 8192)`). Each term is an
  // independent variable: the accesses may be made by different threads or
  // on different trips of a loop.
  const OperandFacts &fa = facts(a, oa), &fb = facts(b, ob);
  const int64_t bytesA = sizeA == 0 ? fa.accessSize : sizeA, bytesB = sizeB == 0 ? fb.accessSize : sizeB;
  return offsetsApart(fa, bytesA, fb, bytesB) ? AliasResult::No : result;
}

bool MemoryAnalysis::offsetsApart(InstId a, int oa, InstId b, int ob) const {
  const OperandFacts &fa = facts(a, oa), &fb = facts(b, ob);
  return offsetsApart(fa, fa.accessSize, fb, fb.accessSize);
}

bool MemoryAnalysis::offsetsApart(const OperandFacts& fa, int64_t bytesA, const OperandFacts& fb, int64_t bytesB) const {
  if (bytesA <= 0 || bytesB <= 0) return false;
  if (fa.starts() && fb.starts()) return !anyOverlap(*fa.starts(), bytesA, *fb.starts(), bytesB);
  return apartByStrideAndRange(fa.value, bytesA, fb.value, bytesB) ||
         apartBeyondTheGrid(fa.value, bytesA, fb.value, bytesB) || apartBeyondTheGrid(fb.value, bytesB, fa.value, bytesA);
}

// The integer kernel parameters that index an array alone: some access of
// the function is at base + k * p + c with k its own size (`ptrs[rank]`, an
// 8-byte load at base + 8 * rank; `ptrs[8 + rank]`). They are taken to be
// valid indices, so never negative: an assumption about the host
// (docs/checks/release-missing.md); nothing in the PTX bounds a rank. An
// index that is a sum (`flags[8 * s + rank]`) says nothing of its parts.
const std::vector<std::string>& MemoryAnalysis::arrayIndexParameters() const {
  if (arrayIndexParameters_) return *arrayIndexParameters_;
  arrayIndexParameters_.emplace();
  if (!fn_.values || !fn_.function || !fn_.function->isEntry) return *arrayIndexParameters_;
  for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i) {
    const MemoryEffect& e = fn_.instructions[i].effect;
    if (e.address < 0 || (e.kind != EffectKind::Load && e.kind != EffectKind::Store)) continue;
    const AbstractValue v = fn_.values->operandValue(i, e.address);
    if (!v.known || !v.hasBase()) continue;
    const int64_t size = computeAccessSize(i, e.address);
    if (v.terms.size() == 1 && v.terms[0].name.starts_with("param:") && size > 0 && v.terms[0].coefficient == size)
      arrayIndexParameters_->push_back(v.terms[0].name);
  }
  auto& names = *arrayIndexParameters_;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Offsets across the grid: a = k * s + ra with s at least %nctaid.x (the
// slots of the blocks not in this launch, Values::atLeastGridSize) and
// b = k * %ctaid.x + rb: s exceeds every block's index, so a - b is at least
// k + min(ra) - max(rb), and a starts after b ends when that is sizeB or
// more. Each side's other terms are independent; an array-index parameter
// counts as non-negative (arrayIndexParameters).
bool MemoryAnalysis::apartBeyondTheGrid(const AbstractValue& a, int64_t, const AbstractValue& b, int64_t sizeB) const {
  if (!fn_.values || !a.known || !b.known) return false;
  const std::vector<std::string>* indices = nullptr;
  auto lowOf = [&](const AbstractValue::Term& t) {
    int64_t low = t.low;
    if (low < 0 && t.name.starts_with("param:")) {
      if (!indices) indices = &arrayIndexParameters();
      if (std::binary_search(indices->begin(), indices->end(), t.name)) low = 0;
    }
    return low;
  };
  // min (or max) of constant + sum(terms) over every term but `skip`.
  auto bound = [&](const AbstractValue& v, size_t skip, bool lowest) -> std::optional<__int128> {
    __int128 sum = v.constant;
    for (size_t k = 0; k < v.terms.size(); ++k) {
      if (k == skip) continue;
      const auto& t = v.terms[k];
      const bool useLow = (t.coefficient > 0) == lowest;
      const int64_t end = useLow ? lowOf(t) : t.high;
      if (end == INT64_MIN || end == INT64_MAX) return std::nullopt;
      sum += __int128(t.coefficient) * end;
    }
    return sum;
  };
  for (char dim : {'x', 'y', 'z'}) {
    const std::string block = std::string("%ctaid.") + dim;
    for (size_t j = 0; j < b.terms.size(); ++j) {
      if (b.terms[j].name != block || b.terms[j].coefficient <= 0) continue;
      const int64_t k = b.terms[j].coefficient;
      for (size_t i = 0; i < a.terms.size(); ++i) {
        if (a.terms[i].coefficient != k || !fn_.values->atLeastGridSize(a.terms[i].name, dim)) continue;
        const auto lowA = bound(a, i, true), highB = bound(b, j, false);
        if (lowA && highB && __int128(k) + *lowA >= *highB + sizeB) return true;
      }
    }
  }
  return false;
}

bool MemoryAnalysis::copyMayBeginAt(InstId copy, InstId access, int accessOperand) const {
  const int destination = fn_.instructions[copy].effect.destination;
  if (destination < 0 || accessOperand < 0) return false;
  const OperandFacts &c = facts(copy, destination), &a = facts(access, accessOperand);
  if (!c.location.object.known() || !(c.location.object == a.location.object)) return false;
  const auto &accessStarts = a.starts(), &copyStarts = c.starts();
  if (!accessStarts || accessStarts->size() != 1 || !copyStarts) return false;
  return std::binary_search(copyStarts->begin(), copyStarts->end(), accessStarts->front());
}

bool MemoryAnalysis::sameWord(InstId a, InstId b) const {
  int oa = fn_.instructions[a].effect.address, ob = fn_.instructions[b].effect.address;
  if (oa < 0 || ob < 0 || !fn_.values) return false;
  return fn_.values->identityEngine().sameAddress(a, b);
}

const MemoryObject& MemoryAnalysis::objectOf(InstId inst, int operand) const {
  static const MemoryObject kUnknown;
  if (!fn_.values) return kUnknown;
  const uint64_t key = (uint64_t(uint32_t(inst)) << 8) | uint8_t(operand);
  if (const uint32_t* known = objectIndex_.find(key)) return objects_[*known];
  MemoryObject object = objectFromValue(fn_, fn_.values->keptOperandValue(inst, operand), inst);
  objectIndex_.insert(key, static_cast<uint32_t>(objects_.size()));
  return objects_.emplace_back(std::move(object));
}

MemoryObject MemoryAnalysis::rootOf(InstId inst, int operand) const {
  MemoryObject object;
  if (!fn_.values) return object;
  std::string root = fn_.values->identityEngine().addressRoot(inst, operand);
  if (root.empty()) return object;
  object.name = root;
  if (root.starts_with("loaded(")) object.kind = MemoryObject::Kind::Loaded;
  else if (root.starts_with("param:")) object.kind = MemoryObject::Kind::Param;
  else object.kind = MemoryObject::Kind::GlobalSymbol;  // "sym:..." (shared or global: compared by name)
  return object;
}

bool MemoryAnalysis::mayShareRoot(InstId a, InstId b) const {
  return fn_.values && fn_.values->identityEngine().mayShareObject(a, b);
}

bool MemoryAnalysis::isLoadedPointer(InstId inst, int operand) const {
  return fn_.values && fn_.values->identityEngine().isLoadedPointer(inst, operand);
}

Space MemoryAnalysis::space(InstId inst, int operand) const {
  return fn_.values ? fn_.values->addressSpace(inst, operand) : Space::Generic;
}

int64_t MemoryAnalysis::accessSize(InstId at, int k) const {
  if (at < 0 || static_cast<size_t>(at) >= fn_.instructions.size()) return -1;
  return facts(at, k).accessSize;
}

int64_t MemoryAnalysis::computeAccessSize(InstId at, int k) const {
  const auto& insts = fn_.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size()) return -1;
  const Inst& inst = insts[at];
  const MemoryEffect& e = inst.effect;
  switch (e.kind) {
    case EffectKind::MbarrierInit: case EffectKind::MbarrierArrive: case EffectKind::MbarrierExpectTx:
    case EffectKind::MbarrierWait: case EffectKind::MbarrierInval:
      return 8;
    case EffectKind::AsyncCopy: {
      if (k == e.mbarrier) return 8;
      if (inst.hasModifier("tensor")) return -1;  // box size lives in the tensor map
      // cp.async[.bulk] [dst], [src], size: the first integer-valued operand after the addresses.
      for (size_t o = 2; o < inst.operands.size(); ++o) {
        if (inst.operands[o].kind == Kind::Address) continue;
        std::optional<int64_t> v = fn_.values ? fn_.values->constantOf(at, static_cast<int>(o)) : std::nullopt;
        if (!v && fn_.values) {
          AbstractValue value = fn_.values->operandValue(at, static_cast<int>(o));
          if (value.isConstant()) v = value.constant;
        }
        return v && *v > 0 ? *v : -1;
      }
      return -1;
    }
    default: break;
  }
  if (inst.opcode() == "ldmatrix" || inst.opcode() == "stmatrix") return 16;
  int64_t width = 0;
  for (const auto& m : inst.syntax->modifiers)
    if (int64_t w = typeWidth(m)) width = w;
  return width ? width * vectorLength(*inst.syntax) : -1;
}

namespace {

std::optional<int64_t> constantOperand(const FunctionModel& fn, InstId inst, const ptx::Operand& op) {
  if (op.kind == Kind::Integer) return op.intValue;
  if (op.kind == Kind::Register && fn.values) {
    AbstractValue v = fn.values->valueOf(op.reg, inst);
    if (v.isConstant()) return v.constant;
  }
  return std::nullopt;
}

// The largest value a byte count may take (a constant, or a bounded runtime
// size such as `min(n, TILE) * 4`); nullopt when unbounded.
std::optional<int64_t> largestCount(const FunctionModel& fn, InstId inst, const ptx::Operand& op) {
  if (auto c = constantOperand(fn, inst, op)) return c;
  if (op.kind != Kind::Register || !fn.values) return std::nullopt;
  AbstractValue v = fn.values->valueOf(op.reg, inst);
  auto range = v.numericRange();
  if (!range || range->first < 0) return std::nullopt;
  return range->second;
}

bool announcesBytes(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  if (in.effect.kind == EffectKind::MbarrierExpectTx) return in.opcode() == "mbarrier" && in.hasModifier("expect_tx");
  if (in.effect.kind != EffectKind::MbarrierArrive) return false;
  for (const auto& m : in.syntax->modifiers)
    if (m.starts_with("expect_tx")) return true;
  return false;
}

}  // namespace

int64_t MemoryAnalysis::copyExtent(InstId copy) const {
  const auto& in = fn_.instructions[copy];
  if (in.effect.kind != EffectKind::AsyncCopy) return -1;
  if (!in.hasModifier("tensor")) {
    // [dst], [src], size, ...: the first operand after the two addresses.
    int addresses = 0;
    for (const auto& op : in.operands) {
      if (op.kind == Kind::Address) {
        ++addresses;
        continue;
      }
      if (addresses >= 2) return largestCount(fn_, copy, op).value_or(-1);
    }
    return -1;
  }
  const int mbarrier = in.effect.mbarrier;
  if (mbarrier < 0 || !fn_.values) return -1;
  std::vector<InstId> announcements = findReachingBackward(
      fn_, copy,
      [&](InstId i) {
        return announcesBytes(fn_, i) && fn_.instructions[i].effect.address >= 0 &&
               alias(i, fn_.instructions[i].effect.address, copy, mbarrier) != AliasResult::No;
      },
      never);
  int64_t bound = -1;
  for (InstId i : announcements) {  // every path's announcement must be known; take the largest
    const auto& ops = fn_.instructions[i].operands;
    std::optional<int64_t> bytes = ops.empty() ? std::nullopt : largestCount(fn_, i, ops.back());
    if (!bytes || *bytes <= 0) return -1;
    bound = std::max(bound, *bytes);
  }
  if (bound <= 0) return bound;
  const int64_t boxes = copiesOfOneBox(copy);
  return (bound + boxes - 1) / boxes;
}

// A tensor map fixes a copy's box, and a tensor copy completes its whole
// box's bytes on its barrier (out-of-bounds elements are filled and
// counted), so copies through one map to one barrier in one phase move the
// same bytes: an expect_tx count of T shared by k of them gives each T / k
// (FlashInfer loads its Q tile as two halves of one map). Counted only where
// they surely run together: in this copy's block, under the same guard, and
// between the nearest arrives on a barrier that may be this one (an arrive
// may open the next phase). Missing some of the copies only makes the bound
// larger.
int64_t MemoryAnalysis::copiesOfOneBox(InstId copy) const {
  const Inst& in = fn_.instructions[copy];
  const int mbarrier = in.effect.mbarrier;
  if (mbarrier < 0 || in.block < 0 || in.operands.size() < 2) return 1;
  const BasicBlock& block = fn_.blocks[in.block];
  auto endsPhase = [&](InstId i) {
    const auto kind = fn_.instructions[i].effect.kind;
    const int address = fn_.instructions[i].effect.address;
    return (kind == EffectKind::MbarrierArrive || kind == EffectKind::MbarrierExpectTx ||
            kind == EffectKind::MbarrierInit) &&
           address >= 0 && alias(i, address, copy, mbarrier) != AliasResult::No;
  };
  auto sameBox = [&](InstId i) {
    const Inst& other = fn_.instructions[i];
    return other.effect.kind == EffectKind::AsyncCopy && other.hasModifier("tensor") && other.effect.mbarrier >= 0 &&
           other.operands.size() >= 2 && std::ranges::equal(other.syntax->modifiers, in.syntax->modifiers) && fn_.sameGuard(i, copy) &&
           alias(i, other.effect.mbarrier, copy, mbarrier) == AliasResult::Must &&
           other.operands[1].kind == ptx::Operand::Kind::Address && in.operands[1].kind == ptx::Operand::Kind::Address &&
           fn_.values->sameValue(copy, 1, i, 1);  // [map, {coordinates}]: the same map
  };
  int64_t count = 1;
  for (InstId i = copy - 1; i >= block.first && !endsPhase(i); --i) count += sameBox(i);
  for (InstId i = copy + 1; i < block.last && !endsPhase(i); ++i) count += sameBox(i);
  return count;
}

// For the descriptor decoding in MatrixDescriptors.cpp.
MemoryObject MemoryAnalysis::objectOfValue(const AbstractValue& value, InstId at) const {
  return objectFromValue(fn_, value, at);
}

}  // namespace fenceline::model
