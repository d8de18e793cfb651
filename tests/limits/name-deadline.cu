// Issue 35: the time budget holds while a value's name is built. Exclusive
// modes name a uniform value by its whole expression (UniformModes.cpp), and
// each two-sum step below makes the error term's name about 5.4 times
// longer (uniform-names.cu). The 512-character cap bounds that in a normal
// run; FENCELINE_MAX_NAME_LENGTH=0 takes the cap away, so that naming is the
// function's whole cost and grows without end. The names' walk and each
// piece of a long name's copy poll the budget (model/PolledText.h), so the
// function stops at its 0.5 s budget, "not checked", the process well within
// its bounds. Without those polls (main at e2d8d33 with the same cap taken
// away) it ran past 30 s and was killed: a name's build polled nothing. With
// the cap in place the kernel checks in 0.00 s (its finding: uniform-names.cu).
// No memory budget: the deadline alone must stop it.
// RUN: env FENCELINE_MAX_NAME_LENGTH=0 python3 %S/Inputs/bounded.py --seconds 20 --mb 1000 %fenceline check --max-memory-per-function 0 --max-seconds-per-function 0.5 %s | FileCheck %s
// CHECK: name-deadline.cu.ptx:{{[0-9]+}}:{{[0-9]+}}: error: kernel 'two_sum_deadline' not checked: more than 0.5 seconds {{.*}}(--max-seconds-per-function)
// CHECK: 0 functions checked in 1 file
// CHECK: exit status: 2
// CHECK: bounds: ok
extern "C" __global__ void two_sum_deadline(double a, double b, int* data, volatile int* flag) {
  double hi = a, lo = b;
#pragma unroll
  for (int k = 0; k < 24; ++k) {
    const double sum = hi + lo;  // two-sum: sum + error == hi + lo exactly
    const double virtualLo = sum - hi;
    const double error = (hi - (sum - virtualLo)) + (lo - virtualLo);
    hi = sum;
    lo = error;
    if (hi == lo) return;  // a branch on both names at every step: they are asked
  }
  if (blockIdx.x == 0) {  // a producer and a consumer, so that exclusive modes are asked
    data[threadIdx.x] = 1;
    __threadfence();
    flag[0] = 1;
    return;
  }
  while (flag[0] == 0) {
  }
  data[blockDim.x + threadIdx.x] = data[threadIdx.x];
}
