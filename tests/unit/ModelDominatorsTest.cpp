// Dominators (Lengauer-Tarjan, model/Dominators.cpp) against the definition,
// on random graphs: b's dominators are the fixpoint of
// dom(b) = {b} + intersection of dom(p) over b's reachable predecessors, and
// idom(b) is the strict dominator that all the others dominate. Also
// post-dominators (the same on the reversed graph) and the shape that was
// quadratic before (one header with many back edges). And the constant
// folding of div/rem (model/IntegerDivision.h), which trapped on INT64_MIN / -1.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "model/Build.h"
#include "model/IntegerDivision.h"

using namespace fenceline::model;

namespace {

FunctionModel graph(int count, const std::vector<std::pair<int, int>>& edges) {
  FunctionModel fn;
  fn.blocks.resize(count);
  for (auto [from, to] : edges) {
    auto& succ = fn.blocks[from].successors;
    if (std::find(succ.begin(), succ.end(), to) != succ.end()) continue;
    succ.push_back(to);
    fn.blocks[to].predecessors.push_back(from);
  }
  return fn;
}

// Dominator sets by the textbook fixpoint; empty for unreachable blocks.
std::vector<std::vector<bool>> dominatorSets(const FunctionModel& fn) {
  const size_t n = fn.blocks.size();
  std::vector<bool> reached(n, false);
  std::vector<int> work{0};
  reached[0] = true;
  while (!work.empty()) {
    int b = work.back();
    work.pop_back();
    for (int s : fn.blocks[b].successors)
      if (!reached[s]) reached[s] = true, work.push_back(s);
  }
  std::vector<std::vector<bool>> dom(n, std::vector<bool>(n, true));
  dom[0].assign(n, false);
  dom[0][0] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 1; b < n; ++b) {
      if (!reached[b]) continue;
      std::vector<bool> next(n, true);
      for (int p : fn.blocks[b].predecessors)
        if (reached[p])
          for (size_t k = 0; k < n; ++k) next[k] = next[k] && dom[p][k];
      next[b] = true;
      if (next != dom[b]) dom[b] = next, changed = true;
    }
  }
  for (size_t b = 0; b < n; ++b)
    if (!reached[b]) dom[b].assign(n, false);
  return dom;
}

}  // namespace

TEST(ModelDominators, MatchTheDefinitionOnRandomGraphs) {
  std::mt19937 random(18);
  for (int round = 0; round < 300; ++round) {
    int n = 2 + static_cast<int>(random() % 40);
    std::vector<std::pair<int, int>> edges;
    int count = static_cast<int>(random() % (3 * n));
    for (int e = 0; e < count; ++e) edges.emplace_back(random() % n, random() % n);
    for (int b = 0; b + 1 < n; ++b)
      if (random() % 3) edges.emplace_back(b, b + 1);  // mostly a chain, like code
    FunctionModel fn = graph(n, edges);
    detail::computeDominators(fn);
    auto dom = dominatorSets(fn);
    for (int b = 0; b < n; ++b) {
      for (int a = 0; a < n; ++a) {
        bool expected = a == b || dom[b][a];
        EXPECT_EQ(fn.dominates(a, b), expected) << "round " << round << ": " << a << " dom " << b;
      }
      // idom(b): a strict dominator dominated by every other strict dominator.
      if (b == 0 || !dom[b][b]) {
        EXPECT_EQ(fn.idom[b], -1) << "round " << round << " block " << b;
        continue;
      }
      int idom = fn.idom[b];
      ASSERT_GE(idom, 0) << "round " << round << " block " << b;
      EXPECT_TRUE(dom[b][idom] && idom != b);
      for (int a = 0; a < n; ++a)
        if (dom[b][a] && a != b) EXPECT_TRUE(dom[idom][a]) << "round " << round << ": " << a << " above " << idom;
    }
  }
}

TEST(ModelDominators, PostDominatorsOfADiamondWithALoop) {
  // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 3 (self loop), 3 -> 4 (exit); 5 unreachable.
  FunctionModel fn = graph(6, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 3}, {3, 4}});
  detail::computeDominators(fn);
  EXPECT_EQ(fn.idom, (std::vector<BlockId>{-1, 0, 0, 0, 3, -1}));
  EXPECT_EQ(fn.ipostdom[0], 3);
  EXPECT_EQ(fn.ipostdom[1], 3);
  EXPECT_EQ(fn.ipostdom[3], 4);
  EXPECT_EQ(fn.ipostdom[4], -1);  // the virtual exit
  EXPECT_TRUE(fn.postDominates(4, 0));
  EXPECT_FALSE(fn.postDominates(1, 0));
}

TEST(ModelDominators, ManyBackEdgesToOneHeaderAreNearLinear) {
  // entry -> header -> b1 -> ... -> bN -> exit, every bK -> header: the
  // Cooper-Harvey-Kennedy walks cost N^2 here (200,000 blocks: minutes).
  const int n = 200'000;
  std::vector<std::pair<int, int>> edges{{0, 1}};
  for (int b = 1; b < n; ++b) {
    edges.emplace_back(b, b + 1);
    if (b > 1) edges.emplace_back(b, 1);
  }
  FunctionModel fn = graph(n + 1, edges);
  auto start = std::chrono::steady_clock::now();
  detail::computeDominators(fn);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(fn.idom[n], n - 1);
  EXPECT_EQ(fn.idom[2], 1);
  EXPECT_TRUE(fn.dominates(1, n));
  EXPECT_LT(seconds, 20.0);  // about 0.1 s; generous for sanitizers and a loaded machine
}

TEST(IntegerDivision, FoldsAsPtxComputes) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(foldDivision(kMin, -1, false, false), kMin);  // wraps; C++ would trap
  EXPECT_EQ(foldDivision(kMin, -1, false, true), 0);
  EXPECT_EQ(foldDivision(-7, 2, false, false), -3);
  EXPECT_EQ(foldDivision(-7, 2, false, true), -1);
  // .u64: the bit pattern, not the signed value.
  EXPECT_EQ(foldDivision(-16, 16, true, false), int64_t{0x0fffffffffffffff});
  EXPECT_EQ(foldDivision(kMin, -1, true, false), 0);
  EXPECT_EQ(foldDivision(kMin, -1, true, true), kMin);
  EXPECT_EQ(foldDivision(5, 0, false, false), std::nullopt);
  EXPECT_EQ(foldDivision(5, 0, true, true), std::nullopt);
}
