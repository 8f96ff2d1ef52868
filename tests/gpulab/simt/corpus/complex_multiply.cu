// complex_multiply.cu: out = a * b + c elementwise for complex numbers stored as (re, im) float pairs,
// with a small complex struct whose operators do the arithmetic.
// Constructs: struct with member operators (operator*, operator+) and a const member function,
// aggregate brace initialisation Complex{re, im}, const references.
// corpus: {"kernel": "complex_fma", "grid": 2, "block": 64, "args": ["a:float32[200]=rand", "b:float32[200]=rand", "c:float32[200]=rand", "out:float32[200]", "mag2:float32[100]", 100]}

struct Complex {
    float re;
    float im;

    __device__ Complex operator*(const Complex &o) const {
        return Complex{re * o.re - im * o.im, re * o.im + im * o.re};
    }
    __device__ Complex operator+(const Complex &o) const {
        return Complex{re + o.re, im + o.im};
    }
    __device__ float norm2() const { return re * re + im * im; }
};

__device__ Complex load_complex(const float *p, int i) {
    return Complex{p[2 * i], p[2 * i + 1]};
}

__global__ void complex_fma(const float *a, const float *b, const float *c, float *out, float *mag2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Complex r = load_complex(a, i) * load_complex(b, i) + load_complex(c, i);
    out[2 * i] = r.re;
    out[2 * i + 1] = r.im;
    mag2[i] = r.norm2();
}
