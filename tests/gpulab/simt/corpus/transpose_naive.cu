// transpose_naive.cu: out = in^T for a rows x cols matrix, one thread per element on a 2-D grid
// (reads coalesced, writes strided).
// Constructs: 2-D grid and block, row-major index arithmetic, bounds check on both axes.
// corpus: {"kernel": "transpose_naive", "grid": [3, 3], "block": [16, 16], "args": ["out:float32[40,48]", "in:float32[48,40]=rand", 48, 40]}

extern "C" __global__ void transpose_naive(float *out, const float *in, int rows, int cols) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
