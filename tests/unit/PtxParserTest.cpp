// The PTX parser over real nvcc output (Inputs/ParserShapes.cu, TmaShapes.cu):
// module directives, declarations, functions, name resolution with block
// scoping, operands, and error positions.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fstream>
#include <sstream>

#include "PtxInputs.h"
#include "ptx/Parser.h"

using namespace fenceline;
using namespace fenceline::ptx;
using fenceline::testing::functionNamed;

namespace {

const Variable* global(const Module& m, std::string_view name) {
  for (const auto& v : m.globals)
    if (v.name == name) return &v;
  return nullptr;
}

std::vector<const Instruction*> withOpcode(const Function& f, std::string_view opcode) {
  std::vector<const Instruction*> out;
  for (const auto& i : f.instructions)
    if (i.opcode == opcode) out.push_back(&i);
  return out;
}

std::string dotted(const Instruction& i) {
  std::string s(i.opcode);
  for (const auto& m : i.modifiers) (s += ".") += m;
  return s;
}

const Instruction* firstDotted(const Function& f, std::string_view name) {
  for (const auto& i : f.instructions)
    if (dotted(i) == name) return &i;
  return nullptr;
}

}  // namespace

TEST(PtxParser, ModuleDirectives) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  EXPECT_EQ(m.path, "ParserShapes.ptx");
  EXPECT_EQ(m.version.substr(0, 1), "9");
  ASSERT_EQ(m.targets.size(), 1u);
  EXPECT_EQ(m.targets[0], "sm_90a");
  EXPECT_EQ(m.addressSize, 64);
  ASSERT_FALSE(m.files.empty());
  EXPECT_NE(m.files[0].path.find("ParserShapes.cu"), std::string::npos);
}

TEST(PtxParser, GlobalsInEveryShape) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Variable* counter = global(m, "shapes_counter");
  ASSERT_TRUE(counter);
  EXPECT_EQ(counter->space, ".global");
  EXPECT_EQ(counter->type, ".u32");
  EXPECT_EQ(counter->align, 4);
  EXPECT_EQ(counter->arraySize, -1);
  EXPECT_EQ(counter->initializer, std::vector<int64_t>{5});

  const Variable* table = global(m, "shapes_table");
  ASSERT_TRUE(table);
  EXPECT_EQ(table->type, ".b8");
  EXPECT_EQ(table->arraySize, 12);
  ASSERT_GE(table->initializer.size(), 9u);
  EXPECT_EQ(table->initializer[0], 1);
  EXPECT_EQ(table->initializer[4], 2);
  EXPECT_EQ(table->initializer[8], 3);

  const Variable* smem = global(m, "shapes_dynamic_smem");
  ASSERT_TRUE(smem);
  EXPECT_TRUE(smem->isExtern);
  EXPECT_EQ(smem->space, ".shared");
  EXPECT_EQ(smem->arraySize, 0);
  EXPECT_EQ(smem->align, 16);

  // A function-pointer initializer is a symbol: kept as a placeholder value.
  const Variable* fn = global(m, "shapes_fn");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->initializer.size(), 1u);
}

