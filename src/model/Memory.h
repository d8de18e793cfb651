// The memory analysis: which memory every access touches, and whether two
// accesses may touch the same bytes. One interface for all checks, in the
// style of LLVM's alias analysis: typed answers (a memory object, a byte
// range, No / May / Must), never strings to parse.
//
// An access is located by its memory object and the bytes it may touch
// relative to the object's start:
//  - objects: a shared symbol; the dynamic shared buffer (every `extern
//    .shared` array starts at the same address, so they are one object and
//    their offsets compare directly); a global symbol; a kernel parameter or
//    a field of a by-value struct parameter (or the choice of several
//    fields: a bounded index, a `selp` of two tables); a pointer loaded from
//    memory (named by the address it was loaded from: a struct field, a
//    pointer table entry; two such pointers alias only when their slots may
//    be one word on bounded evidence, `boxes[blockIdx.x].f` and
//    `boxes[0].f`); unknown;
//  - bytes: the offset range from the value analysis (bounded stage indices
//    keep a ring of N stages inside [base, base + N * STAGE)), widened by the
//    access size or a copy's extent (its size operand, or the expect_tx byte
//    count announced on its completion barrier for tensor copies);
//  - wgmma / tcgen05 operands: decoded from their matrix descriptors (start
//    address field, bits 0-13, = shared address >> 4) and the instruction's
//    shape, at the most and at the fewest rows it may read
//    (MatrixDescriptors.h).
// Values.h supplies the symbolic values; this file turns them into memory.
#pragma once

#include <compare>
#include <deque>
#include <memory>
#include <unordered_map>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/PairMap.h"
#include "model/Program.h"

namespace fenceline::model {

struct AbstractValue;
class UniformModes;  // model/UniformModes.h

enum class AliasResult : uint8_t {
  No,    // provably different bytes for every thread
  May,   // cannot tell
  Must,  // the same address for every thread (the same word)
};

// Why two locations may touch the same bytes, and whether that is decided
// (issue 29: a warning needs a reason the two touch the same bytes):
//  - decided: the same address for every thread ("must-alias"), or the same
//    named object with both offsets bounded and overlapping ("same-object");
//  - undecided: an object the analysis cannot name ("unknown-pointer"), two
//    different pointers that may or may not point to one buffer
//    ("distinct-pointers"), an offset it cannot bound ("unbounded-index"),
//    a choice of objects ("one-of-several-objects"), one buffer at pages
//    selected by different unknown values ("page-selectors", an arena's
//    objects: undecidePageSelectors).
struct AliasEvidence {
  AliasResult result = AliasResult::May;
  bool decided = false;
  std::string how;     // the tag (report/Evidence.h)
  std::string detail;  // one sentence: which objects and bytes

  // Decidedly the same memory (a decided "disjoint" is also `decided`: this
  // is what a link that needs the same flag or the same bytes asks).
  bool same() const { return decided && result != AliasResult::No; }
  // Decidedly the same bytes: same() without "same-buffer" (one buffer, at
  // offsets not provably apart), which a question about one word (is this
  // flag the one a .sys signal raises?) cannot rest on.
  bool sameBytes() const { return same() && how != "same-buffer"; }
};

struct MemoryObject {
  enum class Kind : uint8_t {
    Unknown,        // the analysis cannot name it
    SharedSymbol,   // a .shared variable with a size
    DynamicShared,  // the dynamic shared buffer (all extern .shared arrays)
    GlobalSymbol,   // a .global / .const / .local variable
    Param,          // a kernel parameter, or a field "param+offset" of a by-value struct
    Loaded,         // a pointer read from memory (struct field, pointer table entry)
  };
  Kind kind = Kind::Unknown;
  std::string name;  // symbol, parameter (and field offset), or the loaded-from address
  Space space = Space::Generic;
  // One of several objects of this kind (a `selp` of two parameter fields):
  // their names, sorted; `name` is then them joined by '|'. Empty: one object.
  std::vector<std::string> alternatives;

