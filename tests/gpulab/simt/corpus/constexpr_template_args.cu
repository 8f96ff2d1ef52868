// constexpr_template_args.cu: a 1-D box filter through a shared tile with halo, its radius, block
// size and width constexpr/const locals of the kernel that size the shared and local arrays and are
// the template arguments of the device helpers.
// Constructs: constexpr and const int locals as template arguments (scaled<WIDTH>, sum_of<2 * RADIUS + 1>),
// local constants in array sizes (__shared__ float tile[BLOCK + 2 * RADIUS], float window[WIDTH]).
// corpus: {"kernel": "box_filter", "grid": 4, "block": 64, "args": ["in:float32[200]=ints", "out:float32[200]", 200]}

template <int N>
__device__ float sum_of(const float *values) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc += values[k];
    return acc;
}

template <int WIDTH>
__device__ float scaled(float sum) { return sum / WIDTH; }

extern "C" __global__ void box_filter(const float *in, float *out, int n) {
    constexpr int RADIUS = 2;
    constexpr int BLOCK = 64;
    const int WIDTH = 2 * RADIUS + 1;
    __shared__ float tile[BLOCK + 2 * RADIUS];

    int i = blockIdx.x * BLOCK + threadIdx.x;
    tile[threadIdx.x + RADIUS] = i < n ? in[i] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = i - RADIUS;
        int right = i + BLOCK;
        tile[threadIdx.x] = left >= 0 && left < n ? in[left] : 0.0f;
        tile[threadIdx.x + BLOCK + RADIUS] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    float window[WIDTH];
    for (int k = 0; k < WIDTH; ++k) window[k] = tile[threadIdx.x + k];
    if (i < n) out[i] = scaled<WIDTH>(sum_of<2 * RADIUS + 1>(window));
}
