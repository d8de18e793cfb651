// Path queries (model/Paths.h) over real nvcc output (Inputs/model_cfg.cu),
// and the cost of building the model for a large synthetic kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

#include "ModelInputs.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {
auto is(InstId x) {
  return [x](InstId i) { return i == x; };
}
auto never = [](InstId) { return false; };
}  // namespace

TEST(ModelPaths, DiamondArms) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("diamond");
  auto loads = find(fn, "ld.global");
  ASSERT_EQ(loads.size(), 2u);
  InstId store = findOne(fn, "st.global");
  EXPECT_TRUE(reachable(fn, 0, store));
  EXPECT_TRUE(reachable(fn, loads[0], store));
  EXPECT_FALSE(reachable(fn, loads[0], loads[1]));  // the two arms exclude each other
  EXPECT_FALSE(reachable(fn, store, loads[0]));
  // One arm alone does not cut every path; both arms do.
  EXPECT_FALSE(everyPathPasses(fn, 0, store, is(loads[0])));
  EXPECT_TRUE(everyPathPasses(fn, 0, store, [&](InstId i) { return i == loads[0] || i == loads[1]; }));
  EXPECT_TRUE(everyPathPasses(fn, loads[0], loads[1], never));  // vacuous: unreachable
  // Forward and backward searches.
  EXPECT_EQ(findReachable(fn, loads[0], is(store), never), store);
  EXPECT_EQ(findReachable(fn, loads[0], is(store), is(loads[0] + 1)), -1);
  auto back = findReachingBackward(fn, store, [&](InstId i) { return fn.instructions[i].effect.kind == EffectKind::Load && i > 2; }, never);
  EXPECT_EQ(back, loads);
  auto all = findAllReachable(fn, 0, [&](InstId i) { return fn.instructions[i].effect.kind == EffectKind::Load && i > 2; }, never);
  EXPECT_EQ(all, loads);
}

TEST(ModelPaths, LoopsReachThemselves) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("asm_labels");
  auto polls = find(fn, "ld.acquire");
  auto stores = find(fn, "st.global");
  EXPECT_TRUE(reachable(fn, polls[0], polls[0]));
  EXPECT_FALSE(reachable(fn, stores[0], stores[0]));
  EXPECT_TRUE(reachable(fn, polls[0], polls[1]));
  EXPECT_FALSE(reachable(fn, polls[1], polls[0]));
  // Every path from the first poll to the second passes the first store.
  EXPECT_TRUE(everyPathPasses(fn, polls[0], polls[1], is(stores[0])));
  EXPECT_EQ(findReachingBackward(fn, polls[1], is(stores[0]), never), std::vector<InstId>{stores[0]});
  EXPECT_TRUE(findReachingBackward(fn, polls[1], is(polls[0]), is(stores[0])).empty());
}

TEST(ModelPaths, ReachingAcrossAnInfiniteLoop) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("forever");
  InstId store = findOne(fn, "st.volatile");
  InstId ret = find(fn, "ret").back();
  EXPECT_FALSE(reachable(fn, store, ret));
  EXPECT_TRUE(reachable(fn, store, store));
  EXPECT_TRUE(everyPathPasses(fn, store, ret, never));
}

// reachable() answers from the model's block closures
// (model/BlockReachability.h); the walk of findReachable is the reference.
// Every pair of instructions of every function of model_cfg (diamonds,
// loops, an infinite loop, unreachable code) must agree.
TEST(ModelPaths, ClosuresAgreeWithTheWalk) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  size_t pairs = 0;
  for (const auto& fn : p.program.functions) {
    ASSERT_NE(fn.reachability, nullptr);
    const auto n = static_cast<InstId>(fn.instructions.size());
    for (InstId from = 0; from < n; ++from)
      for (InstId to = 0; to < n; ++to) {
        if (fn.blockOf[from] < 0 || fn.blockOf[to] < 0) continue;
        const bool walked = findReachable(fn, from, is(to), never) >= 0;
        ASSERT_EQ(reachable(fn, from, to), walked) << fn.function->name << ": " << from << " -> " << to;
        ++pairs;
      }
  }
  EXPECT_GT(pairs, 1000u);
}

