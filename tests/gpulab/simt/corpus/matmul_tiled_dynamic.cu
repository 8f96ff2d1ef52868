// matmul_tiled_dynamic.cu: tiled C = A * B where both tiles live in one dynamically sized shared
// buffer (2 * tile * tile floats), the tile width taken from blockDim.x.
// Constructs: extern __shared__ float[] split by pointer arithmetic, tile size chosen at launch.
// corpus: {"kernel": "matmul_dynamic_tiles", "grid": [1, 2], "block": [16, 16], "shared_mem": 2048, "args": ["A:float32[32,48]=ints", "B:float32[48,16]=ints", "C:float32[32,16]", 32, 48, 16]}

extern "C" __global__ void matmul_dynamic_tiles(const float *A, const float *B, float *C,
                                                int M, int K, int N) {
    extern __shared__ float smem[];
    int tile = blockDim.x;
    float *As = smem;
    float *Bs = smem + tile * tile;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * tile + ty;
    int col = blockIdx.x * tile + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += tile) {
        As[ty * tile + tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty * tile + tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < tile; ++k) acc += As[ty * tile + k] * Bs[k * tile + tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
