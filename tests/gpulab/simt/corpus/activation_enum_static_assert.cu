// activation_enum_static_assert.cu: a fused bias + activation chosen by an enum, with the block size
// checked at compile time, written the way modern C++ CUDA code is (attributes, noexcept, if constexpr).
// Constructs: unscoped enum as a type and in case labels, static_assert at file scope and in a template, if constexpr, [[likely]], noexcept, alignas on a local array.
// corpus: {"kernel": "bias_act<128>", "grid": 2, "block": 128, "args": ["x:float32[256]=rand", "bias:float32[128]=rand", "out:float32[256]", 1]}
enum Activation { IDENTITY, RELU, LEAKY_RELU = 4 };

static_assert(sizeof(float) == 4, "floats are 4 bytes");

__device__ float activate(Activation kind, float v) noexcept {
    switch (kind) {
    case RELU: return v > 0.0f ? v : 0.0f;
    case LEAKY_RELU: return v > 0.0f ? v : 0.125f * v;
    default: return v;
    }
}

template <int BLOCK>
__global__ void bias_act(const float *x, const float *bias, float *out, int mode) {
    static_assert(BLOCK % 32 == 0, "the block must be whole warps");
    alignas(16) float staged[1];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    staged[0] = x[i] + bias[threadIdx.x];
    Activation kind = mode == 1 ? RELU : LEAKY_RELU;
    if constexpr (BLOCK >= 64) {
        if (threadIdx.x % 2 == 0) [[likely]] {
            out[i] = activate(kind, staged[0]);
        } else {
            out[i] = activate(LEAKY_RELU, staged[0]);
        }
    } else {
        out[i] = activate(IDENTITY, staged[0]);
    }
}
