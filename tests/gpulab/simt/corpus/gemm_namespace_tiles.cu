// gemm_namespace_tiles.cu: a shared-memory tiled SGEMM whose tile loader is a function template in a
// namespace with its strides as template arguments, in the style of the GEMM-optimisation tutorials.
// Constructs: function template in a namespace called qualified with explicit arguments, constexpr local as a template argument, template kernel, 1-D block over a 2-D tile, contracted acc += a * b.
// corpus: {"kernel": "sgemm_shared<16>", "grid": [4, 4], "block": 256, "args": ["A:float32[64,64]=rand", "B:float32[64,64]=rand", "C:float32[64,64]", 64]}
namespace gemm {
// dst[r][c] = src[(r0 + r) * ld + c0 + c] for a ROWS x COLS tile; each thread takes rows tid / COLS,
// tid / COLS + rowStride, ...
template <int ROWS, int COLS, int rowStride>
__device__ void loadTile(const float *src, float *dst, int ld, int r0, int c0, int tid) {
    const int c = tid % COLS;
    for (int r = tid / COLS; r < ROWS; r += rowStride) {
        dst[r * COLS + c] = src[(r0 + r) * ld + c0 + c];
    }
}
}  // namespace gemm

template <int TILE>
__global__ void sgemm_shared(const float *A, const float *B, float *C, int N) {
    __shared__ float As[TILE * TILE];
    __shared__ float Bs[TILE * TILE];
    constexpr int rowStride = 256 / TILE;
    const int tid = threadIdx.x;
    const int row = tid / TILE, col = tid % TILE;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    float acc = 0.0f;
    for (int k0 = 0; k0 < N; k0 += TILE) {
        gemm::loadTile<TILE, TILE, rowStride>(A, As, N, row0, k0, tid);
        gemm::loadTile<TILE, TILE, rowStride>(B, Bs, N, k0, col0, tid);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[row * TILE + k] * Bs[k * TILE + col];
        }
        __syncthreads();
    }
    C[(row0 + row) * N + col0 + col] = acc;
}
