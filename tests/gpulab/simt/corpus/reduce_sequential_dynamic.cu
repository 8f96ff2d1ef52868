// reduce_sequential_dynamic.cu: one partial sum per block, sequential addressing, each thread adds
// two elements while loading; the shared buffer is sized at launch (blockDim.x ints).
// Constructs: extern __shared__ (dynamic shared memory), first add during global load.
// corpus: {"kernel": "reduce_sequential", "grid": 4, "block": 128, "shared_mem": 512, "args": ["g_in:int32[1000]=ints", "g_out:int32[4]", 1000]}

extern "C" __global__ void reduce_sequential(const int *g_in, int *g_out, int n) {
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int sum = (i < n) ? g_in[i] : 0;
    if (i + blockDim.x < n) sum += g_in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}
