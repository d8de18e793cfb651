// Suppression comments: on the flagged line, on the line above, with a glob,
// at the call site of an inlined helper, and one naming another check (which
// silences nothing, so that finding is expected).
__device__ int flag;
__device__ int payload;

__global__ void same_line(int* out) {
  while (*(volatile int*)&flag == 0) {  // fenceline: ignore(acquire-missing)
  }
  out[0] = payload;
}

__global__ void line_above(int* out) {
  // fenceline: ignore(proxy-war, acquire-*)
  while (*(volatile int*)&flag == 0) {
  }
  out[1] = payload;
}

__device__ __forceinline__ void spin(const int* f) {
  while (*(volatile const int*)f == 0) {
  }
}

__global__ void at_call_site(int* out) {
  spin(&flag);  // fenceline: ignore(acquire-missing)
  out[2] = payload;
}

__global__ void other_check_named(int* out) {
  while (*(volatile int*)&flag == 0) {  // fenceline: ignore(proxy-war)  // expect: acquire-missing
  }
  out[3] = payload;
}