  bool known() const { return kind != Kind::Unknown; }
  bool operator==(const MemoryObject& o) const { return kind == o.kind && name == o.name; }
  auto operator<=>(const MemoryObject& o) const {
    if (auto c = kind <=> o.kind; c != 0) return c;
    return name <=> o.name;
  }
  std::string toString() const;  // "shared:buf", "dynamic-shared", "param:p_0+8", ... (tests, notes)
};

// Offsets from the object's start: [begin, end).
struct ByteRange {
  int64_t begin = 0;
  int64_t end = 0;
  bool overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
};

struct MemoryLocation {
  MemoryObject object;
  std::optional<ByteRange> bytes;  // every byte it may touch; empty: anywhere in the object
  // The highest offset it may start at, when `bytes` is known (the lowest is
  // bytes->begin): equal to it for an access at one fixed offset.
  int64_t lastStart = INT64_MIN;
  Space space = Space::Generic;    // the state space, narrowed where the values prove it
  int32_t address = -1;            // identity of the address (equal and >= 0: the same word)
  std::string toString() const;    // "shared:buf[16, 32)"
};

class MemoryAnalysis {
 public:
  explicit MemoryAnalysis(const FunctionModel& fn);

  // The memory operand `operand` of `inst` addresses, `size` bytes from it
  // (0: the access's own size, accessSize; -1: unknown).
  MemoryLocation location(InstId inst, int operand, int64_t size = 0) const;
  // location(inst, operand) at the access's own size, kept: the pairwise
  // questions of the protocol model ask it for the same operands again.
  const MemoryLocation& accessLocation(InstId inst, int operand) const;
  // The memory a copy writes (its destination) or reads (its source), over
  // its extent.
  MemoryLocation copyDestination(InstId copy) const;
  MemoryLocation copySource(InstId copy) const;

