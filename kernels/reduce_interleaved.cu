// Block sum, first try: interleaved addressing. In round s, threads whose tid is a
// multiple of 2*s add their neighbour s places away. The test tid % (2*s) == 0 leaves
// most lanes of every warp idle (divergence), and the work thins out inside each warp.
// One partial sum per block goes to partial[blockIdx.x]. blockDim.x: a power of two <= 256.
#define MAX_BLOCK 256

extern "C" __global__ void reduce_interleaved(const int* __restrict__ in,
                                              int* __restrict__ partial,
                                              int n)
{
    __shared__ int sdata[MAX_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = 0;
    if (i < n) {
        v = in[i];
    }
    sdata[tid] = v;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
