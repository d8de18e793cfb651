// Correct hand-off through the installed primitives: release store of the
// flag after the data, acquire polling before reading it. Needs the include
// directory of fenceline::primitives and the PAYLOAD_SLOT definition, so
// the check step sees the target's flags.
#include <fenceline/atomic.cuh>

using fenceline::Scope;
using fenceline::Sem;

__device__ unsigned flag;
__device__ int payload[2];

__global__ void publish(int value) {
  payload[PAYLOAD_SLOT] = value;
  fenceline::atomic_store<Sem::release, Scope::gpu>(&flag, 1u);
}

__global__ void consume(int* out) {
  while (fenceline::atomic_load<Sem::acquire, Scope::gpu>(&flag) == 0u) {
  }
  out[0] = payload[PAYLOAD_SLOT];
}
