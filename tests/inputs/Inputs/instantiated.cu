// One finding per source site: the template kernel below is instantiated for
// three element types; its one missing acquire is one diagnostic.
template <typename T>
__global__ void consume(const T* payload, volatile int* ready, T* out) { if (blockIdx.x == 0) { const_cast<T*>(payload)[threadIdx.x] = T(1); __threadfence(); *ready = 1; return; }  // the producer
  while (*ready == 0) {}  // expect: acquire-missing
  out[threadIdx.x] = payload[threadIdx.x];
}

template __global__ void consume<int>(const int*, volatile int*, int*);
template __global__ void consume<float>(const float*, volatile int*, float*);
template __global__ void consume<double>(const double*, volatile int*, double*);
