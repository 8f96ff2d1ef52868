// reduce_shfl_auto.cu: block sums of a float array with warp shuffles: each warp reduces with
// __shfl_down_sync, warp 0 reduces the warp totals (values are whole numbers, so every order is exact).
// Constructs: auto locals, __inline__ device function, #pragma unroll, warpSize, __shfl_down_sync.
// corpus: {"kernel": "block_reduce_shfl", "grid": 4, "block": 160, "args": ["in:float32[600]=ints", "out:float32[4]", 600]}

__inline__ __device__ float warp_reduce_sum(float val) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    return val;
}

extern "C" __global__ void block_reduce_shfl(const float *in, float *out, int n) {
    __shared__ float shared[32];
    auto lane = threadIdx.x % warpSize;
    auto wid = threadIdx.x / warpSize;
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    float val = (i < n) ? in[i] : 0.0f;
    val = warp_reduce_sum(val);
    if (lane == 0) shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0.0f;
    if (wid == 0) {
        val = warp_reduce_sum(val);
        if (lane == 0) out[blockIdx.x] = val;
    }
}