TEST(PtxParser, FunctionsPrototypesAndPerformanceDirectives) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& helper = functionNamed(m, "_Z13shapes_helperii");
  EXPECT_FALSE(helper.isEntry);
  ASSERT_EQ(helper.returns.size(), 1u);
  EXPECT_EQ(helper.returns[0].name, "func_retval0");
  EXPECT_EQ(helper.returns[0].type, ".b32");
  ASSERT_EQ(helper.params.size(), 2u);
  EXPECT_EQ(helper.params[1].name, "_Z13shapes_helperii_param_1");

  // _Z12shapes_twicei is declared (prototype, no body) before it is defined.
  int declarations = 0, definitions = 0;
  for (const auto& f : m.functions)
    if (f.name == "_Z12shapes_twicei") (f.hasBody ? definitions : declarations)++;
  EXPECT_EQ(declarations, 1);
  EXPECT_EQ(definitions, 1);

  const Function& calls = functionNamed(m, "shapes_calls");
  EXPECT_TRUE(calls.isEntry);
  EXPECT_TRUE(calls.isVisible);
  ASSERT_EQ(calls.params.size(), 2u);
  EXPECT_EQ(calls.params[1].type, ".f32");
  using Directive = std::pair<std::string, std::vector<int64_t>>;
  EXPECT_EQ(calls.performanceDirectives,
            (std::vector<Directive>{{".maxntid", {128, 1, 1}}, {".minnctapersm", {2}}}));

  const Function& cluster = functionNamed(m, "shapes_cluster");
  EXPECT_EQ(cluster.performanceDirectives,
            (std::vector<Directive>{{".explicitcluster", {}}, {".reqnctapercluster", {2, 1, 1}}}));
  ASSERT_EQ(cluster.locals.size(), 1u);  // the demoted __shared__ array
  EXPECT_EQ(cluster.locals[0].space, ".shared");
  EXPECT_EQ(cluster.locals[0].arraySize, 128);

  const Function& loop = functionNamed(m, "shapes_loop");
  EXPECT_EQ(loop.pragmas, std::vector<std::string>{"nounroll"});
}

TEST(PtxParser, RegisterRangesExpand) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& helper = functionNamed(m, "_Z13shapes_helperii");
  // .reg .b32 %r<4>;  =>  %r0 .. %r3, numbered in the order the body first
  // uses them (the unused ones last), as the program model numbers them.
  ASSERT_EQ(helper.registers.size(), 4u);
  std::set<std::string> names;
  for (const auto& r : helper.registers) {
    names.insert(std::string(r.name));
    EXPECT_EQ(r.type, ".b32");
  }
  EXPECT_EQ(names, (std::set<std::string>{"%r0", "%r1", "%r2", "%r3"}));
  std::vector<RegisterId> firstUses;
  auto see = [&](RegisterId r) {
    if (r >= 0 && std::find(firstUses.begin(), firstUses.end(), r) == firstUses.end()) firstUses.push_back(r);
  };
  std::function<void(const Operand&)> visit = [&](const Operand& op) {
    if (op.kind == Operand::Kind::Register) see(op.reg);
    if (op.kind == Operand::Kind::Address && op.base.kind == Operand::Kind::Register) see(op.base.reg);
    for (const Operand& e : op.elements) visit(e);
  };
  for (const Instruction& inst : helper.instructions) {
    for (const Operand& op : inst.operands) visit(op);
    if (inst.guard) see(inst.guard->reg);
  }
  for (size_t k = 0; k < firstUses.size(); ++k) EXPECT_EQ(firstUses[k], static_cast<RegisterId>(k));
  const Instruction* mad = withOpcode(helper, "mad").at(0);
  ASSERT_EQ(mad->operands.size(), 4u);
  EXPECT_EQ(mad->operands[0].kind, Operand::Kind::Register);
  EXPECT_EQ(helper.registers[mad->operands[0].reg].name, "%r3");
  EXPECT_EQ(mad->operands[3].kind, Operand::Kind::Integer);
  EXPECT_EQ(mad->operands[3].intValue, 1);
}

TEST(PtxParser, InlineAsmCopiesGetTheirOwnLabelsAndRegisters) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& f = functionNamed(m, "shapes_calls");
  std::vector<LabelId> waits;
  for (LabelId id = 0; id < static_cast<LabelId>(f.labels.size()); ++id)
    if (f.labels[id].name == "LAB_WAIT") waits.push_back(id);
  ASSERT_EQ(waits.size(), 2u);

  // Each `@p bra LAB_WAIT` branches to the label of its own copy, on the
  // setp just after it, and is guarded by its own block-local `p`.
  std::vector<const Instruction*> branches;
  for (const auto& i : f.instructions)
    if (i.opcode == "bra" && i.inInlineAsm) branches.push_back(&i);
  ASSERT_EQ(branches.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const Instruction& bra = *branches[k];
    ASSERT_EQ(bra.operands.size(), 1u);
    EXPECT_EQ(bra.operands[0].kind, Operand::Kind::Label);
    EXPECT_EQ(bra.operands[0].label, waits[k]);
    const Instruction& target = f.instructions.at(f.labels[waits[k]].instruction);
    EXPECT_EQ(target.opcode, "setp");
    ASSERT_TRUE(bra.guard.has_value());
    EXPECT_FALSE(bra.guard->negated);
    EXPECT_EQ(f.registers[bra.guard->reg].name, "p");
    EXPECT_EQ(bra.guard->reg, target.operands[0].reg);
  }
  EXPECT_NE(branches[0]->guard->reg, branches[1]->guard->reg);
}

