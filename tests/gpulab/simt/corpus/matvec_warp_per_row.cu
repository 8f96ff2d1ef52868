// matvec_warp_per_row.cu: y = A x with one warp per row: lanes stride over the row (coalesced) and
// the partial sums meet with __shfl_down_sync; whole-number inputs keep the sums exact.
// Constructs: __launch_bounds__(128, 4), #pragma unroll on the shuffle loop, warp-per-row indexing.
// corpus: {"kernel": "matvec_warp", "grid": 3, "block": 128, "args": ["A:float32[10,70]=ints", "x:float32[70]=ints", "y:float32[10]", 10, 70]}

extern "C" __global__ void __launch_bounds__(128, 4)
matvec_warp(const float *A, const float *x, float *y, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= rows) return;
    float partial = 0.0f;
    for (int c = lane; c < cols; c += 32) partial += A[warp * cols + c] * x[c];
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) partial += __shfl_down_sync(0xffffffff, partial, offset);
    if (lane == 0) y[warp] = partial;
}
