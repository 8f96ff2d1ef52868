// softmax_rows_warp.cu: row-wise softmax of a rows x cols matrix, one warp per row: the row maximum
// and the sum of exponentials come from butterfly shuffles, every lane strides over the columns.
// Constructs: auto locals, __shfl_xor_sync butterflies, fmaxf/expf, warp-per-row indexing.
// corpus: {"kernel": "softmax_rows", "grid": 2, "block": 128, "args": ["x:float32[8,64]=rand", "y:float32[8,64]", 8, 64]}

__device__ float warp_max(float v) {
    for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, mask));
    return v;
}

__device__ float warp_sum(float v) {
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
    return v;
}

extern "C" __global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
    auto warps_per_block = blockDim.x / 32;
    auto row = blockIdx.x * warps_per_block + threadIdx.x / 32;
    auto lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *in = x + row * cols;
    float *out = y + row * cols;
    float m = __int_as_float(0xff800000);   // -infinity (INFINITY needs math.h under NVRTC)
    for (auto c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
    m = warp_max(m);
    float s = 0.0f;
    for (auto c = lane; c < cols; c += 32) s += expf(in[c] - m);
    s = warp_sum(s);
    for (auto c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) / s;
}
