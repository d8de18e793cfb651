// Shape D of the NVSHMEM sample (docs/real-code.md, "NVSHMEM (issue 34)"): a thread writes a
// work-queue entry into a send queue in GPU memory, then a fence at .gpu scope, then rings the
// NIC: a store to memory-mapped I/O (`st.mmio.relaxed.sys`, the doorbell register), a .sys store
// of the new producer index into a doorbell ring at the slot a reservation atomic returned, or an
// `atom.max.relaxed.sys` of a doorbell record. Then it waits for a completion (a volatile poll
// through an address broadcast from lane 0, which may be any word, the doorbell's included) and
// the kernel ends: no read of this kernel follows, so the doorbell's reader is outside the PTX.
// It is a device (the NIC reads the doorbell, then the entry from GPU memory), not a thread: the
// PTX model's scopes say nothing of it, and the field orders a NIC's reads of GPU memory with a
// .gpu fence. The signal's own .sys scope was taken for a partner on another GPU or the host
// (scope-too-narrow, `sys-scope-signal`); that link is now undecided (`mmio-device` for the
// .mmio store, `device-or-host` for the others): strict tier only.
// The twin stores a value into a peer's buffer and raises a .sys flag in the peer's flag array
// (both through tables indexed by the peer), after a .gpu fence, and ends the same way. The
// reader is a thread of the peer GPU's next kernel (`peer-next-launch`), which .gpu does not
// include: scope-too-narrow stays in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// RUN: not %fenceline check --strict --arch sm_90a --format json %s | FileCheck %s
// CHECK-DAG: "how": "mmio-device"
// CHECK-DAG: "how": "device-or-host"

struct Wqe {
  unsigned long long ctrl, addr, len, key;
};
struct Cqe {
  unsigned long long done;
};
struct Nic {
  Wqe* sq;                       // the send queue, in GPU memory
  unsigned long long* reserved;  // reservation counter (device-side)
  unsigned long long* ring;      // doorbell ring read by the NIC
  unsigned long long* dbr;       // doorbell record read by the NIC
  unsigned long long* uar;       // the NIC's doorbell register (MMIO)
  unsigned long long mask;
  Cqe* cq;                       // completion entries, written by the NIC
};

__device__ __forceinline__ unsigned long long ld_volatile(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
// Wait for completion n; the entry's address comes from lane 0.
__device__ __forceinline__ void wait_completion(const Nic* nic, int n) {
  const unsigned long long* done = reinterpret_cast<const unsigned long long*>(
      __shfl_sync(1u, reinterpret_cast<unsigned long long>(&nic->cq[n].done), 0));
  while (ld_volatile(done) == 0) {
  }
}
__device__ __forceinline__ void write_wqe(const Nic* nic, unsigned long long slot, const void* buf,
                                          unsigned long long len) {
  Wqe* w = &nic->sq[slot & nic->mask];
  w->ctrl = slot << 8;
  w->addr = reinterpret_cast<unsigned long long>(buf);
  w->len = len;
  w->key = 7;
}

// Strict: the doorbell register's reader is the NIC.
__global__ void ring_uar(const Nic* nic, const float* buf, unsigned long long len, int n) {
  if (threadIdx.x != 0) return;
  const unsigned long long slot = atomicAdd(nic->reserved, 1ull);
  write_wqe(nic, slot, buf + blockIdx.x * len, len);
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect-strict: scope-too-narrow
  asm volatile("st.mmio.relaxed.sys.global.b64 [%0], %1;" ::"l"(nic->uar), "l"(slot + 1) : "memory");
  wait_completion(nic, n);
}

// Strict: the ring entry at the reserved slot, read by the NIC (or by a host proxy thread: the
// PTX cannot tell them apart).
__global__ void ring_entry(const Nic* nic, const float* buf, unsigned long long len, int n) {
  if (threadIdx.x != 0) return;
  const unsigned long long slot = atomicAdd(nic->reserved, 1ull);
  write_wqe(nic, slot, buf + blockIdx.x * len, len);
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect-strict: scope-too-narrow
  asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(nic->ring + (slot & nic->mask)), "l"(slot + 1)
               : "memory");
  wait_completion(nic, n);
}

// Strict: the doorbell record raised with a .sys max.
__global__ void ring_record(const Nic* nic, const float* buf, unsigned long long len, int n) {
  if (threadIdx.x != 0) return;
  const unsigned long long slot = atomicAdd(nic->reserved, 1ull);
  write_wqe(nic, slot, buf + blockIdx.x * len, len);
  unsigned long long old;
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect-strict: scope-too-narrow
  asm volatile("atom.max.relaxed.sys.global.u64 %0, [%1], %2;" : "=l"(old) : "l"(nic->dbr), "l"(slot + 1)
               : "memory");
  wait_completion(nic, n);
}

// Broken twin (default tier): the peer's next kernel reads the value after seeing the flag.
__global__ void put_peer_flag(float* const* peer_data, unsigned long long* const* peer_flags, const Nic* nic,
                              int peer, int rank, float value, int n) {
  if (threadIdx.x != 0) return;
  peer_data[peer][rank] = value;
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect: scope-too-narrow
  asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(peer_flags[peer] + rank), "l"(1ull) : "memory");
  wait_completion(nic, n);
}
