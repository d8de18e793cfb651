// Issue 35: exclusive modes name a uniform value by its whole expression
// (UniformModes.cpp, definitionText), and a name spells out its operands'
// names, so arithmetic whose every step reads the two values of the step
// before (double-double and quad-double error-free transformations: cuSOLVER's
// `glu_qdcsrsv2` kernels) makes names that grow exponentially: here each
// two-sum step over the kernel's two parameters makes the error term's name
// about 5.4 times longer (6 copies of the sum's name and 4 of the error's).
// A branch on every step has its condition named when the producer's
// exclusive modes are asked (the signal below sits under all 16 branches).
// Past maxTextLength() (512 characters) a value is unnamed, and the function
// is checked in 0.00 s and 5 MB. Without that cap it went past the 32 MiB
// budget below in 0.03 s (the default 512 MiB in 0.5 s), "not checked", so
// the finding below was never made; with no memory budget a 5 s time budget
// did not stop it (24 GB resident when killed after 90 s: building one name
// was not polled; it is now, name-deadline.cu). A sanitizer build does not count memory per function:
// bounded.py's 200 MB bound catches it there.
// RUN: python3 %S/Inputs/bounded.py --seconds 20 --mb 200 %fenceline check --max-memory-per-function 32 %s | FileCheck %s
// CHECK: uniform-names.cu:[[# @LINE + 25]]:{{[0-9]+}}: warning: {{.*}}[acquire-missing]
// CHECK: 1 warning in 1 function (1 function checked in 1 file
// CHECK: exit status: 1
// CHECK: bounds: ok
// RUN: python3 %S/Inputs/bounded.py --seconds 20 --mb 200 %fenceline check --verify --max-memory-per-function 32 %s | FileCheck %s --check-prefix=VERIFY
// VERIFY: verify: 1 expected diagnostics produced, 0 missing, 0 unexpected
// VERIFY: exit status: 0
// VERIFY: bounds: ok
extern "C" __global__ void two_sum_chain(double a, double b, int* data, volatile int* flag) {
  double hi = a, lo = b;
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const double sum = hi + lo;  // two-sum (Knuth): sum + error == hi + lo exactly
    const double virtualLo = sum - hi;
    const double error = (hi - (sum - virtualLo)) + (lo - virtualLo);
    hi = sum;
    lo = error;
    if (hi == lo) return;  // a branch on both names, at every step
  }
  if (blockIdx.x == 0) {  // the producer
    data[threadIdx.x] = 1;
    __threadfence();
    flag[0] = 1;
    return;
  }
  while (flag[0] == 0) {  // expect: acquire-missing
  }
  data[blockDim.x + threadIdx.x] = data[threadIdx.x];  // the read the flag guards
}
