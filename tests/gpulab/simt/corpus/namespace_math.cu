// namespace_math.cu: linear interpolation and smoothstep of values in [0, 1], with the helpers in a
// nested namespace, called by qualified name, through a using-declaration and a using-directive.
// Constructs: namespace, nested namespace, qualified calls ns::f, using ns::f, using namespace.
// corpus: {"kernel": "blend", "grid": 1, "block": 128, "args": ["a:float32[100]=unit", "b:float32[100]=unit", "t:float32[100]=unit", "out:float32[100]", "smooth:float32[100]", 100]}

namespace lab {
namespace detail {
__device__ float clamp01(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
}  // namespace detail

__device__ float lerp(float a, float b, float t) { return a + t * (b - a); }

__device__ float smoothstep(float x) {
    float c = detail::clamp01(x);
    return c * c * (3.0f - 2.0f * c);
}
}  // namespace lab

using lab::lerp;

__global__ void blend(const float *a, const float *b, const float *t, float *out, float *smooth, int n) {
    using namespace lab;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = lerp(a[i], b[i], t[i]);
    smooth[i] = smoothstep(lab::detail::clamp01(2.0f * t[i] - 0.5f));
}
