// reduce_interleaved.cu: one partial sum per block, interleaved addressing (the first, divergent
// reduction of the classic "optimizing parallel reduction" sequence).
// Constructs: static __shared__ array sized by #define, modulo test that diverges, __syncthreads in a loop.
// corpus: {"kernel": "reduce_interleaved", "grid": 8, "block": 128, "args": ["g_in:int32[1000]=ints", "g_out:int32[8]", 1000]}
#define BLOCK_SIZE 128

extern "C" __global__ void reduce_interleaved(const int *g_in, int *g_out, int n) {
    __shared__ int sdata[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}
