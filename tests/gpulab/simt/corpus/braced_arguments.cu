// braced_arguments.cu: complex multiply and a squared norm written with braced arguments and a
// braced return value, as modern C++ CUDA code writes small value types.
// Constructs: f({a, b}) for a struct and a float2 parameter, return {re, im}; copy-list initialisation.
// corpus: {"kernel": "rotate", "grid": 1, "block": 128, "args": ["re:float32[128]=rand", "im:float32[128]=rand", "out_re:float32[128]", "out_im:float32[128]", "out_norm:float32[128]", 128]}
struct Complex {
    float re, im;
};

__device__ Complex cmul(Complex a, Complex b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

__device__ float norm2(float2 v) { return v.x * v.x + v.y * v.y; }

__global__ void rotate(const float *re, const float *im, float *out_re, float *out_im, float *out_norm, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Complex z = cmul({re[i], im[i]}, {0.6f, 0.8f});
    out_re[i] = z.re;
    out_im[i] = z.im;
    out_norm[i] = norm2({z.re, z.im});
}