TEST(PtxParser, CallsWithParamListsAndPrototypes) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& f = functionNamed(m, "shapes_calls");
  auto calls = withOpcode(f, "call");
  ASSERT_EQ(calls.size(), 2u);
  const Instruction& direct = *calls[0];
  EXPECT_TRUE(direct.hasModifier("uni"));
  ASSERT_EQ(direct.operands.size(), 3u);
  EXPECT_EQ(direct.operands[0].kind, Operand::Kind::ParamList);
  ASSERT_EQ(direct.operands[0].elements.size(), 1u);
  EXPECT_EQ(direct.operands[0].elements[0].text, "retval0");
  EXPECT_EQ(direct.operands[1].kind, Operand::Kind::Symbol);
  EXPECT_EQ(direct.operands[1].text, "_Z13shapes_helperii");
  ASSERT_EQ(direct.operands[2].elements.size(), 2u);
  EXPECT_EQ(direct.operands[2].elements[1].text, "param1");

  const Instruction& indirect = *calls[1];
  ASSERT_EQ(indirect.operands.size(), 4u);
  EXPECT_EQ(indirect.operands[1].kind, Operand::Kind::Register);
  EXPECT_EQ(indirect.operands[3].kind, Operand::Kind::Symbol);
  EXPECT_EQ(indirect.operands[3].text, "prototype_1");

  // Parameters declared inside the call blocks are locals.
  int params = 0;
  for (const auto& v : f.locals) params += v.space == ".param";
  EXPECT_GE(params, 4);
}

TEST(PtxParser, AddressesImmediatesAndSpecialRegisters) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& f = functionNamed(m, "shapes_calls");

  const Instruction* mov = firstDotted(f, "mov.u32");
  ASSERT_TRUE(mov);
  EXPECT_EQ(mov->operands[1].kind, Operand::Kind::Special);
  EXPECT_EQ(mov->operands[1].text, "%tid.x");

  const Instruction* mul = firstDotted(f, "mul.f32");
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->operands[2].kind, Operand::Kind::Float);
  EXPECT_DOUBLE_EQ(mul->operands[2].floatValue, 1.5);  // 0f3FC00000

  bool sawMinus7 = false;
  for (const auto& i : f.instructions)
    for (const auto& o : i.operands) sawMinus7 |= o.kind == Operand::Kind::Integer && o.intValue == -7;
  EXPECT_TRUE(sawMinus7);

  // st.param.b32 [param0+0], %r16  and  ld.global.u32 %r17, [shapes_counter]
  const Instruction* stParam = firstDotted(f, "st.param.b32");
  ASSERT_TRUE(stParam);
  EXPECT_EQ(stParam->operands[0].kind, Operand::Kind::Address);
  EXPECT_EQ(stParam->operands[0].base.kind, Operand::Kind::Symbol);
  EXPECT_EQ(stParam->operands[0].baseSymbol(), "param0");
  EXPECT_EQ(stParam->operands[0].offset, 0);
  bool sawCounter = false;
  for (const auto* ld : withOpcode(f, "ld"))
    sawCounter |= ld->operands[1].kind == Operand::Kind::Address && ld->operands[1].baseSymbol() == "shapes_counter";
  EXPECT_TRUE(sawCounter);

  // Predicate pair and sink-free setp in inline asm: setp.lt.s32 lo|hi, ...
  bool sawPair = false;
  for (const auto* setp : withOpcode(f, "setp"))
    if (setp->operands[0].kind == Operand::Kind::PredicatePair) {
      sawPair = true;
      ASSERT_EQ(setp->operands[0].elements.size(), 2u);
      EXPECT_EQ(f.registers[setp->operands[0].elements[0].reg].name, "lo");
      EXPECT_EQ(f.registers[setp->operands[0].elements[1].reg].name, "hi");
    }
  EXPECT_TRUE(sawPair);
}