// The walks given candidate lists (the checks' `mayTarget` and `mayStop`)
// answer as the walks that test every instruction, when the predicates hold
// only at the candidates: every start, target set and stop set of model_cfg's
// functions drawn from its memory accesses and branches, a target and a stop
// at one instruction included.
TEST(ModelPaths, CandidateWalksAgreeWithTheWalk) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  size_t walks = 0, found = 0;
  for (const auto& fn : p.program.functions) {
    const auto n = static_cast<InstId>(fn.instructions.size());
    std::vector<InstId> accesses, branches;
    for (InstId i = 0; i < n; ++i) {
      if (fn.blockOf[i] < 0) continue;
      if (fn.instructions[i].effect.address >= 0) accesses.push_back(i);
      if (fn.instructions[i].opcode() == "bra") branches.push_back(i);
    }
    // Targets: every other access; stops: the branches and every third access.
    std::vector<InstId> targets, stops = branches;
    for (size_t k = 0; k < accesses.size(); ++k) {
      if (k % 2 == 0) targets.push_back(accesses[k]);
      if (k % 3 == 0) stops.push_back(accesses[k]);
    }
    std::sort(stops.begin(), stops.end());
    auto in = [](const std::vector<InstId>& list) {
      return [&list](InstId i) { return std::binary_search(list.begin(), list.end(), i); };
    };
    for (InstId from = 0; from < n; ++from) {
      if (fn.blockOf[from] < 0) continue;
      const std::vector<InstId> reaching = findReachingBackward(fn, from, in(targets), in(stops));
      EXPECT_EQ(findReachingBackward(fn, from, in(targets), in(stops), targets, stops), reaching)
          << fn.function->name << ": from " << from;
      found += reaching.size();
      EXPECT_EQ(findReachingBackward(fn, from, in(targets), never, targets, {}),
                findReachingBackward(fn, from, in(targets), never))
          << fn.function->name << ": from " << from;
      EXPECT_EQ(findReachable(fn, from, in(targets), in(stops), targets, stops),
                findReachable(fn, from, in(targets), in(stops)))
          << fn.function->name << ": from " << from;
      walks += 3;
    }
  }
  EXPECT_GT(walks, 300u);
  EXPECT_GT(found, 50u);  // the walks meet targets: the comparison is not of empty answers
}

// A kernel of ~100k instructions in nvcc's shapes: straight-line address
// arithmetic, guarded branches, loops, re-assigned registers. Building its
// model must stay linear; the time is printed, the bound is only a guard
// against quadratic behaviour (a benchmark lives under bench/).
TEST(ModelPaths, LargeKernelBuildsQuickly) {
  std::ostringstream ptx;
  ptx << ".version 8.0\n.target sm_90a\n.address_size 64\n"
      << ".extern .shared .align 16 .b8 smem[];\n"
      << ".visible .entry big(.param .u64 big_param_0)\n{\n"
      << ".reg .pred %p<4>;\n.reg .b32 %r<100000>;\n.reg .b64 %rd<8>;\n"
      << "ld.param.u64 %rd1, [big_param_0];\ncvta.to.global.u64 %rd2, %rd1;\n"
      << "mov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 31;\nsetp.ne.s32 %p1, %r2, 0;\nmov.u32 %r3, smem;\n"
      << "mov.u32 %r4, 0;\n";
  const int blocks = 5200;
  int r = 10;
  for (int b = 0; b < blocks; ++b) {
    ptx << "$L__BB0_" << b << ":\n";
    ptx << "shl.b32 %r" << r << ", %r4, 3;\n";
    ptx << "and.b32 %r" << r + 1 << ", %r" << r << ", 24;\n";
    ptx << "add.s32 %r" << r + 2 << ", %r3, %r" << r + 1 << ";\n";
    ptx << "ld.shared.u32 %r" << r + 3 << ", [%r" << r + 2 << "+1024];\n";
    ptx << "mad.lo.s32 %r" << r + 4 << ", %r1, 4, %r" << r + 2 << ";\n";
    ptx << "st.shared.u32 [%r" << r + 4 << "+2048], %r" << r + 3 << ";\n";
    ptx << "add.s32 %r4, %r4, 1;\n";
    ptx << "setp.lt.u32 %p2, %r4, " << (b % 7) << ";\n";
    if (b % 5 == 4) ptx << "@%p2 bra $L__BB0_" << b - 2 << ";\n";  // a loop
    ptx << "@%p1 bra $L__BB0_" << b + 1 << ";\n";                // elected region
    ptx << "mbarrier.arrive.shared::cta.b64 %rd3, [%r" << r + 2 << "];\n";
    ptx << "fence.proxy.async.shared::cta;\n";
    for (int k = 0; k < 8; ++k) ptx << "add.s32 %r" << r + 5 + k << ", %r" << r + 4 + k << ", " << k << ";\n";
    r += 14;
  }
  ptx << "$L__BB0_" << blocks << ":\nret;\n}\n";
  std::string text = ptx.str();

  auto start = std::chrono::steady_clock::now();
  ptx::Module module = ptx::parseModule(text, "big.ptx");
  auto parsed = std::chrono::steady_clock::now();
  Program program = buildProgram(module);
  auto built = std::chrono::steady_clock::now();
  ASSERT_EQ(program.functions.size(), 1u);
  const auto& fn = program.functions[0];
  EXPECT_GT(fn.instructions.size(), 90000u);
  EXPECT_FALSE(fn.loops.empty());

  // A few queries of the kind checks make, over the whole kernel.
  InstId last = static_cast<InstId>(fn.instructions.size()) - 1;
  EXPECT_TRUE(reachable(fn, 0, last));
  auto arrives = findAllReachable(fn, 0, [&](InstId i) { return fn.instructions[i].effect.kind == EffectKind::MbarrierArrive; }, never);
  EXPECT_EQ(arrives.size(), static_cast<size_t>(blocks));
  EXPECT_EQ(fn.roles->instructionSet(arrives.front()), ThreadSet::OneLane);
  auto queried = std::chrono::steady_clock::now();

  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::cout << "[ model ] " << fn.instructions.size() << " instructions: parse " << ms(start, parsed) << " ms, model "
            << ms(parsed, built) << " ms, queries " << ms(built, queried) << " ms\n";
  EXPECT_LT(ms(parsed, built), 10000.0);
}
