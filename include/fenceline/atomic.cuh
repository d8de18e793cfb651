// Typed atomics and fences with the memory-model semantics and scope as template
// parameters. Every wrapper is one PTX instruction written out in full
// (`ld.acquire.gpu.u32`, `atom.release.sys.add.u64`, `fence.acq_rel.gpu`), so what the
// source asks for is exactly what `fenceline check` and a reader of the PTX see: no
// defaulted scope, no `.b32` where the value is unsigned, no const pointer to memory
// that an instruction writes. The wrappers use generic addresses: they work on
// global, shared and peer (UVA) memory alike.
#pragma once

#include <cstdint>
#include <type_traits>

namespace fenceline {

// Memory-model semantics of PTX (../../shared/ordering-rules.md, "Vocabulary").
enum class Sem { relaxed, acquire, release, acq_rel, sc };
// Scopes, narrowest first. Peer-GPU and host memory need Scope::sys.
enum class Scope { cta, cluster, gpu, sys };

namespace detail {
template <class T>
inline constexpr bool is_atomic_word =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8);
}  // namespace detail

// Inline asm takes literal strings only: these two macros paste the scope and the type
// suffix (and register constraint) chosen at compile time. They are the only macros here,
// and are undefined again below the wrappers.
#define FENCELINE_DETAIL_BY_SCOPE(Sc, EMIT, ...)                                              \
  if constexpr ((Sc) == ::fenceline::Scope::cta) { EMIT(".cta", __VA_ARGS__); }              \
  else if constexpr ((Sc) == ::fenceline::Scope::cluster) { EMIT(".cluster", __VA_ARGS__); } \
  else if constexpr ((Sc) == ::fenceline::Scope::gpu) { EMIT(".gpu", __VA_ARGS__); }         \
  else { EMIT(".sys", __VA_ARGS__); }

#define FENCELINE_DETAIL_BY_TYPE(scope, T, EMIT, ...)                                      \
  if constexpr (sizeof(T) == 4 && std::is_unsigned_v<T>) { EMIT(scope, ".u32", "r", __VA_ARGS__); } \
  else if constexpr (sizeof(T) == 4) { EMIT(scope, ".s32", "r", __VA_ARGS__); }                    \
  else if constexpr (std::is_unsigned_v<T>) { EMIT(scope, ".u64", "l", __VA_ARGS__); }            \
  else { EMIT(scope, ".s64", "l", __VA_ARGS__); }

#define FENCELINE_DETAIL_LD(scope, type, c, sem) \
  asm volatile("ld" sem scope type " %0, [%1];" : "=" c(value) : "l"(address) : "memory")
#define FENCELINE_DETAIL_ST(scope, type, c, sem) \
  asm volatile("st" sem scope type " [%0], %1;" ::"l"(address), c(value) : "memory")
#define FENCELINE_DETAIL_ADD(scope, type, c, sem)                           \
  asm volatile("atom" sem scope ".add" type " %0, [%1], %2;"                 \
               : "=" c(old) : "l"(address), c(operand) : "memory")
#define FENCELINE_DETAIL_RED(scope, type, c, sem) \
  asm volatile("red" sem scope ".add" type " [%0], %1;" ::"l"(address), c(operand) : "memory")
#define FENCELINE_DETAIL_FENCE(scope, sem) asm volatile("fence" sem scope ";" ::: "memory")

// Loads *address as one single-copy-atomic access. Relaxed: no ordering beyond the
// access itself. Acquire: this thread's later accesses are ordered after it, toward every
// thread within Sc whose release it reads from (morally strong only if Sc covers the writer).
template <Sem S, Scope Sc, class T>
__device__ __forceinline__ T atomic_load(const T* address) {
  static_assert(detail::is_atomic_word<T>, "atomic_load: 32- or 64-bit integer");
  static_assert(S == Sem::relaxed || S == Sem::acquire, "atomic_load: relaxed or acquire");
  T value;
  if constexpr (S == Sem::relaxed) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_LD, ".relaxed")
  } else {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_LD, ".acquire")
  }
  return value;
}