  AliasResult alias(const MemoryLocation& a, const MemoryLocation& b) const;
  // alias() with its evidence: how a May or Must was reached (AliasEvidence).
  // `withDetail` false: the same answer without the sentence (`detail` left
  // empty), for the pairwise questions asked by the hundred thousand.
  AliasEvidence aliasEvidence(const MemoryLocation& a, const MemoryLocation& b, bool withDetail = true) const;
  // The same for two operands, with one more decided reason when the
  // location answer is "unbounded-index": both addresses have the same shape
  // from one base (the same constant and the same index coefficients, as in
  // `bar + 8*stage` against `bar + 8*stage'`): two entries of one array at
  // indices the analysis cannot bound ("same-array": a ring's stage index
  // takes every value, so the entries meet).
  // `barriers`: the two are mbarriers, for which another CTA's copy of the
  // same barrier (a mapa of its address) is the one the kernel's other CTAs
  // arrive on and wait at; for data, a mapa address may be another CTA's
  // shared memory and is no decided overlap with this CTA's.
  AliasEvidence aliasEvidence(InstId a, int operandA, int64_t sizeA, InstId b, int operandB, int64_t sizeB,
                              bool barriers = false, bool withDetail = true) const;
  // The address went through a `mapa` to a CTA rank other than (or not
  // known to be) the executing CTA's own %cluster_ctarank: it may be another
  // CTA's shared memory (the value analysis keeps mapa's input offset).
  bool mappedToAnotherCta(InstId inst, int operand) const;
  // A "same-buffer" answer is only a presumption when the two offsets select
  // pages of the buffer by different unknown values (an arena, a symmetric
  // heap: `heap + 4096 * param.page + ...` against `heap + 4096 * window->page
  // + ...`): which object of the arena each side names, the PTX does not say.
  // Turns such an answer into the undecided "page-selectors"; every other
  // answer is left as it is. See pageSelectorsDiffer in Memory.cpp.
  void undecidePageSelectors(AliasEvidence& evidence, InstId a, int operandA, InstId b, int operandB,
                             bool withDetail = true) const;
  // The two accesses as made by threads of two different blocks (the partner
  // of a flag protocol is another block: ordering-rules.md, "Who the
  // partner is"). An answer from the addresses' expressions ("the same
  // address", "one buffer") holds for two threads of one block; when both
  // offsets carry the block index the same way (the same block-level terms,
  // `slice = scratch + stride * blockIdx.x` on both sides), another block's
  // expression names its own slice:
  //  - Apart: the stride is a constant and every block's accesses lie within
  //    one stride (the other terms bounded): two blocks never meet;
  //  - Undecided: the blocks' slices may or may not meet (a stride the
  //    analysis cannot bound: any factor times the block index; a value
  //    several blocks share beside the block index; an unbounded index in
  //    the slice; block indices of two dimensions; or, on two sides that do
  //    not carry the same terms, each side's block index at a stride of its
  //    own factor: two arrays of per-block slots): the link is
  //    "block-slices";
  //  - None: the offsets do not carry the block index the same way, blocks
  //    share the slice by design (a value several blocks share and no block
  //    index beside it, `ctaid % n`;
  //    a dimension of the block index the kernel reads and the address does
  //    not carry), or the slices of two blocks overlap (a stride smaller than
  //    a block's extent): the expressions' answer stands.
  // Memory of the block's own by another form: both addresses in the CTA's
  // shared window (each block has its own), or one there and the other a
  // global pointer, are Apart too. An address whose register has several
  // definitions (a `selp` or a merge of the shared window and the block's
  // global slice: CUB's look-back scratch) is compared choice by choice,
  // one value per definition (addressChoices): Apart when every pair of
  // choices is, None when one pair is, else Undecided.
  // See model/BlockSlices.cpp and model/OwnBlockChoices.cpp.
  struct BlockSlices {
    enum class Kind : uint8_t { None, Apart, Undecided };
    Kind kind = Kind::None;
    std::string detail;  // one sentence (withDetail)
  };
  BlockSlices blockSlices(InstId a, int operandA, InstId b, int operandB, bool withDetail = true) const;
  // A value that may stand for several definitions of a register on its
  // way, which blockSlices then compares choice by choice.
  static bool mayHaveChoices(const AbstractValue& value);
  // A flag raised by another block than the one that polls it (issue 34,
  // chained blocks: block b polls flags[b - 1] and raises flags[b]). For two
  // threads of one block the two words differ; the partner is another block,
  // whose block index is another value. `a`, made by the block `distance`
  // away from `b`'s in one dimension, names `b`'s word when the two
  // addresses are one base, one block index term of the same coefficient c
  // and the same grid-wide terms (no thread term: the elected signaller and
  // poller name one word each), and their constants differ by c * distance
  // (distance != 0): found() then. Only for a grid of that one dimension
  // (another dimension the kernel reads would leave the partner's unknown).
  // See model/BlockSlices.cpp.
  struct BlockDistance {
    int dimension = -1;  // 0: x, 1: y, 2: z; -1: none
    int64_t distance = 0;
    bool found() const { return dimension >= 0; }
  };
  BlockDistance blockDistance(InstId a, int operandA, InstId b, int operandB) const;
  // Two accesses of such a protocol's data, `a` made by the block `d` away
  // from `b`'s (the partner of blockDistance): `a`'s block index terms
  // renamed to b's + d.distance.
  //  - Stands: neither address carries the block index: the expressions'
  //    answer (for one block) stands;
  //  - Apart: the renamed addresses never meet (or lie in the windows
  //    blockSlices names: each CTA's own shared memory, or shared against
  //    global; for addresses with several definitions, every pair of
  //    choices is apart);
  //  - Meets: the renamed addresses are the same expression (the same
  //    address for threads whose other terms agree);
  //  - Undecided: anything else (a stride, a value several blocks share, an
  //    unbounded index, block terms of two forms).
  enum class AtDistance : uint8_t { Stands, Apart, Meets, Undecided };
  AtDistance atBlockDistance(InstId a, int operandA, InstId b, int operandB, BlockDistance d) const;
  // The size in bytes of a named variable (a shared or global symbol with a
  // fixed size), or -1.
  int64_t objectSize(const MemoryObject& object) const;
  // `size` as for location(): 0 = the access's own size, -1 = unknown.
  AliasResult alias(InstId a, int operandA, InstId b, int operandB) const;
  AliasResult alias(InstId a, int operandA, int64_t sizeA, InstId b, int operandB, int64_t sizeB) const;
  // The async copy's destination may begin exactly at the access's address:
  // the access is one constant offset into the copy's object, and some value
  // of the copy's indices starts the copy there (stage 0 of a ring at the
  // address of a word read before the ring's first fill). Whatever the copy's
  // size, it then overwrites the word.
  bool copyMayBeginAt(InstId copy, InstId access, int accessOperand) const;
  // The memory operands (MemoryEffect::address) of both name the same word
  // for every thread.
  bool sameWord(InstId a, InstId b) const;

