// The shared memory a wgmma / tcgen05.mma reads through its matrix
// descriptors (MemoryAnalysis::matrixOperands, model/Memory.h; the parts
// tests ask directly are in MatrixDescriptors.h). A shared-memory descriptor
// holds the start address >> 4 in bits 0-13, the leading byte offset in bits
// 16-29 and the stride byte offset in bits 32-45 (16-byte units); the tile's
// rows come from the instruction: wgmma's m64nNkK modifier, or the tcgen05
// instruction descriptor's N and M fields. Each operand is located twice: at
// the most rows the instruction may read (every byte it may touch) and at the
// fewest (the bytes it reads whatever the undecoded fields hold), so that
// proxy-raw can tell a write the MMA reads from one it reads only if a field
// the analysis could not decode is large (issue 11, shape 3).
#include "model/MatrixDescriptors.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

#include "model/Memory.h"
#include "model/Operands.h"
#include "model/ValueAlgebra.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using BaseKind = AbstractValue::BaseKind;
using Kind = ptx::Operand::Kind;
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kUnbounded : std::numeric_limits<int64_t>::min();
  return r;
}

std::optional<int64_t> constantOperand(const FunctionModel& fn, InstId inst, const ptx::Operand& op) {
  if (op.kind == Kind::Integer) return op.intValue;
  if (op.kind == Kind::Register && fn.values) {
    AbstractValue v = fn.values->valueOf(op.reg, inst);
    if (v.isConstant()) return v.constant;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Known bits.

uint64_t lowMask(int bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

KnownBits meet(KnownBits a, KnownBits b) { return {a.zeros & b.zeros, a.ones & b.ones}; }

KnownBits truncated(KnownBits k, int width) { return {k.zeros | ~lowMask(width), k.ones & lowMask(width)}; }

// The width in bits of an instruction's n-th sized type modifier (cvt.u32.u64: 0 -> 32, 1 -> 64).
int typeBits(const Inst& in, int nth = 0) {
  for (const auto& m : in.syntax->modifiers)
    if (int64_t bytes = typeWidth(m); bytes > 0 && nth-- == 0) return static_cast<int>(bytes * 8);
  return 64;
}

bool signedType(const Inst& in, int nth = 0) {
  for (const auto& m : in.syntax->modifiers)
    if (typeWidth(m) > 0 && nth-- == 0) return m[0] == 's';
  return false;
}

// Fills bits [from, 64) with what is known of bit `from - 1` (sign extension).
KnownBits signExtended(KnownBits k, int from) {
  if (from >= 64) return k;
  const uint64_t high = ~lowMask(from), sign = uint64_t(1) << (from - 1);
  k.zeros &= ~high;
  k.ones &= ~high;
  if (k.zeros & sign) k.zeros |= high;
  if (k.ones & sign) k.ones |= high;
  return k;
}

class KnownBitsWalk {
 public:
  explicit KnownBitsWalk(const FunctionModel& fn) : fn_(fn) {}

  KnownBits ofOperand(const ptx::Operand& op, InstId at, int depth) const {
    if (op.kind == Kind::Integer) return KnownBits::constant(static_cast<uint64_t>(op.intValue));
    if (op.kind != Kind::Register || op.reg < 0) return {};
    return ofRegister(op.reg, at, depth);
  }

 private:
  static constexpr int kMaxDepth = 12;

  // From the definitions alone, not the value analysis's constants and
  // ranges: a shift of a based value (`param >> 26`, `smem >> 4`) reads
  // there as a shift of its offset, the constant 0.
  KnownBits ofRegister(ValueReg reg, InstId at, int depth) const {
    if (depth >= kMaxDepth) return {};
    std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, at);
    if (defs.empty()) return {};
    KnownBits k = ofDefinition(defs[0], reg, depth + 1);
    for (size_t i = 1; i < defs.size(); ++i) k = meet(k, ofDefinition(defs[i], reg, depth + 1));
    return k;
  }

  KnownBits ofDefinition(InstId def, ValueReg reg, int depth) const {
    const Inst& in = fn_.instructions[def];
    const auto& ops = in.operands;
    const std::string_view op = in.opcode();
    if (ops.size() < 2) return {};
    const int width = typeBits(in);
    if (ops[0].kind == Kind::Vector) return unpacked(in, def, reg, depth);
    auto arg = [&](size_t k) { return k < ops.size() ? ofOperand(ops[k], def, depth) : KnownBits{}; };
    auto amount = [&](size_t k) -> std::optional<int64_t> {
      KnownBits a = arg(k);
      if ((a.zeros | a.ones) != ~uint64_t(0)) return std::nullopt;
      return static_cast<int64_t>(a.ones);
    };
    KnownBits r;
    if (op == "mov" && ops[1].kind == Kind::Vector) {
      // mov.b64 d, {lo, hi}: element i fills bits [i * w, (i + 1) * w).
      const int n = static_cast<int>(ops[1].elements.size()), w = n > 0 ? width / n : width;
      r = KnownBits::constant(0);
      for (int i = 0; i < n; ++i) {
        KnownBits e = truncated(ofOperand(ops[1].elements[i], def, depth), w);
        const uint64_t field = lowMask(w) << (i * w);
        r.zeros = (r.zeros & ~field) | ((e.zeros << (i * w)) & field);
        r.ones = (r.ones & ~field) | ((e.ones << (i * w)) & field);
      }
    } else if (op == "mov") {
      r = arg(1);
    } else if (op == "cvt") {
      for (const auto& m : in.syntax->modifiers)
        if (typeWidth(m) > 0 && m[0] == 'f') return {};  // a conversion to or from floating point
      const int source = typeBits(in, 1);
      r = truncated(arg(1), source);
      if (signedType(in, 1)) r = signExtended(r, source);
    } else if (op == "and") {
      KnownBits a = arg(1), b = arg(2);
      r = {a.zeros | b.zeros, a.ones & b.ones};
    } else if (op == "or") {
      KnownBits a = arg(1), b = arg(2);
      r = {a.zeros & b.zeros, a.ones | b.ones};
    } else if (op == "xor") {
      KnownBits a = arg(1), b = arg(2);
      const uint64_t known = (a.zeros | a.ones) & (b.zeros | b.ones), value = a.ones ^ b.ones;
      r = {known & ~value, known & value};
    } else if (op == "not") {
      KnownBits a = arg(1);
      r = {a.ones, a.zeros};
    } else if (op == "shl" || op == "shr") {
      auto c = amount(2);
      if (!c || *c < 0 || *c >= width) return {};
      const int s = static_cast<int>(*c);
      KnownBits a = truncated(arg(1), width);
      if (op == "shl") {
        r = {(a.zeros << s) | lowMask(s), a.ones << s};
      } else if (signedType(in)) {  // arithmetic: the bits shifted in copy the sign bit
        a = signExtended(a, width);
        r = {a.zeros >> s, a.ones >> s};
      } else {
        r = {(a.zeros >> s) | ~(~uint64_t(0) >> s), a.ones >> s};
      }
    } else if (op == "bfi" && ops.size() >= 5) {
      // bfi d, a, b, pos, len: b with bits [pos, pos + len) taken from a's low bits.
      auto pos = amount(3), len = amount(4);
      if (!pos || !len || *pos < 0 || *len < 0 || *pos + *len > width) return {};
      const uint64_t field = lowMask(static_cast<int>(*len)) << *pos;
      KnownBits a = arg(1), b = arg(2);
      r = {(b.zeros & ~field) | ((a.zeros << *pos) & field), (b.ones & ~field) | ((a.ones << *pos) & field)};
    } else if (op == "selp" && ops.size() >= 3) {
      r = meet(arg(1), arg(2));
    } else if ((op == "add" || op == "sub") && ops.size() >= 3) {
      auto a = amount(1), b = amount(2);  // exact only on two known values
      if (!a || !b) return {};
      r = KnownBits::constant(op == "add" ? uint64_t(*a) + uint64_t(*b) : uint64_t(*a) - uint64_t(*b));
    } else {
      return {};
    }
    return truncated(r, width);
  }

  // mov.b64 {lo, hi}, d: `reg` is element i of the destination, bits [i * w, (i + 1) * w) of d.
  KnownBits unpacked(const Inst& in, InstId def, ValueReg reg, int depth) const {
    if (in.opcode() != "mov") return {};
    const auto& elements = in.operands[0].elements;
    const int n = static_cast<int>(elements.size()), w = n > 0 ? typeBits(in) / n : 0;
    for (int i = 0; i < n; ++i)
      if (elements[i].kind == Kind::Register && elements[i].reg == reg) {
        KnownBits whole = ofOperand(in.operands[1], def, depth);
        return truncated({whole.zeros >> (i * w), whole.ones >> (i * w)}, w);
      }
    return {};
  }

  const FunctionModel& fn_;
};

// ---------------------------------------------------------------------------
// Shared-memory descriptors: the start address.

// Bits 0-13 hold the shared address >> 4; other bits hold layout fields.
// Walking its definitions backwards from the descriptor: `or`/`and`/`bfi` at
// bit 0 keep the address field, an `add` of a constant advances it by 16
// bytes per unit, `shr x, 4` returns to byte addresses, where the value
// analysis names the shared object.
struct DescriptorDecoder {
  const FunctionModel& fn;

  struct Decoded {
    AbstractValue address;  // the shared byte address the descriptor starts at
    int64_t advance = 0;    // bytes added after the shift
    uint64_t layout = 0;    // constant layout bits met on the way (high word: stride byte offset)
  };

  std::optional<Decoded> fromAddress(ValueReg reg, InstId at) const {
    AbstractValue v = fn.values->valueOf(reg, at);
    if (v.known && v.baseKind == BaseKind::SharedSymbol) return Decoded{v, 0};
    return std::nullopt;
  }

  std::optional<Decoded> decode(const ptx::Operand& op, InstId at, bool shifted, int depth) const {
    if (op.kind == Kind::Register) return decode(op.reg, at, shifted, depth);
    if (op.kind == Kind::Vector && !op.elements.empty()) return decode(op.elements[0], at, shifted, depth);
    return std::nullopt;
  }

  bool isConstant(const ptx::Operand& op, InstId at) const { return constantOperand(fn, at, op).has_value(); }

  std::optional<Decoded> decode(ValueReg reg, InstId at, bool shifted, int depth) const {
    if (depth > 24 || reg < 0) return std::nullopt;
    if (!shifted)
      if (auto d = fromAddress(reg, at)) return d;
    InstId def = fn.values->definition(reg, at);
    if (def < 0) return std::nullopt;
    const Inst& in = fn.instructions[def];
    const auto& ops = in.operands;
    const std::string_view op = in.opcode();
    if (ops.size() < 2) return std::nullopt;
    if (op == "mov" && ops[1].kind == Kind::Vector && ops[1].elements.size() == 2) {
      // mov.b64 d, {lo, hi}: the address field is in lo, the strides in hi;
      // mov.b32 d, {lo, hi} (CuTe's 16-bit bitfields): the leading byte
      // offset in hi. The high element lands at the element width.
      auto d = decode(ops[1].elements[0], def, shifted, depth + 1);
      const int elementBits = typeBits(in) / 2;
      if (d)
        if (auto hi = constantOperand(fn, def, ops[1].elements[1]))
          d->layout |= (uint64_t(*hi) & lowMask(elementBits)) << elementBits;
      return d;
    }
    if (op == "mov" || op == "cvt" || op == "cvta") return decode(ops[1], def, shifted, depth + 1);
    if (op == "shr" && shifted && ops.size() >= 3) {
      std::optional<int64_t> amount = constantOperand(fn, def, ops[2]);
      if (amount != 4) return std::nullopt;
      return decode(ops[1], def, /*shifted=*/false, depth + 1);
    }
    if (op == "bfe" && shifted && ops.size() >= 4) {
      // bfe.u32 d, x, 4, len: (x >> 4) masked, Triton's address field.
      std::optional<int64_t> pos = constantOperand(fn, def, ops[2]);
      if (pos != 4) return std::nullopt;
      return decode(ops[1], def, /*shifted=*/false, depth + 1);
    }
    if (op == "and" && ops.size() >= 3) {
      if (isConstant(ops[2], def)) return decode(ops[1], def, shifted, depth + 1);
      if (isConstant(ops[1], def)) return decode(ops[2], def, shifted, depth + 1);
      return std::nullopt;
    }
    if (op == "or" || op == "xor") {
      // One side carries the address field, the other layout bits (a constant
      // or a value with no address); exactly one side must decode.
      if (ops.size() < 3) return std::nullopt;
      auto left = decode(ops[1], def, shifted, depth + 1), right = decode(ops[2], def, shifted, depth + 1);
      auto withLayout = [&](std::optional<Decoded> d, const ptx::Operand& other) {
        if (auto bits = shifted ? constantOperand(fn, def, other) : std::nullopt) d->layout |= uint64_t(*bits);
        return d;
      };
      if (left && !right) return withLayout(left, ops[2]);
      if (right && !left) return withLayout(right, ops[1]);
      return std::nullopt;
    }
    if (op == "bfi" && ops.size() >= 5) {
      // bfi d, a, b, pos, len: b with bits [pos, pos + len) taken from a.
      std::optional<int64_t> pos = constantOperand(fn, def, ops[3]);
      if (pos == 0) return decode(ops[1], def, shifted, depth + 1);
      return decode(ops[2], def, shifted, depth + 1);
    }
    if ((op == "add" || op == "sub") && ops.size() >= 3) {
      for (int k = 1; k <= 2; ++k) {
        if (op == "sub" && k == 1 && !isConstant(ops[2], def)) break;
        const ptx::Operand& other = ops[3 - k];
        std::optional<int64_t> c = constantOperand(fn, def, other);
        if (!c) continue;
        auto d = decode(ops[k], def, shifted, depth + 1);
        if (!d) return std::nullopt;
        int64_t step = op == "sub" ? -*c : *c;
        if (shifted && step > 0 && (step >> 14) != 0) {
          // `add d, field, (1 << 25) + 384` (Triton sets the leading byte
          // offset and advances to a K slice in one add): the bits above the
          // 14-bit address field are layout fields, the rest advances it.
          d->layout |= uint64_t(step) & ~uint64_t(0x3FFF);
          step &= 0x3FFF;
        }
        d->advance = saturatingAdd(d->advance, shifted ? step * 16 : step);
        return d;
      }
      // A bounded index added to the field: the CuTe DSL builds stage 0's
      // descriptor once and reaches stage s by adding s << 10 to its low word.
      for (int k = 1; k <= 2 && op == "add"; ++k) {
        const AbstractValue step = fn.values->operandValue(def, 3 - k);
        if (!step.known || step.hasBase() || step.terms.empty() || !step.offsetRange()) continue;
        auto d = decode(ops[k], def, shifted, depth + 1);
        if (!d) continue;
        d->address = values::add(d->address, shifted ? values::scale(step, 16, "descriptor") : step, "descriptor");
        if (!d->address.known) return std::nullopt;
        return d;
      }
    }
    return std::nullopt;
  }
};

// Bytes a K-major operand tile of `rows` rows spans. With the descriptor's stride
// byte offset known (bits 32-45, in 16-byte units: the distance between
// groups of 8 rows) and its leading byte offset (bits 16-29: the distance
// between the core matrices of one K slice), the farther of rows / 8 groups
// and the last group's second core matrix; otherwise a K-major row of a
// swizzled layout is at most 128 bytes from the next one (the widest
// swizzle), and an MN-major tile of the same element count spans no more.
int64_t kMajorSpan(int64_t rows, uint64_t layout) {
  const int64_t strideBytes = int64_t((layout >> 32) & 0x3FFF) << 4;   // SBO: between 8-row groups
  const int64_t leadingBytes = int64_t((layout >> 16) & 0x3FFF) << 4;  // LBO: between core matrices along K
  if (strideBytes <= 0 || rows % 8 != 0) return rows * 128;
  // The last 8-row group starts (rows/8 - 1) * SBO in; within a group the
  // K slice's second core matrix (8 rows x 16 bytes) starts LBO in.
  return std::max(rows / 8 * strideBytes, (rows / 8 - 1) * strideBytes + leadingBytes + 128);
}

// The swizzle width in bytes of a descriptor's layout type (16: none, the
// interleaved core matrices); 0 for a code that names no layout. wgmma keeps
// the type in bits 62-63 (0 none, 1 128B, 2 64B, 3 32B), tcgen05 in bits
// 61-63 (0 none, 1 128B with 32-byte atoms, 2 128B, 4 64B, 6 32B).
int64_t swizzleWidth(uint64_t layout, bool tcgen05) {
  if (!tcgen05) {
    static constexpr int64_t kWgmma[] = {16, 128, 64, 32};
    return kWgmma[(layout >> 62) & 3];
  }
  static constexpr int64_t kTcgen05[] = {16, 128, 128, 0, 64, 0, 32, 0};
  return kTcgen05[(layout >> 61) & 7];
}

// Bytes an MN-major (transposed) operand tile of `rows` rows (elements along
// M or N) spans; -1 when the descriptor does not say. The canonical MN-major
// layouts (PTX ISA, matrix descriptor; CuTe's make_gmma_desc<Major::MN>) are
// atoms of 8 K rows of W bytes (W the swizzle width; 8 rows of 16 bytes
// without swizzle). A swizzled tile steps along M/N by the leading byte offset
// and along K, 8 rows at a time, by the stride byte offset; an interleaved
// one the other way round. One MMA reads 32 bytes of K per row: 32 /
// elementBytes K rows, in groups of 8.
int64_t mnMajorSpan(int64_t rows, uint64_t layout, int elementBytes, bool tcgen05) {
  const int64_t width = swizzleWidth(layout, tcgen05);
  if (width <= 0 || elementBytes <= 0 || rows <= 0) return -1;
  const int64_t strideBytes = int64_t((layout >> 32) & 0x3FFF) << 4;
  const int64_t leadingBytes = int64_t((layout >> 16) & 0x3FFF) << 4;
  const bool swizzled = width > 16;
  const int64_t alongMN = swizzled ? leadingBytes : strideBytes, alongK = swizzled ? strideBytes : leadingBytes;
  const int64_t atoms = (rows * elementBytes + width - 1) / width;  // atoms side by side along M/N
  const int64_t kGroups = std::max<int64_t>(1, 32 / elementBytes / 8);
  if ((atoms > 1 && alongMN <= 0) || (kGroups > 1 && alongK <= 0)) return -1;
  return (atoms - 1) * alongMN + (kGroups - 1) * alongK + 8 * width;
}

// Bytes an operand tile spans, laid out as `major` says; where the layout is
// not known, the larger of the two spans. An MN-major tile whose descriptor
// does not give its span is taken to span what a K-major one would, or the
// whole row count at the widest swizzle, whichever is larger.
int64_t tileSpan(int64_t rows, uint64_t layout, OperandMajor major, int elementBytes, bool tcgen05) {
  const int64_t kMajor = kMajorSpan(rows, layout);
  if (major == OperandMajor::K) return kMajor;
  const int64_t mnMajor = mnMajorSpan(rows, layout, elementBytes, tcgen05);
  if (mnMajor < 0) return std::max(kMajor, rows * 128);
  return major == OperandMajor::MN ? mnMajor : std::max(kMajor, mnMajor);
}

// How one operand is read: its rows, its layout, its element size.
struct OperandShape {
  int64_t rows = 0;  // <= 0: up to the end of the object
  OperandMajor major = OperandMajor::K;
  int elementBytes = 0;
  bool tcgen05 = false;
};

// The bytes a decoded descriptor's tile covers.
MemoryLocation operandLocation(const DescriptorDecoder::Decoded& decoded, MemoryObject object,
                               const OperandShape& shape) {
  MemoryLocation loc;
  loc.object = std::move(object);
  loc.space = Space::SharedCta;
  if (auto range = decoded.address.offsetRange()) {
    int64_t span =
        shape.rows > 0 ? tileSpan(shape.rows, decoded.layout, shape.major, shape.elementBytes, shape.tcgen05) : -1;
    int64_t begin = saturatingAdd(range->first, decoded.advance);
    // The part of the advance within one 128-byte row (a K slice) stays in
    // the rows of the tile (a swizzled K-major layout permutes 16-byte
    // chunks within its rows): the tile's span counts from the row start.
    // An MN-major tile's span counts from its advanced start.
    const int64_t withinRow =
        decoded.advance > 0 && shape.major == OperandMajor::K ? decoded.advance % 128 : 0;
    int64_t end =
        span > 0 ? saturatingAdd(saturatingAdd(range->second, decoded.advance - withinRow), span) : kUnbounded;
    loc.bytes = ByteRange{begin, end};
  }
  return loc;
}

// ---------------------------------------------------------------------------
// Rows per operand.

// wgmma.mma_async.sync.aligned.m64nNkK...: A is 64 rows, B is N rows, K
// elements along K (32 bytes of each row).
struct WgmmaShape {
  int64_t rowsA = 0, rowsB = 0, kElements = 0;
};
std::optional<WgmmaShape> wgmmaShape(const Inst& in) {
  for (const auto& m : in.syntax->modifiers) {
    if (m.size() < 5 || m[0] != 'm') continue;
    size_t n = m.find('n'), k = m.find('k');
    if (n == std::string::npos || k == std::string::npos || k < n) continue;
    WgmmaShape shape;
    for (size_t i = 1; i < n; ++i) shape.rowsA = shape.rowsA * 10 + (m[i] - '0');
    for (size_t i = n + 1; i < k; ++i) shape.rowsB = shape.rowsB * 10 + (m[i] - '0');
    for (size_t i = k + 1; i < m.size(); ++i) shape.kElements = shape.kElements * 10 + (m[i] - '0');
    if (shape.rowsA > 0 && shape.rowsB > 0) return shape;
  }
  return std::nullopt;
}

// A transpose immediate: 0 is K-major, 1 MN-major, anything else not known.
OperandMajor majorOfTranspose(const FunctionModel& fn, InstId at, const ptx::Operand& op) {
  const std::optional<int64_t> value = constantOperand(fn, at, op);
  if (value == 0) return OperandMajor::K;
  if (value == 1) return OperandMajor::MN;
  return OperandMajor::Unknown;
}

// wgmma d, a, b, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
// (A from a descriptor) or wgmma d, {a...}, b, scale-d, imm-scale-a,
// imm-scale-b, imm-trans-b (A in registers, always K-major for B's sake).
// Only the 16-bit kinds take transpose operands; the others are K-major.
std::pair<OperandMajor, OperandMajor> wgmmaMajors(const FunctionModel& fn, InstId mma) {
  const auto& ops = fn.instructions[mma].operands;
  const bool aInRegisters = ops.size() > 1 && ops[1].kind == Kind::Vector;
  const size_t transA = 6, transB = aInRegisters ? 6 : 7;
  OperandMajor a = OperandMajor::K, b = OperandMajor::K;
  if (!aInRegisters && ops.size() > transA) a = majorOfTranspose(fn, mma, ops[transA]);
  if (ops.size() > transB) b = majorOfTranspose(fn, mma, ops[transB]);
  return {a, b};
}

// The shapes a tcgen05.mma may have, by the first of its modifiers listed
// (CUTLASS's SM100 UMMA shape checks, cute/arch/mma_sm100_umma.hpp): one CTA
// M = 64 or 128 (128 for the block-scaled kinds; 32 with .ws), N a multiple
// of 8 up to 256; a CTA pair M = 128 or 256, N from 16. The fewest rows are
// the smallest of any kind, so that a kind with a larger minimum only makes
// the certain part smaller than it could be.
struct Tcgen05Shapes {
  std::string_view modifier;
  int64_t fewestM, mostM, fewestN, mostN;
};
constexpr Tcgen05Shapes kTcgen05Shapes[] = {
    {"ws", 32, 128, 64, 256},
    {"cta_group::2", 128, 256, 16, 256},
    {"cta_group::1", 64, 128, 8, 256},
    {"", 32, 256, 8, 256},  // no CTA group: every shape
};

// The kinds whose instruction descriptor holds N >> 3 in bits 17-22 and
// M >> 4 in bits 24-28 (PTX ISA, tcgen05 instruction descriptor; the
// block-scaled layout keeps both fields, CUTLASS InstrDescriptorBlockScaled).
constexpr std::string_view kDecodableKinds[] = {"kind::f16",      "kind::tf32", "kind::f8f6f4",  "kind::i8",
                                                "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"};

// Bytes of one element of a tcgen05 kind in shared memory: 2 for f16, 4 for
// tf32, 1 for the 8-bit kinds and f8f6f4 (its 6- and 4-bit types are padded
// to a byte each in shared memory); 0 for the 4-bit block-scaled kinds
// (two elements a byte, K-major only).
int tcgen05ElementBytes(const Inst& in) {
  if (in.hasModifier("kind::f16")) return 2;
  if (in.hasModifier("kind::tf32")) return 4;
  if (in.hasModifier("kind::i8") || in.hasModifier("kind::f8f6f4") || in.hasModifier("kind::mxf8f6f4")) return 1;
  return 0;
}

bool isFourBitKind(const Inst& in) { return in.hasModifier("kind::mxf4") || in.hasModifier("kind::mxf4nvf4"); }

// [fewest, most] values of a field (`shift`: the low bits not stored) within
// the legal range; the legal range itself when the field's known bits allow
// no legal value.
std::pair<int64_t, int64_t> fieldRange(const KnownBits& bits, int position, int width, int shift, int64_t fewest,
                                       int64_t most) {
  const int64_t low = int64_t(bits.fieldMin(position, width)) << shift;
  const int64_t high = int64_t(bits.fieldMax(position, width)) << shift;
  if (high < fewest || low > most) return {fewest, most};
  return {std::max(low, fewest), std::min(high, most)};
}

MatrixRows tcgen05Rows(const FunctionModel& fn, InstId mma) {
  const Inst& in = fn.instructions[mma];
  const Tcgen05Shapes* shapes = &kTcgen05Shapes[std::size(kTcgen05Shapes) - 1];
  for (const auto& s : kTcgen05Shapes)
    if (!s.modifier.empty() && in.hasModifier(s.modifier)) {
      shapes = &s;
      break;
    }
  const bool decodable =
      std::any_of(std::begin(kDecodableKinds), std::end(kDecodableKinds), [&](auto k) { return in.hasModifier(k); });
  // tcgen05.mma [d], a, b, idesc, ...: the instruction descriptor is operand 3;
  // tcgen05.mma.sp [d], a, b, [metadata], idesc, ...: operand 4.
  const size_t operand = in.hasModifier("sp") ? 4 : 3;
  KnownBits idesc;
  if (decodable && in.operands.size() > operand) idesc = knownBits(fn, in.operands[operand], mma);
  MatrixRows rows;
  // Bits 15 and 16: A and B MN-major (transposed); kinds that allow only
  // K-major operands (the 4-bit block-scaled ones) are K-major whatever
  // the bits hold.
  rows.elementBytes = tcgen05ElementBytes(in);
  auto major = [&](int bit) {
    if (!decodable) return OperandMajor::K;  // no instruction descriptor of the known layout
    if (idesc.fieldKnown(bit, 1)) return idesc.fieldMin(bit, 1) ? OperandMajor::MN : OperandMajor::K;
    return OperandMajor::Unknown;
  };
  rows.majorA = major(15);
  rows.majorB = major(16);
  if (isFourBitKind(in)) rows.majorA = rows.majorB = OperandMajor::K;
  std::tie(rows.fewestA, rows.mostA) = fieldRange(idesc, 24, 5, 4, shapes->fewestM, shapes->mostM);
  std::tie(rows.fewestB, rows.mostB) = fieldRange(idesc, 17, 6, 3, shapes->fewestN, shapes->mostN);
  // A CTA pair splits the pair's tile: each CTA's shared memory holds half of
  // A's M rows and half of B's N rows (the fields count the whole pair's).
  const bool pair = in.hasModifier("cta_group::2");
  if (pair)
    for (int64_t* r : {&rows.fewestA, &rows.mostA, &rows.fewestB, &rows.mostB}) *r /= 2;
  if (rows.exact()) return rows;
  const bool m = rows.fewestA != rows.mostA, n = rows.fewestB != rows.mostB;
  const std::string field = m && n ? "N and M fields" : m ? "M field" : "N field";
  std::string ranges;
  const int64_t perCta = pair ? 2 : 1;  // the fields count the pair's rows
  if (m) ranges = fmt::format("M: {} to {} rows of A", rows.fewestA * perCta, rows.mostA * perCta);
  if (n) ranges += fmt::format("{}N: {} to {} rows of B", m ? ", " : "", rows.fewestB * perCta, rows.mostB * perCta);
  if (pair) ranges += ", half of them in each CTA of the pair";
  rows.why = fmt::format("the {} of the instruction descriptor could not be decoded ({})", field, ranges);
  return rows;
}

bool isDescriptorRegister(const FunctionModel& fn, const ptx::Operand& op) {
  if (op.kind != Kind::Register || op.reg < 0 || fn.registerTypes.size() <= static_cast<size_t>(op.reg)) return false;
  const std::string_view type = fn.registerTypes[op.reg];
  return type == ".b64" || type == ".u64" || type == ".s64";  // descriptors are 64-bit
}

}  // namespace

uint64_t KnownBits::fieldMin(int position, int width) const { return (ones >> position) & lowMask(width); }

uint64_t KnownBits::fieldMax(int position, int width) const { return (~zeros >> position) & lowMask(width); }

KnownBits knownBits(const FunctionModel& fn, const ptx::Operand& op, InstId at) {
  if (!fn.values) return {};
  return KnownBitsWalk(fn).ofOperand(op, at, 0);
}

MatrixRows matrixRows(const FunctionModel& fn, InstId mma) {
  const Inst& in = fn.instructions[mma];
  if (in.effect.kind != EffectKind::Wgmma) return tcgen05Rows(fn, mma);
  MatrixRows rows;
  if (auto shape = wgmmaShape(in)) {
    rows.fewestA = rows.mostA = shape->rowsA;
    rows.fewestB = rows.mostB = shape->rowsB;
    rows.elementBytes = shape->kElements > 0 && 32 % shape->kElements == 0 ? 32 / shape->kElements : 0;
  }
  std::tie(rows.majorA, rows.majorB) = wgmmaMajors(fn, mma);
  return rows;
}

MemoryAnalysis::MatrixOperands MemoryAnalysis::matrixOperands(InstId mma) const {
  MatrixOperands result;
  if (!fn_.values) return result;
  const Inst& in = fn_.instructions[mma];
  const bool wgmma = in.effect.kind == EffectKind::Wgmma;
  const MatrixRows rows = matrixRows(fn_, mma);
  DescriptorDecoder decoder{fn_};
  bool sawDescriptor = false;
  // wgmma: d, a, b, ...: operand 1 is A (a descriptor, or registers), operand 2 is B.
  // tcgen05.mma: [d], a, b, idesc, ...: operands 1 and 2 likewise.
  for (size_t k = 1; k < in.operands.size() && k <= 2; ++k) {
    const ptx::Operand& op = in.operands[k];
    if (!isDescriptorRegister(fn_, op)) continue;
    if (!wgmma && k == 1 && in.operands[k].kind == Kind::Address) continue;  // A in tensor memory
    sawDescriptor = true;
    auto decoded = decoder.decode(op.reg, mma, /*shifted=*/true, 0);
    if (!decoded) {  // one unknown operand: nothing is known
      result.uncertainty = fmt::format("the shared-memory descriptor of operand {} could not be decoded to a "
                                       "shared address",
                                       k == 1 ? "A" : "B");
      return result;
    }
    MemoryObject object = objectOfValue(decoded->address, mma);
    OperandShape shape{k == 1 ? rows.mostA : rows.mostB, k == 1 ? rows.majorA : rows.majorB, rows.elementBytes,
                       !wgmma};
    result.operands.push_back(operandLocation(*decoded, object, shape));
    shape.rows = k == 1 ? rows.fewestA : rows.fewestB;
    result.fewest.push_back(operandLocation(*decoded, std::move(object), shape));
  }
  result.decoded = sawDescriptor && !result.operands.empty();
  if (!result.decoded) result.uncertainty = "its matrix descriptors could not be found";
  else if (!rows.exact()) result.uncertainty = rows.why;
  return result;
}

}  // namespace fenceline::model
