// RUN: %fenceline check --verify --arch sm_90a %s
// acquire-missing and payload-carrying polls: an LL packet (NCCL's LL
// protocol, the Lamport-style packets of all-to-all kernels) carries the flag
// and the value in one 8- or 16-byte word, polled with one vector load
// (ld.volatile.v2 / v4). The value arrives with the flag: it needs no
// acquire. Only later, separate reads of partner-written data do.

union LLPacket {
  struct {
    unsigned data;
    unsigned flag;
  };
  unsigned long long v;
};

__device__ __forceinline__ void ll_store(LLPacket* p, unsigned data, unsigned flag) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(data), "r"(flag) : "memory");
}
__device__ __forceinline__ unsigned ll_load(const LLPacket* p, unsigned flag) {
  unsigned data, f;
  do {
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(data), "=r"(f) : "l"(p) : "memory");
  } while (f != flag);
  return data;
}
// The 16-byte form: two (data, flag) pairs in one load.
__device__ __forceinline__ uint2 ll_load2(const uint4* p, unsigned flag) {
  unsigned d0, f0, d1, f1;
  do {
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                 : "l"(p)
                 : "memory");
  } while (f0 != flag || f1 != flag);
  return make_uint2(d0, d1);
}

// Fixed: the sender packs each value with the flag; the receiver uses the
// values of the packets it polled and nothing else.
__global__ void ll_exchange(LLPacket* const* peer_packets, LLPacket* my_packets, const unsigned* __restrict__ in,
                            unsigned* out, unsigned flag, int rank, int world) {
  int i = threadIdx.x;
  for (int p = 0; p < world; ++p) ll_store(peer_packets[p] + rank * blockDim.x + i, in[i], flag);
  unsigned sum = 0;
  for (int p = 0; p < world; ++p) sum += ll_load(my_packets + p * blockDim.x + i, flag);
  out[i] = sum;
}

// Fixed: the 16-byte packet form.
__global__ void ll_exchange_v4(uint4* peer_packets, const uint4* my_packets, const unsigned* __restrict__ in,
                               unsigned* out, unsigned flag) {
  int i = threadIdx.x;
  peer_packets[i] = make_uint4(in[2 * i], flag, in[2 * i + 1], flag);
  uint2 v = ll_load2(my_packets + i, flag);
  out[2 * i] = v.x;
  out[2 * i + 1] = v.y;
}

// Broken: the packet announces a bulk buffer the sender wrote with plain
// stores; reading the bulk after the packet needs an acquire.
__global__ void ll_announces_bulk(LLPacket* const* peer_packets, LLPacket* my_packets, float* const* peer_bulk,
                                  float* my_bulk, const float* __restrict__ in, float* out, unsigned flag,
                                  int rank) {
  int i = threadIdx.x;
  int peer = rank ^ 1;
  peer_bulk[peer][i] = in[i];
  __threadfence_system();
  ll_store(peer_packets[peer] + i, 1, flag);
  unsigned count;
  do {
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(count), "=r"(flag) : "l"(my_packets + i) : "memory");  // expect: acquire-missing
  } while (flag == 0);
  out[i] = count ? my_bulk[i] : 0.0f;
}

// Fixed: the LL128 form: each lane loads 16 bytes of a 128-byte line with one
// vector load; one lane's word is the flag, and the warp votes until every
// lane's line carries it. The data lanes' values come with the same load.
__device__ __forceinline__ void ld_volatile_v2_u64(const unsigned long long* p, unsigned long long& a,
                                                   unsigned long long& b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
__global__ void ll128_receive(const unsigned long long* lines, unsigned long long* out, unsigned long long flag) {
  int lane = threadIdx.x & 31;
  const unsigned long long* mine = lines + 2 * threadIdx.x;
  unsigned long long a, b;
  bool reload;
  do {
    ld_volatile_v2_u64(mine, a, b);
    reload = (lane % 8 == 7) && b != flag;
  } while (__any_sync(0xffffffffu, reload));
  out[2 * threadIdx.x] = a;
  if (lane % 8 != 7) out[2 * threadIdx.x + 1] = b;
}
