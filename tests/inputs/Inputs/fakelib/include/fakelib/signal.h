// A stand-in for a third-party header library (CUTLASS, DeepGEMM's helpers):
// a flag store written in inline PTX, relaxed, inside a library function the
// user calls. Tests pass this folder as -isystem (or name it with
// --system-header-prefix) so that fenceline treats it as library code.
#pragma once

namespace fakelib {

__device__ __forceinline__ void raise_flag(int* flag) {
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(1) : "memory");
}

}  // namespace fakelib
