// Block sum, third try: warp shuffles. Each warp sums its 32 values in registers with
// __shfl_down_sync (no shared memory, no __syncthreads), lane 0 of each warp parks the
// warp's sum in shared memory, and warp 0 sums those the same way.
// One partial sum per block goes to partial[blockIdx.x]. blockDim.x: a multiple of 32 <= 1024.
#define FULL_MASK 0xffffffff

extern "C" __global__ void reduce_shuffle(const int* __restrict__ in,
                                          int* __restrict__ partial,
                                          int n)
{
    __shared__ int warp_sums[32];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int warp = tid / 32;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = 0;
    if (i < n) {
        v = in[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = 0;
        if (lane < blockDim.x / 32) {
            v = warp_sums[lane];
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            v += __shfl_down_sync(FULL_MASK, v, offset);
        }
        if (lane == 0) {
            partial[blockIdx.x] = v;
        }
    }
}
