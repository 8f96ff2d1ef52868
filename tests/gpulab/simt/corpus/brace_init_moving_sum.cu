// brace_init_moving_sum.cu: moving sums over a window of 4 and a count of the windows' negative
// entries, written with C++11 brace initialisation of scalars and a local array.
// Constructs: brace initialisers (int x{0}, float acc{0.0f}, int window[4]{}, empty braces), for loop.
// corpus: {"kernel": "moving_sum4", "grid": 1, "block": 128, "args": ["in:float32[128]=ints", "sums:float32[128]", "negatives:int32[128]", 128]}

__global__ void moving_sum4(const float *in, float *sums, int *negatives, int n) {
    int i{static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x)};
    if (i >= n) return;
    float window[4]{};
    int count{};
    float acc{0.0f};
    for (int k{0}; k < 4; ++k) {
        int j = i - k;
        window[k] = j >= 0 ? in[j] : 0.0f;
    }
    for (int k = 0; k < 4; ++k) {
        acc += window[k];
        if (window[k] < 0.0f) ++count;
    }
    sums[i] = acc;
    negatives[i] = count;
}
