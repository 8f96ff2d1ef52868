// conv1d_constant_weights.cu: a 5-tap 1-D convolution whose weights live in constant memory, read by
// every thread at the same address in each step (the constant cache's broadcast case).
// Constructs: __constant__ array with an initializer, __constant__ scalar, RADIUS macro, boundary guard.
// corpus: {"kernel": "conv1d", "grid": 2, "block": 128, "args": ["in:float32[256]=rand", "out:float32[256]", 256]}
#define RADIUS 2

__constant__ float weights[2 * RADIUS + 1] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
__constant__ float gain = 2.0f;

__global__ void conv1d(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = min(max(i + k, 0), n - 1);
        acc += weights[k + RADIUS] * in[j];
    }
    out[i] = gain * acc;
}
