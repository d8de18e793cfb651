// The executable's operator new/delete (src/alloc/SizeClassAllocator.cpp),
// linked into this test binary the way it is into fenceline: sizes and
// alignment, reuse of freed blocks, over-aligned and large blocks, a block
// freed by another thread, and allocation failure.
#include <gtest/gtest.h>

#include "model/Limits.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <thread>
#include <vector>

namespace {

bool alignedTo(const void* p, std::size_t alignment) { return reinterpret_cast<std::uintptr_t>(p) % alignment == 0; }

}  // namespace

TEST(SizeClassAllocator, EverySmallSizeIsWritableAnd16ByteAligned) {
  std::vector<std::pair<char*, std::size_t>> blocks;
  for (std::size_t n = 0; n <= 600; ++n) {
    char* p = static_cast<char*>(::operator new(n));
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(alignedTo(p, 16)) << n;
    std::memset(p, int(n & 0xFF), n);
    blocks.emplace_back(p, n);
  }
  // No block overlaps another: each still holds its own pattern.
  for (auto [p, n] : blocks)
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(static_cast<unsigned char>(p[k]), n & 0xFF) << n;
  for (auto [p, n] : blocks) ::operator delete(p, n);
}

TEST(SizeClassAllocator, AFreedBlockIsReusedForItsSizeClass) {
  void* a = ::operator new(40);
  ::operator delete(a);
  void* b = ::operator new(48);  // the same 16-byte class as 40
  EXPECT_EQ(a, b);
  void* c = ::operator new(72);  // another class: not that block
  EXPECT_NE(c, b);
  ::operator delete(b, 48);
  ::operator delete(c);
}

TEST(SizeClassAllocator, OverAlignedBlocks) {
  struct alignas(64) Line {
    char bytes[64];
  };
  auto line = std::make_unique<Line>();
  EXPECT_TRUE(alignedTo(line.get(), 64));
  for (std::size_t alignment : {16u, 32u, 128u, 4096u}) {
    void* p = ::operator new(100, std::align_val_t(alignment));
    EXPECT_TRUE(alignedTo(p, alignment)) << alignment;
    std::memset(p, 0xAB, 100);
    ::operator delete(p, std::align_val_t(alignment));
  }
  void* q = ::operator new[](3, std::align_val_t(256), std::nothrow);
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(alignedTo(q, 256));
  ::operator delete[](q, std::align_val_t(256));
}

TEST(SizeClassAllocator, LargeBlocksAndManyChunks) {
  std::vector<char> big(3 << 20, 'x');  // from malloc, behind a header
  EXPECT_TRUE(alignedTo(big.data(), 16));
  EXPECT_EQ(big[(3 << 20) - 1], 'x');
  // More small blocks than one chunk holds: all distinct.
  std::vector<std::unique_ptr<std::uint64_t[]>> many;
  for (int i = 0; i < 40000; ++i) {
    many.emplace_back(new std::uint64_t[4]);
    many.back()[0] = std::uint64_t(i);
  }
  for (int i = 0; i < 40000; ++i) ASSERT_EQ(many[i][0], std::uint64_t(i));
}

TEST(SizeClassAllocator, ABlockFreedByAnotherThread) {
  std::vector<int*> made;
  std::thread worker([&] {
    for (int i = 0; i < 1000; ++i) made.push_back(new int(i));
  });
  worker.join();
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(*made[i], i);
  for (int* p : made) delete p;  // onto this thread's list
  std::vector<int*> again;
  for (int i = 0; i < 1000; ++i) again.push_back(new int(-i));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(*again[i], -i);
  for (int* p : again) delete p;
}

TEST(SizeClassAllocator, FailureThrowsOrReturnsNull) {
  // volatile: the compiler would warn of a constant size over the largest object.
  volatile std::size_t hugeSize = std::numeric_limits<std::size_t>::max() - 8;
  const std::size_t huge = hugeSize;
  EXPECT_EQ(::operator new(huge, std::nothrow), nullptr);
  EXPECT_THROW(::operator delete(::operator new(huge)), std::bad_alloc);
  EXPECT_EQ(::operator new(huge, std::align_val_t(64), std::nothrow), nullptr);
}

// The per-function memory budget (model/Limits.h, issue 35): the allocator
// counts this thread's bytes, fails past the limit with overBudget set, and
// a freed block is taken off the count.
TEST(SizeClassAllocator, CountsBytesAndFailsPastTheThreadLimit) {
  namespace memory = fenceline::model::memory;
  ASSERT_TRUE(memory::counted);
  const int64_t before = memory::threadBytes;
  {
    auto small = std::make_unique<char[]>(100);
    auto large = std::make_unique<char[]>(1 << 20);
    EXPECT_GE(memory::threadBytes - before, (1 << 20) + 100);
  }
  EXPECT_EQ(memory::threadBytes, before);
  const int64_t saved = memory::threadLimit;
  memory::overBudget = false;
  memory::threadLimit = memory::threadBytes + (1 << 16);
  EXPECT_THROW((void)std::make_unique<char[]>(1 << 20), std::bad_alloc);
  EXPECT_TRUE(memory::overBudget);
  EXPECT_EQ(::operator new(1 << 20, std::nothrow), nullptr);
  auto fits = std::make_unique<char[]>(1 << 10);  // below the limit: still served
  EXPECT_NE(fits.get(), nullptr);
  memory::threadLimit = saved;
  memory::overBudget = false;
}
