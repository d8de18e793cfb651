// Thread roles over real nvcc output (Inputs/model_roles.cu): which threads
// execute the guarded atomic of each kernel.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/ThreadRoles.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// The set that executes the nth atomic (atom or red) of a kernel.
ThreadSet atomicSet(const FunctionModel& fn, size_t nth = 0) {
  std::vector<InstId> atomics;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
    if (fn.instructions[i].effect.kind == EffectKind::ReadModifyWrite) atomics.push_back(i);
  if (nth >= atomics.size()) throw std::runtime_error("no atomic");
  return fn.roles->instructionSet(atomics[nth]);
}

struct Case {
  const char* kernel;
  size_t atomic;
  ThreadSet expected;
};

}  // namespace

TEST(ModelRoles, Elections) {
  FENCELINE_LOAD_PROGRAM(p, "model_roles");
  const Case cases[] = {
      {"lane_and", 0, ThreadSet::OneLane},
      {"lane_rem", 0, ThreadSet::OneLane},
      {"lane_special", 0, ThreadSet::OneLane},
      {"elect", 0, ThreadSet::OneLane},
      {"thread_zero", 0, ThreadSet::OneThread},
      {"thread_zero_3d", 0, ThreadSet::OneThread},
      {"block_thread_zero", 0, ThreadSet::OneBlockThread},
      {"far_election", 0, ThreadSet::OneLane},
      {"early_return", 0, ThreadSet::OneThread},
      {"elect_twice", 0, ThreadSet::OneThread},  // warp 1, one lane
      {"elect_twice", 1, ThreadSet::OneLane},
  };
  for (const auto& c : cases) {
    const auto& fn = p.fn(c.kernel);
    EXPECT_EQ(toString(atomicSet(fn, c.atomic)), toString(c.expected)) << c.kernel << "\n" << dump(fn);
  }
}

TEST(ModelRoles, NotElections) {
  FENCELINE_LOAD_PROGRAM(p, "model_roles");
  const auto& fn = p.fn("not_elections");
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(toString(atomicSet(fn, k)), "subset") << k << "\n" << dump(fn);
}

TEST(ModelRoles, WarpRoleBranch) {
  FENCELINE_LOAD_PROGRAM(p, "model_roles");
  const auto& fn = p.fn("warp_role");
  InstId producerStore = findOne(fn, "st.global");
  EXPECT_EQ(toString(fn.roles->instructionSet(producerStore)), "one-warp") << dump(fn);
  EXPECT_EQ(toString(atomicSet(fn)), "subset");
}

TEST(ModelRoles, UnguardedCodeRunsOnEveryThread) {
  FENCELINE_LOAD_PROGRAM(p, "model_roles");
  const auto& fn = p.fn("lane_and");
  EXPECT_EQ(fn.roles->blockSet(0), ThreadSet::All);
  EXPECT_EQ(fn.roles->instructionSet(findOne(fn, "st.global")), ThreadSet::All);
  // The code after the guarded region runs on every thread again.
  const auto& far = p.fn("far_election");
  EXPECT_EQ(far.roles->instructionSet(findOne(far, "bar.warp.sync")), ThreadSet::All) << dump(far);
  // The guarded store at entry shares the election.
  EXPECT_EQ(far.roles->instructionSet(findOne(far, "st.global")), ThreadSet::OneLane);
}

TEST(ModelRoles, PredicateQueries) {
  FENCELINE_LOAD_PROGRAM(p, "model_roles");
  const auto& fn = p.fn("thread_zero");
  InstId branch = findOne(fn, "bra");
  const auto& guard = *fn.instructions[branch].guard;
  // nvcc branches around the body when tid != 0: the negation elects.
  EXPECT_EQ(fn.roles->predicateSet(guard.reg, !guard.negated, branch), ThreadSet::OneThread);
  EXPECT_EQ(fn.roles->predicateSet(guard.reg, guard.negated, branch), ThreadSet::Subset);
}
