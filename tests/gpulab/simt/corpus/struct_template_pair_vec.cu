// struct_template_pair_vec.cu: elementwise x + 1 and 3 * y through a generic Pair<T> (used as
// Pair<float> and Pair<int> in one kernel) and a sliding 4-element window sum through Vec<N>.
// Constructs: struct template with a type parameter instantiated with two arguments, struct
// template with a value parameter sizing a member array, brace initialisation of an instance,
// const member functions, a member array indexed by a loop variable (in registers).
// corpus: {"kernel": "pair_vec", "grid": 3, "block": 128, "args": ["x:float32[300]=rand", "y:int32[300]=ints", "out:float32[300]", "iout:int32[300]", "win:float32[300]", 300]}

template <typename T>
struct Pair {
    T a, b;
    __device__ T sum() const { return a + b; }
};

template <int N>
struct Vec {
    float v[N];
    __device__ float total() const {
        float s = 0.0f;
        for (int i = 0; i < N; ++i) {
            s += v[i];
        }
        return s;
    }
};

extern "C" __global__ void pair_vec(const float *x, const int *y, float *out, int *iout, float *win, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Pair<float> p{x[i], 1.0f};
    Pair<int> q{y[i], 2 * y[i]};
    out[i] = p.sum();
    iout[i] = q.sum();
    Vec<4> w;
    for (int k = 0; k < 4; ++k) {
        w.v[k] = x[(i + k) % n];
    }
    win[i] = w.total();
}
