// CLI test input: a kernel with no synchronization at all; nothing to report.
__global__ void scale(float* data, float factor) { data[threadIdx.x] *= factor; }
