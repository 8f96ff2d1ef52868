// histogram_shared_atomics.cu: 64-bin histogram of values 0..99 with privatised bins: each block
// counts into shared memory, then adds its non-zero bins to the global histogram.
// Constructs: file-scope const int (array size and arithmetic), shared-memory atomicAdd, grid-stride for.
// corpus: {"kernel": "histogram_private", "grid": 3, "block": 96, "args": ["data:int32[2500]=naturals", "bins:uint32[64]", 2500]}

const int NUM_BINS = 64;
const int VALUE_RANGE = 100;

__global__ void histogram_private(const int *data, unsigned int *bins, int n) {
    __shared__ unsigned int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int bin = data[i] * NUM_BINS / VALUE_RANGE;
        atomicAdd(&local[bin], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
    }
}