// Stores value to *address. Release: every access this thread made before (and, by
// cumulativity, every access it observed, e.g. its block's writes gathered by a preceding
// __syncthreads) is visible to a thread within Sc that acquires this value.
template <Sem S, Scope Sc, class T>
__device__ __forceinline__ void atomic_store(T* address, T value) {
  static_assert(detail::is_atomic_word<T>, "atomic_store: 32- or 64-bit integer");
  static_assert(S == Sem::relaxed || S == Sem::release, "atomic_store: relaxed or release");
  if constexpr (S == Sem::relaxed) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_ST, ".relaxed")
  } else {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_ST, ".release")
  }
}

// Atomically adds operand to *address and returns the old value. Its release half (release,
// acq_rel) publishes this thread's prior accesses to threads within Sc that acquire the sum;
// its acquire half (acquire, acq_rel) orders later accesses after the values it reads from.
template <Sem S, Scope Sc, class T>
__device__ __forceinline__ T atomic_fetch_add(T* address, T operand) {
  static_assert(detail::is_atomic_word<T>, "atomic_fetch_add: 32- or 64-bit integer");
  static_assert(!(sizeof(T) == 8 && std::is_signed_v<T>), "atom.add has no .s64: use uint64_t");
  static_assert(S != Sem::sc, "atom has no .sc: use fence<Sem::sc> then a relaxed atom");
  T old;
  if constexpr (S == Sem::relaxed) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_ADD, ".relaxed")
  } else if constexpr (S == Sem::acquire) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_ADD, ".acquire")
  } else if constexpr (S == Sem::release) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_ADD, ".release")
  } else {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_ADD, ".acq_rel")
  }
  return old;
}

// Atomically adds operand to *address with no returned value (red): the issuing thread need
// not wait for it. Ordering as atomic_fetch_add's release half: relaxed or release only.
template <Sem S, Scope Sc, class T>
__device__ __forceinline__ void atomic_add(T* address, T operand) {
  static_assert(detail::is_atomic_word<T>, "atomic_add: 32- or 64-bit integer");
  static_assert(!(sizeof(T) == 8 && std::is_signed_v<T>), "red.add has no .s64: use uint64_t");
  static_assert(S == Sem::relaxed || S == Sem::release, "atomic_add (red): relaxed or release");
  if constexpr (S == Sem::relaxed) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_RED, ".relaxed")
  } else {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_BY_TYPE, T, FENCELINE_DETAIL_RED, ".release")
  }
}

// A fence among this thread's generic-proxy accesses at scope Sc. acquire: earlier loads
// (e.g. a relaxed poll that saw a release) are ordered before all later accesses;
// release: all earlier accesses before later stores; acq_rel both; sc also orders
// against other sc fences.
template <Sem S, Scope Sc>
__device__ __forceinline__ void fence() {
  static_assert(S != Sem::relaxed, "fence: there is no relaxed fence");
  if constexpr (S == Sem::acquire) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_FENCE, ".acquire")
  } else if constexpr (S == Sem::release) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_FENCE, ".release")
  } else if constexpr (S == Sem::acq_rel) {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_FENCE, ".acq_rel")
  } else {
    FENCELINE_DETAIL_BY_SCOPE(Sc, FENCELINE_DETAIL_FENCE, ".sc")
  }
}

#undef FENCELINE_DETAIL_LD
#undef FENCELINE_DETAIL_ST
#undef FENCELINE_DETAIL_ADD
#undef FENCELINE_DETAIL_RED
#undef FENCELINE_DETAIL_FENCE
#undef FENCELINE_DETAIL_BY_TYPE
#undef FENCELINE_DETAIL_BY_SCOPE

// Orders this thread's generic-proxy accesses to shared::cta memory against its later
// async-proxy accesses (TMA/bulk copies, wgmma operands) and vice versa. It covers the
// executing thread only: every thread that touched the buffer runs it, or the thread that
// issues the async access runs it after acquiring the hand-off.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// As fence_proxy_async_shared(), for global memory (generic writes read by a TMA load).
__device__ __forceinline__ void fence_proxy_async_global() {
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// As fence_proxy_async_shared(), for every state space.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async;" ::: "memory"); }

// Makes this thread's preceding mbarrier.init visible to the other threads of the cluster
// and to the async proxy (the copy engine's complete_tx); run it after init, before the
// barrier that publishes the initialized mbarriers.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// %globaltimer in nanoseconds (coarse ticks): for timeouts, never for ordering.
__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace fenceline
