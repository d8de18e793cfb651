// Shape M of the held-out libraries (docs/real-code.md, "Shapes M and A"): a block loads two
// byte ranges of arbitrary alignment into one shared buffer. An elected thread of the last warp
// bulk-copies the 16-byte aligned middle of each range, while every thread copies one of the
// head or tail bytes the bulk copies leave out with a plain shared store; then the elected thread
// arrives with the byte count, a __syncthreads() gathers the stores and every thread waits for the
// copies and only reads. The barrier comes after every copy: no thread's store reaches a copy
// through it. The elected thread's own store of the first range comes before its copy of the
// second range in program order; the bytes are apart only by the layout (the first range from
// the start of the buffer, the second one placed back from its end), which the analysis cannot
// relate for that one thread's store: a strict-tier finding (`issuer-instance`), no warning.
// The twin then refills the first range's bytes with a second bulk copy after the barrier, over
// the stored head and tail bytes, with no fence.proxy.async: a proxy-war at the barrier. (Both
// kernels keep the strict-tier finding at the second range's copy.)
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

constexpr int kThreads = 256;
constexpr int kTileBytes = 4096;

struct __align__(16) Tile {
  unsigned char bytes[kTileBytes + 48];
  unsigned long long bar;
};

__device__ __forceinline__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ bool elect_one() {
  unsigned elected;
  asm volatile(
      "{\n .reg .pred p;\n elect.sync _|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(elected));
  return elected != 0;
}

__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar))
               : "memory");
}

__device__ __forceinline__ void arrive_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

// One range: [src, src + n) lands at dst, which has src's alignment mod 16. The middle goes by
// a bulk copy (issued by `issuer`), the head and tail bytes by one thread each.
struct Range {
  unsigned char* dst;
  const unsigned char* src;
  int n, head, middle;
};

__device__ __forceinline__ Range place(unsigned char* dst, const unsigned char* src, int n) {
  const int head = min(n, static_cast<int>((16 - (reinterpret_cast<uintptr_t>(src) & 15)) & 15));
  return {dst, src, n, head, (n - head) & ~15};
}

__device__ __forceinline__ void peel(const Range& r) {
  const int t = threadIdx.x;
  const int i = t < r.head ? t : t + r.middle;
  if (i < r.n) r.dst[i] = r.src[i];
}

// na + nb <= kTileBytes. The first range from the start of the buffer, the second one back from
// its end (its start rounded down to 16, plus the source's alignment).
template <bool kRefill>
__device__ void load_two(const unsigned char* a, int na, const unsigned char* b, int nb, const unsigned char* c,
                         unsigned* out) {
  __shared__ Tile tile;
  // The issuer: one lane of the last warp (the predicate is false on the other warps' path).
  const bool issuer = threadIdx.x >= kThreads - 32 && elect_one();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&tile.bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const int startB = ((kTileBytes + 32 - nb) & ~15) + static_cast<int>(reinterpret_cast<uintptr_t>(b) & 15);
  const Range ra = place(tile.bytes + (reinterpret_cast<uintptr_t>(a) & 15), a, na);
  const Range rb = place(tile.bytes + startB, b, nb);
  unsigned bytes = 0;
  if (issuer && ra.middle > 0) {
    bulk_copy(ra.dst + ra.head, ra.src + ra.head, ra.middle, &tile.bar);
    bytes += ra.middle;
  }
  peel(ra);
  if (issuer && rb.middle > 0) {
    bulk_copy(rb.dst + rb.head, rb.src + rb.head, rb.middle, &tile.bar);  // expect-strict: proxy-war proxy-war
    bytes += rb.middle;
  }
  peel(rb);
  if (issuer) arrive_bytes(&tile.bar, bytes);
  if (kRefill) {
    __syncthreads();  // expect: proxy-war
    wait_phase(&tile.bar, 0);
    // The first range's bytes again, from a 16-byte aligned source: over the peeled bytes.
    if (issuer) {
      bulk_copy(tile.bytes, c, (na + 31) & ~15, &tile.bar);
      arrive_bytes(&tile.bar, (na + 31) & ~15);
    }
    wait_phase(&tile.bar, 1);
  } else {
    __syncthreads();
    wait_phase(&tile.bar, 0);
  }
  unsigned sum = 0;
  for (int i = threadIdx.x; i < na; i += kThreads) sum += ra.dst[i];
  for (int i = threadIdx.x; i < nb; i += kThreads) sum += rb.dst[i];
  out[blockIdx.x * kThreads + threadIdx.x] = sum;
}

__global__ void __launch_bounds__(kThreads) load_peeled(const unsigned char* a, int na, const unsigned char* b, int nb,
                                                        unsigned* out) {
  load_two<false>(a + blockIdx.x * kTileBytes, na, b + blockIdx.x * kTileBytes, nb, nullptr, out);
}

__global__ void __launch_bounds__(kThreads) load_peeled_refill(const unsigned char* a, int na, const unsigned char* b,
                                                               int nb, const unsigned char* c, unsigned* out) {
  load_two<true>(a + blockIdx.x * kTileBytes, na, b + blockIdx.x * kTileBytes, nb, c + blockIdx.x * kTileBytes, out);
}
