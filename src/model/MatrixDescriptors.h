// What a wgmma or tcgen05.mma reads through its descriptors, the parts of
// MemoryAnalysis::matrixOperands (model/Memory.h) that tests ask directly:
//  - the known bits of a value built from constants and unknown values with
//    mov/cvt/and/or/xor/not/shl/shr/bfi/selp (LLVM's KnownBits): a tcgen05
//    instruction descriptor is often assembled at run time, CUTLASS's
//    make_runtime_instr_desc_block_scaled ORs the scale-factor ids taken from
//    tensor-memory addresses into a constant, so its N and M fields stay known;
//  - how many rows of A and B one MMA reads: exact for wgmma (the m64nNkK
//    modifier), for tcgen05.mma the N (bits 17-22, N >> 3) and M (bits 24-28,
//    M >> 4) fields of the instruction descriptor where their bits are known,
//    otherwise the fewest and the most rows the instruction's CTA group allows;
//    with `.cta_group::2` half of them, the rows in one CTA's shared memory
//    (the pair splits A by M and B by N);
//  - which way each operand is laid out: K-major, or MN-major (transposed:
//    wgmma's imm-trans-a / imm-trans-b operands, bits 15 / 16 of a tcgen05
//    instruction descriptor). An MN-major tile is laid out in atoms of 8 K
//    rows of the swizzle width, its leading byte offset stepping along M/N
//    and its stride byte offset along K (the roles swap without swizzle):
//    its span is not the K-major one.
#pragma once

#include <cstdint>
#include <string>

#include "model/Program.h"

namespace fenceline::model {

struct KnownBits {
  uint64_t zeros = 0;  // bits known to be 0
  uint64_t ones = 0;   // bits known to be 1
  static KnownBits constant(uint64_t value) { return {~value, value}; }
  // The least and the greatest value of the field of `width` bits at `position`.
  uint64_t fieldMin(int position, int width) const;
  uint64_t fieldMax(int position, int width) const;
  bool fieldKnown(int position, int width) const { return fieldMin(position, width) == fieldMax(position, width); }
};

// The known bits of operand `op` as used at `at` (nothing known for
// parameters, loaded values, joins of different values).
KnownBits knownBits(const FunctionModel& fn, const ptx::Operand& op, InstId at);

// How an operand tile is laid out along K: K-major (the default), MN-major
// (transposed), or not known (a transpose bit the analysis cannot read).
enum class OperandMajor : uint8_t { K, MN, Unknown };

// Rows of the A and B tiles one MMA reads from this CTA's shared memory, the
// fewest and the most over the shapes its descriptors allow. `why` says what is not decoded when the two
// differ ("N is not decoded: 8 to 256 rows of B").
struct MatrixRows {
  int64_t fewestA = 0, mostA = 0, fewestB = 0, mostB = 0;
  OperandMajor majorA = OperandMajor::K, majorB = OperandMajor::K;
  // Bytes of one element in shared memory (one MMA reads 32 bytes of K of
  // each row); 0 when the kind does not say.
  int elementBytes = 0;
  std::string why;
  bool exact() const { return fewestA == mostA && fewestB == mostB; }
};

// For wgmma without a shape modifier: nothing known (both 0).
MatrixRows matrixRows(const FunctionModel& fn, InstId mma);

}  // namespace fenceline::model
