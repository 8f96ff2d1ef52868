// matmul_tiled_template.cu: shared-memory tiled C = A * B with the tile width a template parameter,
// launched as matmul_tiled<16>; sizes are not multiples of the tile, so edge tiles load zeros.
// Constructs: template <int TILE> kernel, template constant in __shared__ array sizes, #pragma unroll.
// corpus: {"kernel": "matmul_tiled<16>", "grid": [2, 3], "block": [16, 16], "args": ["A:float32[40,36]=ints", "B:float32[36,24]=ints", "C:float32[40,24]", 40, 36, 24]}

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + tx;
        int b_row = t * TILE + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
