// functor_transform.cu: one element-wise helper template applied with two function objects, the
// way Thrust-style and LLM-training code pass an operation to a kernel helper.
// Constructs: struct with operator() (with and without data), Op{...} and Op() temporaries, a function template deducing Op, contracted a * x + y inside the operator.
// corpus: {"kernel": "apply_ops", "grid": 2, "block": 128, "args": ["x:float32[250]=rand", "y:float32[250]=rand", "saxpy:float32[250]", "clamped:float32[250]", 1.5, 250]}
struct Saxpy {
    float a;
    __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct ClampedDifference {
    __device__ float operator()(float x, float y) const { return fminf(fmaxf(x - y, 0.0f), 1.0f); }
};

template <typename Op>
__device__ void transform2(const float *x, const float *y, float *out, int i, Op op) {
    out[i] = op(x[i], y[i]);
}

__global__ void apply_ops(const float *x, const float *y, float *saxpy, float *clamped, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    transform2(x, y, saxpy, i, Saxpy{a});
    transform2(x, y, clamped, i, ClampedDifference());
}
