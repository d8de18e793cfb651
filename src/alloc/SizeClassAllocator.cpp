// The fenceline executable's operator new and delete: per-thread free lists
// of small blocks in 16-byte size classes, carved from 256 KiB chunks (what
// one function's model frees is reused for the next; chunks that are wholly
// free go back to the system, see "Giving memory back" below).
//
// Why: the checker allocates many small objects (operands, strings, value
// terms) and frees them a function later. glibc's malloc and free cost about
// 120 instructions each on that pattern (its per-thread cache holds 7 blocks
// per size): a fifth of the instructions of checking a 50 KB PTX file
// (docs/performance.md, session 8). A free list costs a few. (Chunks
// mapped with MAP_POPULATE, or of 1 MiB, measured no faster: the pages a
// small file never touches cost as much as the faults they save.)
//
// Giving memory back: after a large function the free lists may hold
// hundreds of MB that only blocks of the same size class can reuse (a model
// of one shape, then a model of another). trimFreeMemory() (called by the
// driver after each function, model/MemoryStats.h) unmaps every chunk of this
// thread whose blocks are all in this thread's free lists, and has malloc
// return its free pages, once the free bytes have grown past a threshold (so
// that a run of small functions never pays for the walk). Chunks are mapped
// with mmap for that; each starts with a small record (its blocks, its owner).
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
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <new>

#include "model/Limits.h"
#include "model/MemoryStats.h"

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

// The start of every chunk: its blocks are carved after it.
struct alignas(16) Chunk {
  std::uint32_t carved;  // blocks carved from it
  std::uint32_t free;    // trimFreeMemory's count of them in this thread's lists
  Chunk* next;           // the owner's chunks
  const void* owner;     // the owning thread (the address of its `chunks`)
};

constexpr std::uint32_t kReleased = ~std::uint32_t(0);
// 1 MiB: the free lists of a library's small functions (CuPy's thrust: 5 to
// 7 MiB in the lists, 9 MiB of chunks, 0.8 to 4 MiB in use) stayed mapped
// under the 32 MiB this was, and set the run's peak (18.6 -> 17.5 MB, no
// slower: the walk and malloc_trim cost what the function allocated, and
// trimAt doubles past what a trim leaves).
constexpr std::int64_t kTrimBytes = std::int64_t(1) << 20;

thread_local FreeBlock* freeLists[kClasses];
thread_local char* chunkCursor;
thread_local char* chunkEnd;
thread_local Chunk* chunks;         // this thread's, newest first
thread_local Chunk* currentChunk;   // the one carved now
thread_local std::int64_t freeBytes;         // in this thread's free lists
thread_local std::int64_t largeFreed;        // bytes of malloc'd blocks freed since the last trim
thread_local std::int64_t trimAt = kTrimBytes;  // free bytes that start the next trim

namespace memory = fenceline::model::memory;

// Counts `bytes` to this thread; false (nothing counted) past its limit.
inline bool charge(std::int64_t bytes) {
  if (memory::threadBytes + bytes > memory::threadLimit) {
    memory::overBudget = true;
    return false;
  }
  memory::threadBytes += bytes;
  if (memory::threadBytes > memory::threadPeak) memory::threadPeak = memory::threadBytes;
  return true;
}

void trimFreeMemory();
void freeStats(std::int64_t& free, std::int64_t& mapped);

struct Counting {
  Counting() {
    memory::counted = true;
    memory::trimHook = &trimFreeMemory;
    memory::freeStatsHook = &freeStats;
  }
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
    freeBytes -= static_cast<std::int64_t>(sizeClass * kGranule);
    return block;
  }
  const std::size_t need = sizeof(Header) + sizeClass * kGranule;
  if (!chunkCursor || static_cast<std::size_t>(chunkEnd - chunkCursor) < need) {
    void* mapped = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
      memory::threadBytes -= static_cast<std::int64_t>(sizeClass * kGranule);
      return nullptr;
    }
    Chunk* chunk = static_cast<Chunk*>(mapped);
    chunk->carved = 0;
    chunk->free = 0;
    chunk->next = chunks;
    chunk->owner = &chunks;
    chunks = chunk;
    currentChunk = chunk;
    chunkCursor = static_cast<char*>(mapped) + sizeof(Chunk);
    chunkEnd = static_cast<char*>(mapped) + kChunkBytes;
  }
  Header* header = reinterpret_cast<Header*>(chunkCursor);
  chunkCursor += need;
  header->sizeClass = sizeClass;
  header->raw = currentChunk;
  ++currentChunk->carved;
  return header + 1;
}

void release(void* pointer) noexcept {
  if (!pointer) return;
  Header* header = static_cast<Header*>(pointer) - 1;
  if (header->sizeClass == kFromMalloc) {
    const auto bytes = static_cast<std::int64_t>(malloc_usable_size(header->raw));
    memory::threadBytes -= bytes;
    largeFreed += bytes;
    std::free(header->raw);
    return;
  }
  memory::threadBytes -= static_cast<std::int64_t>(header->sizeClass * kGranule);
  freeBytes += static_cast<std::int64_t>(header->sizeClass * kGranule);
  FreeBlock* block = static_cast<FreeBlock*>(pointer);
  block->next = freeLists[header->sizeClass - 1];
  freeLists[header->sizeClass - 1] = block;
}

Chunk* chunkOf(FreeBlock* block) {
  return static_cast<Chunk*>(reinterpret_cast<Header*>(block)[-1].raw);
}

// Unmaps every chunk of this thread whose blocks are all in its free lists.
// Costs a walk of every free block: run only when the free lists have grown
// (trimAt), never for malloc's large blocks alone.
void releaseFreeChunks() {
  const void* me = &chunks;
  for (Chunk* c = chunks; c; c = c->next) c->free = 0;
  for (FreeBlock* list : freeLists)
    for (FreeBlock* block = list; block; block = block->next)
      if (Chunk* c = chunkOf(block); c->owner == me) ++c->free;
  bool any = false;
  for (Chunk* c = chunks; c; c = c->next)
    if (c != currentChunk && c->free == c->carved) {
      c->free = kReleased;
      any = true;
    }
  if (any) {
    for (std::size_t k = 0; k < kClasses; ++k) {
      FreeBlock** link = &freeLists[k];
      while (FreeBlock* block = *link) {
        Chunk* c = chunkOf(block);
        if (c->owner == me && c->free == kReleased) {
          *link = block->next;
          freeBytes -= static_cast<std::int64_t>((k + 1) * kGranule);
        } else {
          link = &block->next;
        }
      }
    }
    Chunk** link = &chunks;
    while (Chunk* c = *link) {
      if (c->free == kReleased) {
        *link = c->next;
        ::munmap(c, kChunkBytes);
      } else {
        link = &c->next;
      }
    }
  }
  trimAt = std::max(kTrimBytes, 2 * freeBytes);
}

// See the comment at the top.
void trimFreeMemory() {
  const bool walkFreeLists = freeBytes >= trimAt;
  if (!walkFreeLists && largeFreed < kTrimBytes) return;
  if (walkFreeLists) releaseFreeChunks();
  ::malloc_trim(0);
  largeFreed = 0;
}

// FENCELINE_MEMSTATS: what this thread's free lists and chunks hold.
void freeStats(std::int64_t& free, std::int64_t& mapped) {
  free = freeBytes;
  mapped = 0;
  for (Chunk* c = chunks; c; c = c->next) mapped += static_cast<std::int64_t>(kChunkBytes);
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
