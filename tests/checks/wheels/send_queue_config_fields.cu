// A GPU-initiated put on a NIC send queue (issue 34 P1, docs/real-code.md "Shapes P1 and P2 (branch
// ucx28)"; UCX's perftest kernels in the UCX that nixl bundles have this form, this is our own
// code). Each thread takes the endpoint of its destination from a table, reads the endpoint's
// configuration (the transport byte, the queue mask, the queue size, the WQE mask and buffer),
// picks its block's queue (`blockIdx.x & ep->queue_mask`, a byte), reserves a slot with an atomic
// add, waits for room (the consumer index, which the NIC's completion progress advances: outside
// the kernel; the loop re-reads the queue size too), writes its WQE, waits for its turn to ring the
// doorbell, rings it, passes the turn and `fence.acquire.cta`; it also stores its progress through
// a parameter. No instruction of the kernel writes the configuration: the queue words lie at
// `ep + 96 + 128 * q + 28 .. 80` with q in [0, 255], the configuration in [ep, ep + 33): apart,
// though not modulo the queue's size (the reservation at 144 + 128 * q meets the WQE pointer at 16,
// the turn at 152 + 128 * q the queue size at 28 and the WQE mask at 30).
//
// main's binary (m28a) bounded neither the byte loaded nor the mask, so the turn store was "at
// offsets not provably apart" from the queue size: the room wait's re-read of the size was a poll
// with an in-kernel signal (the turn store, same-buffer) and the configuration read after it
// another rank's data (`peer-memory`: the endpoint comes from a table of destinations), an
// acquire-missing warning (line 83); the `.gpu` release fence before the doorbell was a
// scope-too-narrow warning for the same pair (line 88). With a byte load's value in [0, 255] and
// `x & y` bounded by a non-negative y (model/Values.cpp) the turn word is apart from the size: the
// size's poll has no partner in the kernel (unknown-partner) and both are strict.
//
// Not decided by this branch (the form of UCX's remaining 25, the reservation and turn waits): the
// turn wait (line 62) is still an acquire-missing warning in the rule's kernel. Its signal is the
// previous holder's turn store and its read the WQE mask, which nothing writes; but the progress
// store through the parameter is a write the analysis cannot separate from the endpoint
// (distinct-pointers), and with the endpoint taken for a peer pointer that is enough for the
// `peer-memory` presumption (checks/ProtocolReport.cpp). Expected here as it is, not as it should be.
//
// The twin that must still fire: the turn holder also rewrites the endpoint's WQE mask (a
// configuration field written inside the kernel), which the next holder reads right after its turn
// wait: acquire-missing (line 62, must-alias) and release-missing at the turn store (line 90).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

struct SendQueue {                // 128 bytes, at ep + 96 + 128 * q
  unsigned char pad0[28];
  unsigned consumer;               // +28: advanced by the completion progress (outside the kernel)
  unsigned char pad1[12];
  unsigned dbrec;                  // +44: doorbell record
  unsigned long long reserved;     // +48: reservation index (atomic add)
  unsigned long long turn;         // +56: whose turn it is to ring the doorbell
  unsigned long long pad2;
  unsigned long long* doorbell;    // +72: the NIC's doorbell register
  unsigned char pad3[48];
};
struct Endpoint {
  uint8_t transport;               // +0
  unsigned char pad0[15];
  unsigned long long* wqes;        // +16
  unsigned pad1;
  uint16_t queue_size;             // +28
  uint16_t wqe_mask;               // +30
  uint8_t queue_mask;              // +32
  unsigned char pad2[63];
  SendQueue queues[8];             // +96
};
static_assert(sizeof(SendQueue) == 128 && sizeof(Endpoint) == 96 + 8 * 128, "the layout");
struct Element {  // one per destination
  Endpoint* ep;
  unsigned long long raddr;
};

__device__ __forceinline__ unsigned load_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing, acquire-missing
  return v;
}
__device__ __forceinline__ unsigned long long load_volatile(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing, acquire-missing
  return v;
}
#define RING(q, slot)                                                                                      \
  do {                                                                                                     \
    asm volatile("fence.release.gpu;" ::: "memory");                                                      \
    asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(&(q)->dbrec), "r"((unsigned)(slot) + 1) : "memory"); \
    asm volatile("st.mmio.relaxed.sys.global.u64 [%0], %1;" ::"l"((q)->doorbell), "l"(slot) : "memory");   \
  } while (0)
#define PASS_TURN(q, slot) asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(&(q)->turn), "l"((slot) + 1) : "memory")
#define ACQUIRE_CTA() asm volatile("fence.acquire.cta;" ::: "memory")

__device__ __forceinline__ void put(const Element* elems, unsigned nelems, unsigned long long value, int iters,
                                    unsigned long long* progress, bool resize) {
  const Element e = elems[threadIdx.x % nelems];
  Endpoint* ep = e.ep;
  for (int it = 0; it < iters; ++it) {
    *progress = it;
    if (ep->transport != 0) continue;
    SendQueue* q = &ep->queues[blockIdx.x & ep->queue_mask];
    const unsigned long long slot = atomicAdd(&q->reserved, 1ull);
    while (slot >= load_volatile(&q->consumer) + ep->queue_size) {  // expect-strict: acquire-missing, acquire-missing
    }
    ep->wqes[slot & ep->wqe_mask] = value ^ e.raddr;
    while (load_volatile(&q->turn) != slot) {
    }
    RING(q, slot & ep->wqe_mask);  // expect-strict: scope-too-narrow
    if (resize) ep->wqe_mask = static_cast<uint16_t>(slot);
    PASS_TURN(q, slot);  // expect: release-missing
    ACQUIRE_CTA();
  }
}

__global__ void put_on_send_queue(const Element* elems, unsigned nelems, unsigned long long value, int iters,
                                  unsigned long long* progress) {
  put(elems, nelems, value, iters, progress, false);
}

// Twin: the turn holder rewrites the WQE mask, which the next holder reads as data.
__global__ void put_on_send_queue_resizing(const Element* elems, unsigned nelems, unsigned long long value,
                                           int iters, unsigned long long* progress) {
  put(elems, nelems, value, iters, progress, true);
}
