// launch_bounds_relu.cu: out = max(x + bias[column], 0) for a matrix, in a kernel with launch bounds
// and restrict-qualified pointers and a forced-inline helper (floats are copied or added once: exact).
// Constructs: __launch_bounds__(256, 2), __restrict__, __forceinline__, fmaxf.
// corpus: {"kernel": "bias_relu", "grid": 2, "block": 256, "args": ["x:float32[16,24]=rand", "bias:float32[24]=rand", "out:float32[16,24]", 16, 24]}

static __device__ __forceinline__ float relu(float v) { return fmaxf(v, 0.0f); }

extern "C" __global__ void __launch_bounds__(256, 2)
bias_relu(const float *__restrict__ x, const float *__restrict__ bias, float *__restrict__ out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    out[i] = relu(x[i] + bias[i % cols]);
}
