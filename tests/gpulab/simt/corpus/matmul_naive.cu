// matmul_naive.cu: C = A * B (M x K times K x N), one thread per output element (PMPP chapter 3);
// whole-number inputs keep every float sum exact.
// Constructs: __restrict__ pointers, 2-D launch, inner-product for loop.
// corpus: {"kernel": "matmul_naive", "grid": [2, 2], "block": [16, 16], "args": ["A:float32[24,20]=ints", "B:float32[20,28]=ints", "C:float32[24,28]", 24, 20, 28]}

extern "C" __global__ void matmul_naive(const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
