// Helpers for the program-model unit tests: parse an nvcc-generated input
// (Inputs/model_*.cu), build the program, find functions and instructions.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "PtxInputs.h"
#include "model/Program.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::testing {

// The module must outlive (and not move under) the program built from it.
struct LoadedProgram {
  std::unique_ptr<ptx::Module> module;
  model::Program program;

  const model::FunctionModel& fn(std::string_view name) const {
    for (const auto& f : program.functions)
      if (f.function->name == name) return f;
    throw std::runtime_error("no function model " + std::string(name));
  }
};

inline std::unique_ptr<LoadedProgram> loadProgram(const std::string& name, const std::string& text) {
  auto loaded = std::make_unique<LoadedProgram>();
  loaded->module = std::make_unique<ptx::Module>(ptx::parseModule(text, name + ".ptx"));
  loaded->program = model::buildProgram(*loaded->module);
  return loaded;
}

#define FENCELINE_LOAD_PROGRAM(var, name)        \
  FENCELINE_LOAD_PTX(var##_ptx, name);           \
  auto var##_owner = ::fenceline::testing::loadProgram(name, var##_ptx); \
  const auto& var = *var##_owner

inline std::string dotted(const model::Inst& i) {
  std::string s(i.syntax->opcode);
  for (const auto& m : i.syntax->modifiers) (s += ".") += m;
  return s;
}

// Instructions whose dotted opcode starts with `prefix` ("st.shared", "bar.sync").
inline std::vector<model::InstId> find(const model::FunctionModel& fn, std::string_view prefix) {
  std::vector<model::InstId> out;
  for (size_t i = 0; i < fn.instructions.size(); ++i)
    if (dotted(fn.instructions[i]).starts_with(prefix)) out.push_back(static_cast<model::InstId>(i));
  return out;
}

inline model::InstId findOne(const model::FunctionModel& fn, std::string_view prefix, size_t nth = 0) {
  auto all = find(fn, prefix);
  if (nth >= all.size()) throw std::runtime_error("no instruction " + std::string(prefix));
  return all[nth];
}

// Blocks, edges and instructions, for failure messages.
inline std::string dump(const model::FunctionModel& fn) {
  std::ostringstream out;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    const auto& bb = fn.blocks[b];
    out << "B" << b << " idom=" << fn.idom[b] << " ipdom=" << fn.ipostdom[b] << " loop=" << fn.loopOf[b]
        << " role=" << (fn.roles ? model::toString(fn.roles->blockSet(static_cast<model::BlockId>(b))) : "?") << " ->";
    for (auto s : bb.successors) out << " B" << s;
    out << "\n";
    for (auto i = bb.first; i < bb.last; ++i) {
      const auto& inst = fn.instructions[i];
      out << "  " << i << (inst.guard ? (inst.guard->negated ? " @!" : " @") + std::to_string(inst.guard->reg) : "")
          << " " << dotted(inst);
      for (const auto& op : inst.operands) {
        out << " ";
        if (op.kind == ptx::Operand::Kind::Register) out << "r" << op.reg;
        else if (op.kind == ptx::Operand::Kind::Address) out << "[" << (op.base.kind == ptx::Operand::Kind::Register ? "r" + std::to_string(op.base.reg) : op.baseSymbol()) << "+" << op.offset << "]";
        else if (op.kind == ptx::Operand::Kind::Label) out << "B" << op.label;
        else if (op.kind == ptx::Operand::Kind::Integer) out << op.intValue;
        else out << op.text;
      }
      if (inst.callSite >= 0) out << "   (via " << inst.callSite << ")";
      if (inst.boundStore >= 0) out << "   (bound " << inst.boundStore << ")";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace fenceline::testing
