// CFG, dominators, post-dominators and loops over real nvcc output
// (Inputs/model_cfg.cu). MODEL_DUMP=<input> prints every model of an input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "ModelInputs.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

TEST(ModelCfg, Dump) {
  const char* input = std::getenv("MODEL_DUMP");
  if (!input) GTEST_SKIP() << "set MODEL_DUMP=<input> to print its models";
  FENCELINE_LOAD_PROGRAM(p, input);
  for (const auto& f : p.program.functions) std::cout << f.function->name << "\n" << dump(f);
}

TEST(ModelCfg, EveryFunctionHasAModel) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  for (const char* name : {"rolled_loop", "unrolled_loop", "diamond", "nested_loops", "asm_labels", "forever",
                           "early_exit"})
    EXPECT_NO_THROW(p.fn(name)) << name;
  size_t total = 0;
  for (const auto& f : p.program.functions) total += f.instructions.size();
  EXPECT_EQ(p.program.instructionCount, total);
}

TEST(ModelCfg, BlocksPartitionInstructions) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  for (const auto& fn : p.program.functions) {
    InstId next = 0;
    for (BlockId b = 0; b < static_cast<BlockId>(fn.blocks.size()); ++b) {
      EXPECT_EQ(fn.blocks[b].first, next) << fn.function->name;
      for (InstId i = fn.blocks[b].first; i < fn.blocks[b].last; ++i) EXPECT_EQ(fn.blockOf[i], b);
      next = fn.blocks[b].last;
      for (BlockId s : fn.blocks[b].successors) {
        const auto& preds = fn.blocks[s].predecessors;
        EXPECT_NE(std::find(preds.begin(), preds.end(), b), preds.end());
      }
    }
    EXPECT_EQ(next, static_cast<InstId>(fn.instructions.size()));
  }
}

TEST(ModelCfg, StraightLineUnrolledLoopIsOneBlock) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("unrolled_loop");
  EXPECT_EQ(fn.blocks.size(), 1u) << dump(fn);
  EXPECT_TRUE(fn.loops.empty());
  EXPECT_TRUE(fn.blocks[0].successors.empty());
}

TEST(ModelCfg, RolledLoopIsANaturalLoop) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("rolled_loop");
  ASSERT_FALSE(fn.loops.empty()) << dump(fn);
  InstId load = findOne(fn, "ld.global");
  BlockId body = fn.blockOf[load];
  int32_t loop = fn.loopOf[body];
  ASSERT_GE(loop, 0);
  const Loop& l = fn.loops[loop];
  EXPECT_TRUE(fn.dominates(l.header, body));
  EXPECT_FALSE(l.latches.empty());
  EXPECT_FALSE(l.exits.empty());
  for (BlockId latch : l.latches) {
    const auto& s = fn.blocks[latch].successors;
    EXPECT_NE(std::find(s.begin(), s.end(), l.header), s.end());
  }
  // The final store is outside every loop and post-dominates the entry.
  InstId store = findOne(fn, "st.global");
  EXPECT_EQ(fn.loopOf[fn.blockOf[store]], -1);
  EXPECT_TRUE(fn.postDominatesInst(store, 0));
  EXPECT_TRUE(fn.dominatesInst(0, store));
  EXPECT_FALSE(fn.dominatesInst(load, store));
}

TEST(ModelCfg, DiamondJoinPostDominatesBranch) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("diamond");
  InstId branch = findOne(fn, "bra");
  ASSERT_TRUE(fn.instructions[branch].guard.has_value());
  BlockId head = fn.blockOf[branch];
  EXPECT_EQ(fn.blocks[head].successors.size(), 2u) << dump(fn);
  InstId store = findOne(fn, "st.global");
  BlockId join = fn.blockOf[store];
  EXPECT_TRUE(fn.postDominates(join, head));
  EXPECT_EQ(fn.idom[join], head);
  // Neither arm dominates the join; each arm is post-dominated by it.
  for (BlockId arm : fn.blocks[head].successors) {
    if (arm == join) continue;
    EXPECT_FALSE(fn.dominates(arm, join));
    EXPECT_TRUE(fn.postDominates(join, arm));
  }
  EXPECT_TRUE(fn.loops.empty());
}

TEST(ModelCfg, NestedLoopsNest) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("nested_loops");
  ASSERT_GE(fn.loops.size(), 2u) << dump(fn);
  bool nested = false;
  for (const auto& l : fn.loops)
    if (l.parent >= 0) {
      nested = true;
      const Loop& outer = fn.loops[l.parent];
      EXPECT_GT(outer.blocks.size(), l.blocks.size());
      for (BlockId b : l.blocks)
        EXPECT_NE(std::find(outer.blocks.begin(), outer.blocks.end(), b), outer.blocks.end());
    }
  EXPECT_TRUE(nested);
}

TEST(ModelCfg, InlineAsmLabelsStayDistinct) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("asm_labels");
  auto polls = find(fn, "ld.acquire.gpu.global");
  ASSERT_EQ(polls.size(), 2u);
  // Each copy of the asm loop branches back to its own block.
  ASSERT_EQ(fn.loops.size(), 2u) << dump(fn);
  EXPECT_NE(fn.loopOf[fn.blockOf[polls[0]]], fn.loopOf[fn.blockOf[polls[1]]]);
  auto stores = find(fn, "st.global");
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(fn.loopOf[fn.blockOf[stores[0]]], -1);
  EXPECT_TRUE(fn.dominatesInst(polls[0], stores[0]));
  EXPECT_TRUE(fn.dominatesInst(stores[0], polls[1]));
}

TEST(ModelCfg, InfiniteLoopHasNoPostDominator) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("forever");
  InstId store = findOne(fn, "st.volatile");
  BlockId spin = fn.blockOf[store];
  ASSERT_GE(fn.loopOf[spin], 0) << dump(fn);
  EXPECT_TRUE(fn.loops[fn.loopOf[spin]].exits.empty());
  EXPECT_FALSE(fn.postDominates(0, spin));
  EXPECT_FALSE(fn.postDominatesInst(store, 0));
  EXPECT_TRUE(fn.postDominates(spin, spin));
}

TEST(ModelCfg, GuardedBranchToReturnHasTwoSuccessors) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("early_exit");
  InstId branch = findOne(fn, "bra");
  EXPECT_EQ(fn.blocks[fn.blockOf[branch]].successors.size(), 2u);
  for (InstId ret : find(fn, "ret")) {
    EXPECT_TRUE(fn.blocks[fn.blockOf[ret]].successors.empty());
    EXPECT_EQ(fn.instructions[ret].effect.kind, EffectKind::Exit);
  }
  // Label operands name blocks.
  const auto& target = fn.instructions[branch].operands[0];
  ASSERT_EQ(target.kind, ptx::Operand::Kind::Label);
  EXPECT_EQ(fn.blocks[target.label].first, find(fn, "ret").back());
}

TEST(ModelCfg, SourceChainsHaveFilesAndFunctions) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("asm_labels");
  auto chain = fn.sourceChain(findOne(fn, "ld.acquire"));
  ASSERT_FALSE(chain.empty());
  EXPECT_NE(chain.back().file.find("model_cfg.cu"), std::string::npos);
  EXPECT_EQ(chain.back().function, "asm_labels");
}
