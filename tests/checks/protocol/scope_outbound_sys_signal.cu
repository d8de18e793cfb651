// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// scope-too-narrow on the release side of a flag whose reader is outside the kernel (session 27,
// the gap l26 noted): results, a fence at .gpu scope (`__threadfence()`, membar.gl /
// fence.sc.gpu), then a relaxed signal the kernel itself raises at .sys scope
// (`atomicExch_system`, `atomicAdd_system`, a system-scope atomic_ref store) to one word of a
// parameter that no wait of the kernel reads. The signal's own .sys scope is the signalling
// side's statement that a thread off this GPU (the host through mapped memory, another GPU)
// reads the flag; the .gpu fence does not order the results before the signal for such a
// reader (PTX ISA, Memory Consistency Model, "Scope": a release pattern synchronizes only with
// threads its scope includes). release-missing is silent (some release is there); the scope is
// what is missing. Fixed: `__threadfence_system()` (fence.sc.sys), or the signal itself a
// release at .sys. Silent too: the same flag raised at .gpu (or volatile), which a later kernel
// on this GPU may be the reader of: .gpu covers it, and nothing says otherwise.
#include <cuda/atomic>

// Broken: l26's form: a .gpu fence by the signalling thread after the barrier, then
// atomicExch_system(done, 1) (atom.sys.exch).
__global__ void done_exch_sys_after_gpu_fence(float* out, int* done) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence();  // expect: scope-too-narrow
    atomicExch_system(done, 1);
  }
}

// Broken: every writer fences at .gpu before the barrier, then thread 0 counts the block on a
// completion counter the host polls (atomicAdd_system).
__global__ void completion_count_sys_after_writer_fences(float* out, unsigned* completed) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f;
  __threadfence();  // expect: scope-too-narrow
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd_system(completed, 1u);
}

// Broken: a .gpu acq_rel fence, then a relaxed store through a system-scope atomic_ref
// (st.relaxed.sys).
__global__ void sequence_store_sys_after_gpu_fence(float* out, unsigned* seq, unsigned value) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 3.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_device);  // expect: scope-too-narrow
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> s(*seq);
    s.store(value, cuda::memory_order_relaxed);
  }
}

// Fixed: __threadfence_system() (fence.sc.sys) before the .sys exchange.
__global__ void done_exch_sys_after_sys_fence(float* out, int* done) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence_system();
    atomicExch_system(done, 1);
  }
}

// Fixed: every writer fences at .sys before the barrier.
__global__ void completion_count_sys_after_writer_sys_fences(float* out, unsigned* completed) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f;
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd_system(completed, 1u);
}

// Fixed: the signal is itself a release at .sys (st.release.sys); the .gpu fence before it is
// redundant, not too narrow.
__global__ void sequence_store_release_sys(float* out, unsigned* seq, unsigned value) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 3.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence();
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> s(*seq);
    s.store(value, cuda::memory_order_release);
  }
}

// Silent: the flag raised at .gpu (atomicExch: atom.exch, .gpu by default). Its reader may be a
// later kernel on this GPU, which the .gpu fence covers; nothing shows a reader off the GPU.
__global__ void done_exch_gpu_after_gpu_fence(float* out, int* done) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence();
    atomicExch(done, 1);
  }
}

// Silent: a volatile store acts at .sys by the ISA, but that is the qualifier's scope, not the
// kernel's statement of a reader (session 24, shape V).
__global__ void done_volatile_after_gpu_fence(float* out, unsigned* done) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence();
    *(volatile unsigned*)done = 1;
  }
}
