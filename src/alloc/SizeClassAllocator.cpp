// The fenceline executable's operator new and delete: per-thread free lists
// of small blocks in 16-byte size classes, carved from 256 KiB chunks that are
// never returned (the process is short-lived and reuses what one function's
// model frees for the next).
//
// Why: the checker allocates many small objects (operands, strings, value
// terms) and frees them a function later. glibc's malloc and free cost about
// 120 instructions each on that pattern (its per-thread cache holds 7 blocks
// per size): a fifth of the instructions of checking a 50 KB PTX file
// (docs/performance.md, session 8). A free list costs a few. (Chunks
// mapped with MAP_POPULATE, or of 1 MiB, measured no faster: the pages a
// small file never touches cost as much as the faults they save.)
//
// Every block carries a 16-byte header before it: its size class, or a tag
// for a block from malloc (large blocks, over-aligned blocks) with the
// pointer malloc returned. So any delete (sized or not, from any thread)
// finds how the block was made; a block freed by another thread joins that
// thread's list. Built into the executable only (CMakeLists.txt): never with
// the sanitizers, which replace the allocator themselves, nor into the
// library the unit tests and fuzzers link.
//
// It also counts the bytes each thread holds (model/Limits.h, memory::): the
// per-function memory budget (--max-memory-per-function). A block counts as
// its size class, a large one as what malloc_usable_size says; an allocation
// that would take the thread past memory::threadLimit fails (std::bad_alloc,
// or nullptr for the nothrow forms) with memory::overBudget set, and the
// driver reports that function "not checked" and goes on.
#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "model/Limits.h"

namespace {

constexpr std::size_t kGranule = 16;
constexpr std::size_t kClasses = 32;  // blocks of up to 512 bytes
constexpr std::size_t kChunkBytes = std::size_t(256) << 10;
constexpr std::uint64_t kFromMalloc = ~std::uint64_t(0);

struct alignas(16) Header {
  std::uint64_t sizeClass;  // 1..kClasses, or kFromMalloc
  void* raw;                // kFromMalloc: what malloc returned
};
static_assert(sizeof(Header) == kGranule);

struct FreeBlock {
  FreeBlock* next;
};

thread_local FreeBlock* freeLists[kClasses];
thread_local char* chunkCursor;
thread_local char* chunkEnd;

namespace memory = fenceline::model::memory;

// Counts `bytes` to this thread; false (nothing counted) past its limit.
inline bool charge(std::int64_t bytes) {
  if (memory::threadBytes + bytes > memory::threadLimit) {
    memory::overBudget = true;
    return false;
  }
  memory::threadBytes += bytes;
  return true;
}

struct Counting {
  Counting() { memory::counted = true; }
} counting;

void* fromMalloc(std::size_t bytes, std::size_t alignment) {
  if (alignment < kGranule) alignment = kGranule;
  if (bytes > SIZE_MAX - alignment - sizeof(Header)) return nullptr;
  if (!charge(static_cast<std::int64_t>(bytes + alignment + sizeof(Header)))) return nullptr;
  void* raw = std::malloc(bytes + alignment + sizeof(Header));
  memory::threadBytes -= static_cast<std::int64_t>(bytes + alignment + sizeof(Header));
  if (!raw) return nullptr;
  memory::threadBytes += static_cast<std::int64_t>(malloc_usable_size(raw));
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(raw) + sizeof(Header);
  const std::uintptr_t aligned = (first + alignment - 1) & ~(std::uintptr_t(alignment) - 1);
  Header* header = reinterpret_cast<Header*>(aligned) - 1;
  header->sizeClass = kFromMalloc;
  header->raw = raw;
  return reinterpret_cast<void*>(aligned);
}

void* allocate(std::size_t bytes, std::size_t alignment) noexcept {
  if (bytes == 0) bytes = 1;
  if (bytes > kClasses * kGranule || alignment > kGranule) return fromMalloc(bytes, alignment);
  const std::size_t sizeClass = (bytes + kGranule - 1) / kGranule;
  if (!charge(static_cast<std::int64_t>(sizeClass * kGranule))) return nullptr;
  if (FreeBlock* block = freeLists[sizeClass - 1]) {
    freeLists[sizeClass - 1] = block->next;
    return block;
  }
  const std::size_t need = sizeof(Header) + sizeClass * kGranule;
  if (!chunkCursor || static_cast<std::size_t>(chunkEnd - chunkCursor) < need) {
    char* chunk = static_cast<char*>(std::malloc(kChunkBytes));  // 16-byte aligned
    if (!chunk) {
      memory::threadBytes -= static_cast<std::int64_t>(sizeClass * kGranule);
      return nullptr;
    }
    chunkCursor = chunk;
    chunkEnd = chunk + kChunkBytes;
  }
  Header* header = reinterpret_cast<Header*>(chunkCursor);
  chunkCursor += need;
  header->sizeClass = sizeClass;
  header->raw = nullptr;
  return header + 1;
}

void release(void* pointer) noexcept {
  if (!pointer) return;
  Header* header = static_cast<Header*>(pointer) - 1;
  if (header->sizeClass == kFromMalloc) {
    memory::threadBytes -= static_cast<std::int64_t>(malloc_usable_size(header->raw));
    std::free(header->raw);
    return;
  }
  memory::threadBytes -= static_cast<std::int64_t>(header->sizeClass * kGranule);
  FreeBlock* block = static_cast<FreeBlock*>(pointer);
  block->next = freeLists[header->sizeClass - 1];
  freeLists[header->sizeClass - 1] = block;
}

void* allocateOrThrow(std::size_t bytes, std::size_t alignment) {
  for (;;) {
    if (void* p = allocate(bytes, alignment)) return p;
    if (memory::overBudget) throw std::bad_alloc();  // the function's budget, not the system: no handler
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(std::size_t n) { return allocateOrThrow(n, kGranule); }
void* operator new[](std::size_t n) { return allocateOrThrow(n, kGranule); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kGranule); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kGranule); }
void* operator new(std::size_t n, std::align_val_t a) { return allocateOrThrow(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocateOrThrow(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