TEST(PtxParser, VectorOperandsAndOffsets) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& f = functionNamed(m, "shapes_vectors");
  const Instruction* ld = firstDotted(f, "ld.global.nc.v4.f32");
  ASSERT_TRUE(ld);
  EXPECT_EQ(ld->operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(ld->operands[0].elements.size(), 4u);
  const Instruction* st = firstDotted(f, "st.global.v4.f32");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->operands[1].kind, Operand::Kind::Vector);
  bool sawOffset = false;
  for (const auto* i : withOpcode(f, "ld"))
    sawOffset |= i->operands[1].kind == Operand::Kind::Address && i->operands[1].offset == 1036;
  EXPECT_TRUE(sawOffset);  // in[i + 64].w: [%rd6+1036]

  // `@%p1 bra $L__BB...` (if (i >= n) return): a guarded branch to a label.
  bool sawGuardedBranch = false;
  for (const auto* b : withOpcode(f, "bra")) sawGuardedBranch |= b->guard.has_value();
  EXPECT_TRUE(sawGuardedBranch);
}

TEST(PtxParser, TensorCoordinatesAndScopedModifiers) {
  FENCELINE_LOAD_PTX(text, "TmaShapes");
  Module m = parseModule(text, "TmaShapes.ptx");
  const Function& f = functionNamed(m, "tma_load");
  const Instruction* cp = withOpcode(f, "cp").at(0);
  EXPECT_EQ(std::vector<std::string>(cp->modifiers.begin(), cp->modifiers.end()), (std::vector<std::string>{"async", "bulk", "tensor", "2d", "shared::cluster", "global",
                                                     "tile", "mbarrier::complete_tx::bytes"}));
  EXPECT_TRUE(cp->inInlineAsm);
  ASSERT_EQ(cp->operands.size(), 3u);
  const Operand& src = cp->operands[1];
  EXPECT_EQ(src.kind, Operand::Kind::Address);
  EXPECT_EQ(src.base.kind, Operand::Kind::Register);
  ASSERT_EQ(src.elements.size(), 2u);  // {x, y} coordinates, flattened
  EXPECT_EQ(src.elements[0].kind, Operand::Kind::Register);

  const Instruction* wait = firstDotted(f, "mbarrier.try_wait.parity.shared::cta.b64");
  ASSERT_TRUE(wait);
  EXPECT_EQ(f.registers[wait->operands[0].reg].name, "P_OUT");
  EXPECT_TRUE(firstDotted(f, "fence.proxy.async.shared::cta"));
  EXPECT_FALSE(firstDotted(f, "bar.sync")->inInlineAsm);
}

TEST(PtxParser, EveryInstructionHasAPosition) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  for (const auto& f : m.functions)
    for (const auto& i : f.instructions) {
      EXPECT_GT(i.pos.line, 0u);
      EXPECT_GT(i.pos.column, 0u);
    }
}

TEST(PtxParser, ImmediatesInEverySpelling) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  const Function& f = functionNamed(m, "shapes_immediates");
  const Instruction* fma = firstDotted(f, "fma.rn.f64");
  ASSERT_TRUE(fma);
  EXPECT_EQ(fma->operands[2].kind, Operand::Kind::Float);
  EXPECT_DOUBLE_EQ(fma->operands[2].floatValue, 1.5);   // 0d3FF8000000000000
  EXPECT_DOUBLE_EQ(fma->operands[3].floatValue, 0.25);  // 0d3FD0000000000000
  const Instruction* hex = firstDotted(f, "and.b32");
  ASSERT_TRUE(hex);
  EXPECT_EQ(hex->operands[2].kind, Operand::Kind::Integer);
  EXPECT_EQ(hex->operands[2].intValue, 0xF0F0);
  const Instruction* suffixed = firstDotted(f, "add.u32");
  ASSERT_TRUE(suffixed);
  EXPECT_EQ(suffixed->operands[2].intValue, 7);  // 7U
  EXPECT_EQ(f.registers[suffixed->operands[1].reg].name, "t");  // asm-local, no '%'
}

