// Which registers an instruction writes, reads as data, and uses to form
// addresses: the one table of destination operands in the program model.
// Every analysis that follows registers (values, reaching definitions, value
// identity, spin loops) asks here, so that they agree on, for example,
// `bar.red.or.pred %p, ...` writing %p (a `__syncthreads_or` spin loop) and
// `st [%rd], %r` writing nothing.
#pragma once

#include <cstdint>
#include <string_view>
#include <functional>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// Does operand 0 of this instruction receive a result (when it is a register,
// a vector of registers or a predicate pair)?
bool writesFirstOperand(const ptx::Instruction& instruction);
// Operand 0 is a register (or vector, predicate pair) the instruction
// writes: writesFirstOperand, found once per Inst.
bool writesOperand0(const Inst& inst);

struct RegisterUse {
  std::vector<ValueReg> written;
  std::vector<ValueReg> read;       // data operands and the guard predicate
  std::vector<ValueReg> addressed;  // base registers of `[...]` operands
};
RegisterUse registerUse(const Inst& inst);
// The same registers, with no allocation: `visit(reg, false)` for each read
// (data operands, address bases, the guard), then `visit(reg, true)` for each
// written. For walks that ask every instruction of many blocks.
void visitRegisters(const Inst& inst, const std::function<void(ValueReg, bool)>& visit);

// The registers operand 0 defines (empty when the instruction writes none).
std::vector<ValueReg> writtenRegisters(const Inst& inst);

// Width in bytes of a type modifier (`b32` -> 4, `f16` -> 2), or 0 when the
// modifier is no sized type.
int64_t typeWidth(std::string_view modifier);

// The number of elements a vector access moves (.v2: 2, .v4: 4, .v8: 8); 1
// for a scalar.
int vectorLength(const ptx::Instruction& instruction);

}  // namespace fenceline::model
