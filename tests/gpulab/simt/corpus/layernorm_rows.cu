// layernorm_rows.cu: layer normalisation of each row (mean 0, variance 1, then gamma and beta), one
// warp per row with the two moments reduced by __shfl_xor_sync.
// Constructs: auto, const auto, device helper returning a float, rsqrtf, warp-per-row, pointer offsets.
// corpus: {"kernel": "layernorm", "grid": 2, "block": 64, "args": ["x:float32[4,96]=rand", "gamma:float32[96]=unit", "beta:float32[96]=rand", "y:float32[4,96]", 4, 96, 0.00001]}

__device__ float warp_all_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
    return v;
}

__global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps) {
    const auto row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const auto lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *xr = x + row * cols;
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += xr[c];
    const float mean = warp_all_sum(sum) / cols;
    float sq = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        auto d = xr[c] - mean;
        sq += d * d;
    }
    const float inv_std = rsqrtf(warp_all_sum(sq) / cols + eps);
    for (int c = lane; c < cols; c += 32) y[row * cols + c] = (xr[c] - mean) * inv_std * gamma[c] + beta[c];
}
