// The header a JIT cache's sources include (found only through the flags file).
#pragma once
#ifndef JIT_FLAG_TYPE
#error "compile with -DJIT_FLAG_TYPE=int (the flags file says so)"
#endif
__device__ JIT_FLAG_TYPE flag;
__device__ JIT_FLAG_TYPE payload;
namespace jit {
__device__ __forceinline__ JIT_FLAG_TYPE load_flag(JIT_FLAG_TYPE* p) { return *(volatile JIT_FLAG_TYPE*)p; }
}  // namespace jit
