// Shape P7 of session 27's held-out look (docs/real-code.md): cuDNN's split-K weight-gradient
// engines take turns on a word. Each block draws its split index from a ticket (atomicAdd,
// broadcast through shared memory); thread 0 spins until the turn word equals it; the block
// of the first turn (split 0) reads dW with a plain load for beta * dW, the later turns read
// what the earlier ones wrote with volatile loads; then a fence, a barrier, and thread 0 hands
// the turn on (`turn = split + 1`).
// Safe for split 0's plain read: every store into the turn word writes a turn plus 1, so the
// word counts up from its initial value and no store writes 0 (short of a wrap); the wait that
// leaves on 0 read the initial value, and every other split writes dW only after split 0 has
// passed the turn on. The later splits' volatile reads are class V (disputed: strict tier).
// Main (dcd081d) named split 0's plain read as guarded and another split's store as the data
// (a warning); session 28's rule (model/FirstTurnWaits.h) finds the read on the first turn only.
// The twin `later_turn_reads_plain` reads the earlier turns' dW with a plain load on the later
// turns: that read does follow a partner's write and its signal, with no acquire (a warning).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__global__ void first_turn_reads_plain(const float* grad, float* dw, int* tickets, int* turns, float alpha,
                                       float beta, int n) {
  __shared__ int split_smem;
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (tid == 0) split_smem = atomicAdd(&tickets[tile], 1);
  __syncthreads();
  const int split = split_smem;
  const int i = tile * blockDim.x * blockDim.y + tid;
  const float acc = alpha * grad[split * n + i];
  if (tid == 0)
    while (*(volatile int*)&turns[tile] != split) {
    }
  __syncthreads();
  if (split == 0) {
    if (i < n) dw[i] = acc + beta * dw[i];
  } else {
    if (i < n) dw[i] = acc + *(volatile float*)&dw[i];
  }
  __threadfence();
  __syncthreads();
  if (tid == 0) *(volatile int*)&turns[tile] = split + 1;
}

__global__ void later_turn_reads_plain(const float* grad, float* dw, int* tickets, int* turns, float alpha,
                                       float beta, int n) {
  __shared__ int split_smem;
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (tid == 0) split_smem = atomicAdd(&tickets[tile], 1);
  __syncthreads();
  const int split = split_smem;
  const int i = tile * blockDim.x * blockDim.y + tid;
  const float acc = alpha * grad[split * n + i];
  if (tid == 0)
    while (*(volatile int*)&turns[tile] != split) {  // expect: acquire-missing
    }
  __syncthreads();
  if (split == 0) {
    if (i < n) dw[i] = acc;
  } else {
    if (i < n) dw[i] = acc + beta * dw[i];
  }
  __threadfence();
  __syncthreads();
  if (tid == 0) *(volatile int*)&turns[tile] = split + 1;
}
