// NOLINT suppressions (clang-tidy's spelling, fenceline- prefixed ids): on
// the flagged line, on the line above (NOLINTNEXTLINE), with a glob; ids of
// other tools, a bare NOLINT, an unknown id and a NOLINT on the line above
// silence nothing (those findings are this file's expectations).
__device__ int flag;
__device__ int payload;

__global__ void nolint_same_line(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // NOLINT(fenceline-acquire-missing)
  }
  out[0] = payload;
}

__global__ void nolint_next_line(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  // NOLINTNEXTLINE(bugprone-infinite-loop, fenceline-acquire-*)
  while (*(volatile int*)&flag == 0) {
  }
  out[1] = payload;
}

__global__ void other_tool_only(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // NOLINT(bugprone-infinite-loop)  // expect: acquire-missing
  }
  out[2] = payload;
}

__global__ void bare_nolint(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // NOLINT  // expect: acquire-missing
  }
  out[3] = payload;
}

__global__ void misspelled(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // NOLINT(fenceline-acquire-mising)  // expect: acquire-missing
  }
  out[4] = payload;
}

__global__ void nolint_above_is_not_next_line(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  // NOLINT(fenceline-acquire-missing)
  while (*(volatile int*)&flag == 0) {  // expect: acquire-missing
  }
  out[5] = payload;
}

__global__ void ignore_misspelled(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // fenceline: ignore(aquire-missing)  // expect: acquire-missing
  }
  out[6] = payload;
}
