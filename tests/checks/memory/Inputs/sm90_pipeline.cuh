// sm_90a helpers for the memory-layout test kernels, written the way CUTLASS
// and CuTe write theirs (our own code, not copied): barrier structs with static
// members taking the barrier's shared address, a PipelineState that wraps its
// index and flips its phase, a TMA copy struct with a static `copy`, a GMMA
// descriptor built as a union of bitfields, and one wgmma atom. Everything is
// force-inlined except where a kernel asks for a `noinline` wrapper, so a
// finding's inline chain runs through the kernel line that calls the helper.
#pragma once

#include <cstdint>

namespace mt {

__device__ __forceinline__ uint32_t cast_smem_ptr_to_uint(void const* ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

// ClusterBarrier-style mbarrier wrapper.
struct ClusterBarrier {
  static __device__ __forceinline__ void init(uint64_t const* bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(cast_smem_ptr_to_uint(bar)), "r"(count) : "memory");
  }
  static __device__ __forceinline__ void wait(uint64_t const* bar, uint32_t phase) {
    asm volatile(
        "{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
        "@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" ::"r"(cast_smem_ptr_to_uint(bar)),
        "r"(phase) : "memory");
  }
  static __device__ __forceinline__ void arrive(uint64_t const* bar) {
    asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared::cta.b64 state, [%0];\n\t}" ::"r"(
        cast_smem_ptr_to_uint(bar)) : "memory");
  }
};

struct ClusterTransactionBarrier : ClusterBarrier {
  static __device__ __forceinline__ void arrive_and_expect_tx(uint64_t const* bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], %0;" ::"r"(bytes),
                 "r"(cast_smem_ptr_to_uint(bar)) : "memory");
  }
};

__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// cutlass::arch::fence_view_async_shared()
__device__ __forceinline__ void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// cute::elect_one_sync()
__device__ __forceinline__ uint32_t elect_one_sync() {
  uint32_t pred = 0;
  uint32_t laneid = 0;
  asm volatile(
      "{\n\t.reg .b32 %%rx;\n\t.reg .pred %%px;\n\t"
      "elect.sync %%rx|%%px, %2;\n\t@%%px mov.s32 %1, 1;\n\tmov.s32 %0, %%rx;\n\t}"
      : "+r"(laneid), "+r"(pred)
      : "r"(0xFFFFFFFF));
  return pred;
}

// PipelineState: index wraps at Stages, phase flips on the wrap.
template <int Stages>
struct PipelineState {
  int index_ = 0;
  uint32_t phase_ = 0;
  __device__ __forceinline__ int index() const { return index_; }
  __device__ __forceinline__ uint32_t phase() const { return phase_; }
  __device__ __forceinline__ void operator++() {
    ++index_;
    if (index_ == Stages) {
      index_ = 0;
      phase_ ^= 1;
    }
  }
};

// SM90_TMA_LOAD_2D-style copy struct.
struct SM90_TMA_LOAD_2D {
  static __device__ __forceinline__ void copy(void const* desc_ptr, uint64_t* mbar_ptr, void* smem_ptr,
                                              int32_t const& crd0, int32_t const& crd1) {
    uint64_t gmem_int_desc = reinterpret_cast<uint64_t>(desc_ptr);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];" ::"r"(cast_smem_ptr_to_uint(smem_ptr)),
        "l"(gmem_int_desc), "r"(cast_smem_ptr_to_uint(mbar_ptr)), "r"(crd0), "r"(crd1)
        : "memory");
  }
};

// SM90_BULK_COPY_G2S-style non-tensor bulk copy.
struct SM90_BULK_COPY_G2S {
  static __device__ __forceinline__ void copy(void const* gmem_ptr, uint64_t* mbar_ptr, void* smem_ptr,
                                              int32_t load_bytes) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            cast_smem_ptr_to_uint(smem_ptr)),
        "l"(gmem_ptr), "r"(load_bytes), "r"(cast_smem_ptr_to_uint(mbar_ptr))
        : "memory");
  }
};

// SM90_BULK_COPY_S2G-style bulk store from shared.
struct SM90_BULK_COPY_S2G {
  static __device__ __forceinline__ void copy(void const* smem_ptr, void* gmem_ptr, int32_t store_bytes) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem_ptr),
                 "r"(cast_smem_ptr_to_uint(smem_ptr)), "r"(store_bytes)
                 : "memory");
  }
};

__device__ __forceinline__ void tma_store_arrive() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
__device__ __forceinline__ void tma_store_wait0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

// GmmaDescriptor-style union: start address (>> 4) in bits [0,14).
union GmmaDescriptor {
  uint64_t desc_;
  uint32_t reg32_[2];
  struct {
    uint16_t start_address_ : 14, : 2;
    uint16_t leading_byte_offset_ : 14, : 2;
    uint16_t stride_byte_offset_ : 14, : 2;
    uint8_t : 1, base_offset_ : 3, : 4;
    uint8_t : 6, layout_type_ : 2;
  } bitfield;
};

// make_gmma_desc for a K-major, no-swizzle bf16 tile (8x8 core matrices).
__device__ __forceinline__ GmmaDescriptor make_gmma_desc(void const* smem_ptr) {
  GmmaDescriptor desc;
  desc.desc_ = 0;
  uint32_t start_address = cast_smem_ptr_to_uint(smem_ptr);
  desc.bitfield.start_address_ = static_cast<uint16_t>(start_address >> 4);
  desc.bitfield.leading_byte_offset_ = 128 >> 4;
  desc.bitfield.stride_byte_offset_ = 256 >> 4;
  desc.bitfield.base_offset_ = 0;
  desc.bitfield.layout_type_ = 0;
  return desc;
}

// DescriptorIterator-style advance: add a byte offset (>> 4) to the low word.
__device__ __forceinline__ uint64_t desc_advance(GmmaDescriptor d, uint32_t byte_offset) {
  GmmaDescriptor r = d;
  r.reg32_[0] += byte_offset >> 4;
  return r.desc_;
}

struct Accum {
  float d[32];
};

__device__ __forceinline__ void warpgroup_arrive() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void warpgroup_commit_batch() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void warpgroup_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// SM90_64x64x16_F32BF16BF16_SS-style atom: both operands from shared descriptors.
struct SM90_64x64x16_F32BF16BF16_SS {
  static __device__ __forceinline__ void fma(uint64_t const& desc_a, uint64_t const& desc_b, Accum& c) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1, 0, 0;\n\t}"
        : "+f"(c.d[0]), "+f"(c.d[1]), "+f"(c.d[2]), "+f"(c.d[3]), "+f"(c.d[4]), "+f"(c.d[5]), "+f"(c.d[6]),
          "+f"(c.d[7]), "+f"(c.d[8]), "+f"(c.d[9]), "+f"(c.d[10]), "+f"(c.d[11]), "+f"(c.d[12]), "+f"(c.d[13]),
          "+f"(c.d[14]), "+f"(c.d[15]), "+f"(c.d[16]), "+f"(c.d[17]), "+f"(c.d[18]), "+f"(c.d[19]),
          "+f"(c.d[20]), "+f"(c.d[21]), "+f"(c.d[22]), "+f"(c.d[23]), "+f"(c.d[24]), "+f"(c.d[25]),
          "+f"(c.d[26]), "+f"(c.d[27]), "+f"(c.d[28]), "+f"(c.d[29]), "+f"(c.d[30]), "+f"(c.d[31])
        : "l"(desc_a), "l"(desc_b)
        : "memory");
  }
};

}  // namespace mt
