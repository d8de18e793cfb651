// Suppression comments: on the flagged line, on the line above, with a glob,
// at the call site of an inlined helper, and one naming another check (which
// silences nothing, so that finding is expected).
__device__ int flag;
__device__ int payload;

__global__ void same_line(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // fenceline: ignore(acquire-missing)
  }
  out[0] = payload;
}

__global__ void line_above(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  // fenceline: ignore(proxy-war, acquire-*)
  while (*(volatile int*)&flag == 0) {
  }
  out[1] = payload;
}

__device__ __forceinline__ void spin(const int* f) {
  while (*(volatile const int*)f == 0) {
  }
}

__global__ void at_call_site(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  spin(&flag);  // fenceline: ignore(acquire-missing)
  out[2] = payload;
}

__global__ void other_check_named(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // fenceline: ignore(proxy-war)  // expect: acquire-missing
  }
  out[3] = payload;
}
