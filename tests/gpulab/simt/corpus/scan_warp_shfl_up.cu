// scan_warp_shfl_up.cu: inclusive prefix sum within each block: warps scan with __shfl_up_sync,
// warp 0 scans the warp totals, every warp adds the total of the warps before it.
// Constructs: file-scope constexpr int and constexpr unsigned, constexpr array size, __shfl_up_sync.
// corpus: {"kernel": "block_scan", "grid": 2, "block": 256, "args": ["in:int32[500]=ints", "out:int32[500]", 500]}

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ int warp_inclusive_scan(int x, int lane) {
    for (int d = 1; d < kWarp; d *= 2) {
        int y = __shfl_up_sync(kFullMask, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

extern "C" __global__ void block_scan(const int *in, int *out, int n) {
    __shared__ int warp_totals[kWarp];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % kWarp;
    int warp = threadIdx.x / kWarp;
    int x = warp_inclusive_scan(i < n ? in[i] : 0, lane);
    if (lane == kWarp - 1) warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int t = lane < (int)(blockDim.x / kWarp) ? warp_totals[lane] : 0;
        warp_totals[lane] = warp_inclusive_scan(t, lane);
    }
    __syncthreads();
    if (warp > 0) x += warp_totals[warp - 1];
    if (i < n) out[i] = x;
}
