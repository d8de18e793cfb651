// bar.red in the program model over real nvcc output
// (Inputs/model_memory_bar_red.cu): __syncthreads_or/and/count write their
// destination (model/Operands.h, the one destination table), so the value
// analysis and spin-loop recognition trace a loop exit through bar.red to
// the volatile load it votes on.
#include <gtest/gtest.h>

#include <algorithm>

#include "ModelInputs.h"
#include "model/Operands.h"
#include "model/SpinLoops.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

TEST(ModelMemoryBarRed, BarRedWritesItsDestination) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_bar_red");
  for (const char* kernel : {"bar_red_or", "bar_red_and", "bar_red_popc", "bar_red_counter"}) {
    SCOPED_TRACE(kernel);
    const auto& fn = p.fn(kernel);
    const InstId bar = findOne(fn, "bar.red");
    const Inst& inst = fn.instructions[bar];
    ASSERT_EQ(inst.operands[0].kind, ptx::Operand::Kind::Register) << dump(fn);
    const ValueReg result = inst.operands[0].reg;
    RegisterUse use = registerUse(inst);
    EXPECT_EQ(use.written, std::vector<ValueReg>{result});
    EXPECT_EQ(writtenRegisters(inst), std::vector<ValueReg>{result});
    const ValueReg voted = inst.operands[2].reg;
    EXPECT_NE(std::find(use.read.begin(), use.read.end(), voted), use.read.end());
    // The next reader of the result sees bar.red's definition.
    InstId reader = -1;
    for (InstId i = bar + 1; i < static_cast<InstId>(fn.instructions.size()) && reader < 0; ++i)
      for (ValueReg r : registerUse(fn.instructions[i]).read)
        if (r == result) reader = i;
    ASSERT_GE(reader, 0) << dump(fn);
    EXPECT_EQ(fn.values->definition(result, reader), bar) << dump(fn);
    EXPECT_EQ(fn.values->reachingDefinitions(result, reader), std::vector<InstId>{bar});
  }
}

TEST(ModelMemoryBarRed, SpinLoopsThroughBarRed) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_bar_red");
  for (const char* kernel : {"bar_red_or", "bar_red_and", "bar_red_popc"}) {
    SCOPED_TRACE(kernel);
    const auto& fn = p.fn(kernel);
    auto spins = findSpinLoops(fn);
    ASSERT_EQ(spins.size(), 1u) << dump(fn);
    EXPECT_EQ(spins[0].polls, std::vector<InstId>{findOne(fn, "ld.volatile")});
    EXPECT_FALSE(spins[0].exitBranches.empty());
  }
  // The voted value is a counter, not memory: a loop, not a spin.
  const auto& counter = p.fn("bar_red_counter");
  EXPECT_EQ(counter.loops.size(), 1u) << dump(counter);
  EXPECT_TRUE(findSpinLoops(counter).empty());
}
