// CLI test input: does not compile; fenceline must relay nvcc's message.
__global__ void broken(int* out) {
  out[0] = undeclared_name;
}
