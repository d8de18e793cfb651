// model/PairMap.h: the protocol model's memo of pairwise answers.
#include "model/PairMap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

namespace fenceline::model {
namespace {

TEST(PairMap, FindsWhatWasInsertedAcrossGrowth) {
  PairMap<uint32_t> map;
  std::map<uint64_t, uint32_t> reference;
  std::mt19937_64 random(35);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t key = (random() % 5000) << 32 | (random() % 5000);
    if (reference.count(key)) continue;
    reference[key] = static_cast<uint32_t>(i);
    map.insert(key, static_cast<uint32_t>(i));
  }
  EXPECT_EQ(map.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const uint32_t* found = map.find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  EXPECT_EQ(map.find(uint64_t(7000) << 32), nullptr);
  // Two arrays of 12 bytes a slot, between 1/2 and 3/4 full after growing by half.
  EXPECT_LE(map.bytes(), reference.size() * 12 * 2 + 64 * 12);
}

TEST(PairMap, AssignAddsOrOverwrites) {
  PairMap<uint32_t> map;
  EXPECT_EQ(map.find(42), nullptr);
  map.assign(42, 1);
  map.assign(43, 2);
  map.assign(42, 3);
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(*map.find(42), 3u);
  EXPECT_EQ(*map.find(43), 2u);
  for (uint64_t k = 0; k < 1000; ++k) map.assign(k << 32 | k, static_cast<uint32_t>(k));
  for (uint64_t k = 0; k < 1000; ++k) map.assign(k << 32 | k, static_cast<uint32_t>(k + 1));
  for (uint64_t k = 0; k < 1000; ++k) EXPECT_EQ(*map.find(k << 32 | k), k + 1);
  EXPECT_EQ(*map.find(42), 3u);
}

TEST(PairMap, SlotAddsADefaultValueOrReturnsTheKeptOne) {
  PairMap<uint32_t> map;
  std::map<uint64_t, uint32_t> reference;
  std::mt19937_64 random(36);
  for (int i = 0; i < 50000; ++i) {  // read-modify-writes across growth
    const uint64_t key = (random() % 3000) << 32 | (random() % 300);
    const uint32_t bit = 1u << (random() % 32);
    map.slot(key) |= bit;
    reference[key] |= bit;
  }
  EXPECT_EQ(map.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const uint32_t* found = map.find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  EXPECT_EQ(map.slot(uint64_t(9000) << 32), 0u);  // a new key starts at T{}
  EXPECT_EQ(map.size(), reference.size() + 1);
  map.slot(~uint64_t(0)) = 5;
  EXPECT_EQ(*map.find(~uint64_t(0)), 5u);
}

TEST(PairMap, TheAllOnesKeyIsAKeyToo) {
  PairMap<bool> map;
  const uint64_t allOnes = ~uint64_t(0);
  EXPECT_EQ(map.find(allOnes), nullptr);
  map.insert(allOnes, true);
  ASSERT_NE(map.find(allOnes), nullptr);
  EXPECT_TRUE(*map.find(allOnes));
  map.assign(allOnes, false);
  EXPECT_FALSE(*map.find(allOnes));
  EXPECT_EQ(map.size(), 1u);
}

}  // namespace
}  // namespace fenceline::model