  // The offsets of the two operands from their own bases never meet, whatever
  // the bases are: the same buffer or two buffers, the words differ. For two
  // entries of one pointer table (`flags[peer] + i` against
  // `flags[rank] + j`: on another GPU the entries may be one buffer).
  bool offsetsApart(InstId a, int operandA, InstId b, int operandB) const;

  // The object an operand points into: a symbol, a parameter (field), or a
  // pointer loaded from memory (precise: `s->a` and `s->b` differ).
  // Memoized: the reference stays valid as long as this object.
  const MemoryObject& objectOf(InstId inst, int operand) const;
  // The root an operand's pointer comes from, coarser than objectOf: every
  // pointer read from one table (or struct) has that table's root. Unknown
  // when the walk cannot name it.
  MemoryObject rootOf(InstId inst, int operand) const;
  // Same root object (offsets may differ), or either root unknown.
  bool mayShareRoot(InstId a, InstId b) const;
  // The address was read from memory (a pointer table: peer pointers).
  bool isLoadedPointer(InstId inst, int operand) const;

  // The state space an address operand reaches (generic narrowed where the
  // value analysis proves it: cvta.to.shared, shared symbols).
  Space space(InstId inst, int operand) const;
  // Bytes accessed through an address operand (.v4.b32: 16, ldmatrix: 16
  // per thread, mbarrier: 8, a bulk copy's size operand); -1 when unknown.
  int64_t accessSize(InstId inst, int operand) const;
  // How many bytes an async copy moves: its size operand, or for a tensor
  // copy an upper bound from the expect_tx byte count announced on its
  // completion barrier (the copies that complete on one barrier move exactly
  // that many bytes together; k copies through one tensor map in one phase
  // move a k-th of it each). -1 = unknown.
  int64_t copyExtent(InstId copy) const;
  // The extent at one of the copy's shared operands, tightened for a tensor
  // copy into (or out of) a stage ring: the stages of a ring do not overlap,
  // so a copy whose address advances by S bytes per stage moves at most S
  // bytes there (an expect_tx count shared by the A and B copies of one
  // stage bounds neither tightly). Copies that fill one stage together (the
  // A and B tiles at base + S * s and base + S * s + d, d < S) do not overlap
  // either: the first ends where the second starts, the last within S bytes
  // of the first's start.
  int64_t copyExtent(InstId copy, int operand) const;

  // The shared memory a wgmma / tcgen05.mma reads through its matrix
  // descriptors (model/MatrixDescriptors.cpp). `operands`: every byte each
  // operand may read (the most rows the instruction allows); `fewest`: the
  // same operands at the fewest rows, the bytes read whatever the undecoded
  // fields of a tcgen05 instruction descriptor hold (equal to `operands` when
  // the shape is decoded). `decoded` is false when some descriptor could not
  // be traced to a shared address (then the operands are unknown).
  // `uncertainty`: what could not be decoded, for a note ("" when nothing).
  struct MatrixOperands {
    std::vector<MemoryLocation> operands;
    std::vector<MemoryLocation> fewest;
    bool decoded = false;
    std::string uncertainty;
  };
  MatrixOperands matrixOperands(InstId mma) const;

