// model/PairTable.h and model/InternedLists.h: the protocol model's memo of
// pairwise answers by row, and its lists kept once.
#include "model/InternedLists.h"
#include "model/PairTable.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

namespace fenceline::model {
namespace {

TEST(PairTable, FindsWhatWasAssignedAcrossGrowth) {
  PairTable<uint32_t> table;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> reference;
  std::mt19937_64 random(35);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t row = random() % 5000, column = random() % 5000;
    reference[{row, column}] = static_cast<uint32_t>(i);
    table.assign(row, column, static_cast<uint32_t>(i));
  }
  EXPECT_EQ(table.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const uint32_t* found = table.find(key.first, key.second);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  EXPECT_EQ(table.find(7000, 0), nullptr);
  EXPECT_EQ(table.find(0, 7000), nullptr);
  // 8 bytes a slot, at least 3/8 full once grown; the rows' index and headers.
  EXPECT_LE(table.bytes(), reference.size() * 8 * 8 / 3 + 5000 * (4 + 16 + 4 * 8));
}

TEST(PairTable, SlotAddsADefaultValueOrReturnsTheKeptOne) {
  PairTable<uint32_t> table;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> reference;
  std::mt19937_64 random(36);
  for (int i = 0; i < 50000; ++i) {  // read-modify-writes across growth
    const uint32_t row = random() % 300, column = random() % 3000;
    const uint32_t bit = 1u << (random() % 32);
    table.slot(row, column) |= bit;
    reference[{row, column}] |= bit;
  }
  EXPECT_EQ(table.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const uint32_t* found = table.find(key.first, key.second);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  EXPECT_EQ(table.slot(9000, 1), 0u);  // a new pair starts at T{}
  EXPECT_EQ(table.size(), reference.size() + 1);
}

TEST(PairTable, AnyRowAndColumnIsAKey) {
  // Rows past the indexed ones, and the all-ones column, go to a PairMap.
  PairTable<uint8_t> table;
  const uint32_t allOnes = ~uint32_t(0);
  EXPECT_EQ(table.find(allOnes, allOnes), nullptr);
  table.assign(allOnes, allOnes, 1);
  table.assign(3, allOnes, 2);
  table.assign(uint32_t(1) << 30, 5, 3);
  table.assign(3, 5, 4);
  ASSERT_NE(table.find(allOnes, allOnes), nullptr);
  EXPECT_EQ(*table.find(allOnes, allOnes), 1);
  EXPECT_EQ(*table.find(3, allOnes), 2);
  EXPECT_EQ(*table.find(uint32_t(1) << 30, 5), 3);
  EXPECT_EQ(*table.find(3, 5), 4);
  EXPECT_EQ(table.find(5, 3), nullptr);
  EXPECT_EQ(table.size(), 4u);
}

TEST(PairTable, BoolValues) {
  PairTable<bool> table;
  for (uint32_t k = 0; k < 2000; ++k) table.assign(k % 7, k, k % 3 == 0);
  for (uint32_t k = 0; k < 2000; ++k) {
    ASSERT_NE(table.find(k % 7, k), nullptr);
    EXPECT_EQ(*table.find(k % 7, k), k % 3 == 0);
    EXPECT_EQ(table.find(k % 7 + 7, k), nullptr);
  }
}

TEST(InternedLists, EachDistinctListOnce) {
  ListMemo memo;
  EXPECT_EQ(memo.find(1), nullptr);
  const std::vector<InstId>& a = memo.set(1, {4, 5, 6});
  const std::vector<InstId>& b = memo.set(2, {4, 5, 6});
  EXPECT_EQ(&a, &b);  // one list for both keys
  memo.set(3, {});
  for (InstId k = 10; k < 1000; ++k) memo.set(k, {k % 5});
  ASSERT_NE(memo.find(1), nullptr);
  EXPECT_EQ(memo.find(1), &a);  // the references stay valid
  EXPECT_EQ(*memo.find(2), (std::vector<InstId>{4, 5, 6}));
  EXPECT_TRUE(memo.find(3)->empty());
  EXPECT_EQ(*memo.find(999), std::vector<InstId>{4});
  EXPECT_EQ(memo.find(4), nullptr);
  EXPECT_EQ(memo.size(), 3u + 990u);
}

}  // namespace
}  // namespace fenceline::model
