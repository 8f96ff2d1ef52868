// reduce_warp_unrolled.cu: grid-stride reduction with the block size as a template parameter, so
// the tree and the last-warp steps unroll at compile time; the last warp uses __syncwarp between
// its read and its write (safe under independent thread scheduling).
// Constructs: template <unsigned int blockSize> kernel and device function, launch as reduce_unrolled<128>,
// if on a template constant, __syncwarp.
// corpus: {"kernel": "reduce_unrolled<128>", "grid": 4, "block": 128, "args": ["g_in:int32[2000]=ints", "g_out:int32[4]", 2000]}

template <unsigned int blockSize>
__device__ void warpReduce(int *sdata, unsigned int tid) {
    int v = sdata[tid];
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
        if (blockSize >= 2 * offset) v += sdata[tid + offset];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
    }
}

template <unsigned int blockSize>
__global__ void reduce_unrolled(const int *g_in, int *g_out, unsigned int n) {
    __shared__ int sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    int sum = 0;
    while (i < n) {
        sum += g_in[i];
        if (i + blockSize < n) sum += g_in[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = sum;
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) warpReduce<blockSize>(sdata, tid);
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}