 private:
  // What an operand's address is, computed once per (instruction, operand):
  // checks ask for the same operands again for every pair they test.
  struct OperandFacts;
  const OperandFacts& facts(InstId inst, int operand) const;
  // facts(inst, operand).value: the address's value, its thread indices
  // narrowed by the role branches that guard the access.
  const AbstractValue& narrowedValue(InstId inst, int operand) const;
  // narrowedValue's narrowing applied to another value of the address at `at`.
  AbstractValue narrowedAt(InstId at, AbstractValue value) const;
  // blockSlices of two values of the addresses (model/BlockSlices.cpp);
  // `window`: the CTA shared window rules apply (neither access is a
  // `.shared::cluster` one, which may reach another CTA's window).
  BlockSlices slicesOfValues(const AbstractValue& va, int64_t sizeA, const AbstractValue& vb, int64_t sizeB,
                             bool window, bool withDetail) const;
  AtDistance atDistanceOfValues(const AbstractValue& va, int64_t sizeA, const AbstractValue& vb, int64_t sizeB,
                                BlockDistance d, bool window) const;
  bool ownWindows(InstId a, int operandA, InstId b, int operandB) const;
  // blockSlices of two addresses compared choice by choice, and the choices
  // themselves: the values an address may take, one per definition of a
  // register on its way that has several (a `selp`'s operands, the
  // definitions that reach a merge), at most a few; the address's own value
  // alone when there are none or too many (model/OwnBlockChoices.cpp).
  BlockSlices slicesOfChoices(InstId a, int operandA, InstId b, int operandB, bool window, bool withDetail) const;
  const std::vector<AbstractValue>& addressChoices(InstId inst, int operand) const;
  struct ChoiceTable;  // addressChoices, once per (instruction, operand)
  mutable std::shared_ptr<ChoiceTable> choices_;
  int64_t computeAccessSize(InstId inst, int operand) const;
  int64_t stageSiblingBound(InstId copy, int operand, int64_t stride) const;
  int64_t unrolledRingGap(InstId copy, int operand) const;
  const std::vector<InstId>& tensorCopies() const;  // every tensor copy, found once
  int64_t copiesOfOneBox(InstId copy) const;
  bool slotsMayCoincide(const MemoryObject& a, const MemoryObject& b) const;
  bool offsetsApart(const OperandFacts& a, int64_t sizeA, const OperandFacts& b, int64_t sizeB) const;
  bool apartBeyondTheGrid(const AbstractValue& a, int64_t sizeA, const AbstractValue& b, int64_t sizeB) const;
  const std::vector<std::string>& arrayIndexParameters() const;
  bool readFromLocalMemory(const MemoryObject& loaded) const;
  static constexpr int kMaxSlotDepth = 4;  // pointers read through pointers read through ...
  mutable int slotDepth_ = 0;
  MemoryObject objectOfValue(const AbstractValue& value, InstId at) const;

  const FunctionModel& fn_;
  // facts() and objectOf(), once per (instruction, operand): the number of
  // each answer by its key, the answers in order of first use (references
  // stay valid). Asked for every pair an alias question compares, so a flat
  // table, not a node per entry (issue 34).
  struct FactsStore;
  mutable PairMap<uint32_t> factsIndex_;
  mutable std::unique_ptr<FactsStore> facts_;
  mutable PairMap<uint32_t> objectIndex_;
  mutable std::deque<MemoryObject> objects_;
  mutable std::optional<std::vector<InstId>> tensorCopies_;  // every tensor copy, found once
  mutable std::optional<std::vector<std::string>> arrayIndexParameters_;  // sorted, found once
  // blockSlices: how widely each address term's value is shared (built on
  // first use), and the %ctaid dimensions the function reads (bit d: x, y, z;
  // -1 before it is asked).
  mutable std::shared_ptr<UniformModes> modes_;
  mutable int blockDimensionsRead_ = -1;
  int blockDimensionsRead() const;

 public:
  ~MemoryAnalysis();
};

// Offsets on one stride that never meet (the protocol model's pointer
// slots): a = ka + sum(ci * xi), b = kb + sum(dj * yj), every term an
// independent integer, so [a, a + sizeA) and [b, b + sizeB) meet only if
// a - b, ka - kb plus a multiple of the gcd of the coefficients, lies in
// (-sizeA, sizeB). Two fields of one record in a table of records never
// meet, whichever records are read.
bool apartByStride(const AbstractValue& a, int64_t sizeA, const AbstractValue& b, int64_t sizeB);
// The same, or with the bounded terms of small coefficients counted as an
// interval added to ka - kb (MemoryAnalysis::alias): a field at a bounded
// index inside a record of a table of records (`rows[g].hist[i]`, i bounded,
// against `rows[g'].count`).
bool apartByStrideAndRange(const AbstractValue& a, int64_t sizeA, const AbstractValue& b, int64_t sizeB);

}  // namespace fenceline::model
