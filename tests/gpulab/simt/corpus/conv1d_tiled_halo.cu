// conv1d_tiled_halo.cu: 1-D convolution with a fixed 7-tap kernel held in a brace-initialised local
// array; each block stages its tile plus a halo of RADIUS cells on each side in shared memory.
// Constructs: file-scope constexpr ints in array sizes, local const array with initialiser, halo loads.
// corpus: {"kernel": "conv1d_halo", "grid": 3, "block": 128, "args": ["in:float32[300]=ints", "out:float32[300]", 300]}

constexpr int RADIUS = 3;
constexpr int BLOCK = 128;

__global__ void conv1d_halo(const float *in, float *out, int n) {
    __shared__ float tile[BLOCK + 2 * RADIUS];
    const float weights[2 * RADIUS + 1] = {1.0f, 2.0f, 3.0f, 4.0f, 3.0f, 2.0f, 1.0f};
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int s = threadIdx.x + RADIUS;
    tile[s] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS;
        int right = g + BLOCK;
        tile[s - RADIUS] = left >= 0 ? in[left] : 0.0f;
        tile[s + BLOCK] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g >= n) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) acc += weights[k + RADIUS] * tile[s + k];
    out[g] = acc;
}
