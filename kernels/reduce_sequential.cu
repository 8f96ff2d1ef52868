// Block sum, second try: sequential addressing. In each round the first s threads add
// the element s places away (tid < s). Active threads are contiguous, so whole warps are
// either busy or idle: no divergence until fewer than 32 threads remain.
// One partial sum per block goes to partial[blockIdx.x]. blockDim.x: a power of two <= 256.
#define MAX_BLOCK 256

extern "C" __global__ void reduce_sequential(const int* __restrict__ in,
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
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