TEST(PtxParser, RegisterAndClusterLimits) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Module m = parseModule(text, "ParserShapes.ptx");
  using Directive = std::pair<std::string, std::vector<int64_t>>;
  EXPECT_EQ(functionNamed(m, "shapes_immediates").performanceDirectives,
            (std::vector<Directive>{{".maxnreg", {64}}}));
  EXPECT_EQ(functionNamed(m, "shapes_cluster_rank").performanceDirectives,
            (std::vector<Directive>{{".maxntid", {256, 1, 1}}, {".minnctapersm", {1}}, {".maxclusterrank", {4}}}));
}

TEST(PtxParser, FileDirectiveWithTimestampAndSize) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  // ptxas accepts `.file N "path", timestamp, size`; nvcc -lineinfo omits the
  // last two. Add them to the real output.
  std::string withStamp = text;
  size_t at = withStamp.find("InlineChains.cu\"");
  ASSERT_NE(at, std::string::npos);
  withStamp.insert(at + std::string("InlineChains.cu\"").size(), ", 1700000000, 2048");
  Module m = parseModule(withStamp, "stamped.ptx");
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_EQ(m.files[0].index, 1);
  EXPECT_NE(m.files[0].path.find("InlineChains.cu"), std::string::npos);
}

// TileLang writes a qualifier after a space (`...bulk_group .L2::cache_hint`),
// which ptxas accepts: it belongs to the opcode, not to the operands.
TEST(PtxParser, QualifierAfterASpaceIsAModifier) {
  std::ifstream in(std::string(FENCELINE_TEST_DIR) + "/parse/Inputs/tilelang/gemm_tma_store.ptx");
  ASSERT_TRUE(in) << "the committed TileLang fixture";
  std::stringstream text;
  text << in.rdbuf();
  Module m = parseModule(text.str(), "gemm_tma_store.ptx");
  ASSERT_FALSE(m.functions.empty());
  const Instruction* store =
      firstDotted(m.functions[0], "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->operands.size(), 3u);  // [tensor map, {coordinates}], [smem], cache policy
}

// The syntax tree is most of a function's memory (docs/performance.md, "Peak
// memory"): its nodes hold views into pools, not strings.
TEST(PtxSyntaxTree, NodesStaySmall) {
  EXPECT_LE(sizeof(Operand), 112u);
  EXPECT_LE(sizeof(Instruction), 88u);
}

TEST(PtxSyntaxTree, SpellingsAreSharedAndTextOutlivesTheModule) {
  const std::string text =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k(.param .u64 k_param_with_a_long_name)\n{\n"
      "  .reg .b64 %rd<3>;\n"
      "  ld.param.u64 %rd1, [k_param_with_a_long_name];\n"
      "  ld.param.u64 %rd2, [k_param_with_a_long_name+8];\n"
      "  cp.async.bulk.commit_group .L2::cache_hint;\n"
      "  ret;\n}\n";
  Function copy;
  {
    Module m = parseModule(text, "pool.ptx");
    copy = functionNamed(m, "k");
  }
  ASSERT_EQ(copy.instructions.size(), 4u);
  const Instruction& first = copy.instructions[0];
  const Instruction& second = copy.instructions[1];
  EXPECT_EQ(first.opcode, "ld");
  EXPECT_EQ(first.modifiers.data(), second.modifiers.data());  // one interned spelling
  EXPECT_EQ(first.operands[1].baseSymbol(), "k_param_with_a_long_name");
  EXPECT_EQ(first.operands[1].baseSymbol().data(), second.operands[1].baseSymbol().data());  // stored once
  EXPECT_EQ(first.operands[0].text, "%rd1");
  // A qualifier after a space is one more modifier.
  EXPECT_EQ(dotted(copy.instructions[2]), "cp.async.bulk.commit_group.L2::cache_hint");
  EXPECT_TRUE(copy.instructions[2].hasModifier("L2::cache_hint"));
}
