// Constant folding of 64-bit division must not trap: INT64_MIN / -1 (and
// % -1) overflows in C++ (SIGFPE on x86), and `div.u64` divides the bit
// pattern. The operands come from inline asm so that nvcc cannot fold them
// itself; fenceline's value analysis does, when the spin loop's address is
// evaluated. The loop polls a plain load, so acquire-missing fires: the check
// ran through the folded address rather than the process dying (exit 136).
// RUN: %fenceline check --verify %s
extern "C" __global__ void fold_division(int* data, volatile int* flag) { if (blockIdx.x == 0) { data[blockDim.x + threadIdx.x] = 1; __threadfence(); flag[1] = 1; return; }  // the producer
  long long low, minusOne;
  unsigned long long high, sixteen;
  asm("mov.b64 %0, -9223372036854775808;" : "=l"(low));
  asm("mov.b64 %0, -1;" : "=l"(minusOne));
  asm("mov.b64 %0, -16;" : "=l"(high));
  asm("mov.b64 %0, 16;" : "=l"(sixteen));
  long long quotient = low / minusOne;   // div.s64: wraps to INT64_MIN
  long long remainder = low % minusOne;  // rem.s64: 0
  unsigned long long big = high / sixteen;  // div.u64: 0x0fffffffffffffff
  long long index = quotient + remainder + static_cast<long long>(big & 1);
  while (flag[index - quotient] == 0) {  // expect: acquire-missing
  }
  data[threadIdx.x] = data[blockDim.x + threadIdx.x];  // the read the flag guards
}
