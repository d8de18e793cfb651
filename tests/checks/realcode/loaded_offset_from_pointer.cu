// Found in NVSHMEM's collectives (docs/real-code.md, "Session 9"; nvshmem_collectives, left out
// of the corpus): the dissemination barrier polls `psync + team->offset`, the team's sync
// words in the pool, where psync is a pointer read from the device state (a __constant__
// struct) and the offset a 64-bit field read from the team record. Both are values read from
// memory, so the sum had two bases and the model gave up on its object; every other store of
// the kernel then "might" be the polled word: the barrier's own counter
// (`sync_counter[0] = value`, a field of the device state of its own) was taken for a signal
// that follows data writes (release-missing), and the polled word for one another GPU writes
// (scope-too-narrow). The model now reads such a sum as the pointer plus an unknown offset
// when one side is known to be a pointer (converted by cvta, or read by a load that a cvta
// converts elsewhere) and the other is a value read from memory that no cvta converts
// (model/Values, the add rule; unit LoadedOffsetFromAConvertedPointer). The counter and the
// flag are then reached through two fields of the state: two objects.
// Broken twin: the flag raised with no release after the data writes (release-missing).
// RUN: %fenceline check --verify --checks=-*,release-missing,scope-too-narrow %s
#include <cstdint>

struct Team {
  int size;
  int my_pe;
  long psync_offset;  // bytes from the start of the pool to this team's sync words
};

struct DeviceState {
  int mype;
  long* psync_pool;
  long* sync_counter;
  Team** team_pool;
};

__constant__ DeviceState state;

__device__ __forceinline__ void st_release(volatile long* p, long v) {
  asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

enum class Variant { kFence, kRelease, kUnfenced };

// Block 0 publishes its data; the other blocks wait for the flag and read it.
template <Variant kVariant>
__device__ void publish(float* data, const float* in, float* out, int team) {
  Team* t = state.team_pool[team];
  volatile long* counter = state.sync_counter + 2 * team;
  volatile long* flag = reinterpret_cast<volatile long*>(reinterpret_cast<char*>(state.psync_pool) + t->psync_offset);
  const long value = counter[0] + 1;
  if (blockIdx.x == 0) data[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) {
      if (kVariant == Variant::kFence) __threadfence();
      if (kVariant == Variant::kRelease) st_release(flag, value);
      else *flag = value;
    } else {
      while (*flag < value) {
      }
      __threadfence();
    }
    counter[0] = value;  // the barrier's own count: no thread polls it
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

__global__ void publish_fence(float* data, const float* in, float* out, int team) {
  publish<Variant::kFence>(data, in, out, team);
}

__global__ void publish_release(float* data, const float* in, float* out, int team) {
  publish<Variant::kRelease>(data, in, out, team);
}

__global__ void publish_unfenced(float* data, const float* in, float* out, int team) {
  publish<Variant::kUnfenced>(data, in, out, team);  // expect: release-missing
}
