// function_pointer_activation.cu: an activation chosen per element through a function pointer, so
// the lanes of one warp call different functions (an indirect call that serialises on a GPU).
// Constructs: typedef and using aliases of function pointer types, a function passed as an argument, ?: between two functions, (*f)(x) and &f, == on function pointers.
// corpus: {"kernel": "activate", "grid": 2, "block": 64, "args": ["in:float32[100]=rand", "out:float32[100]", "kind:int32[100]=ints", 100]}
typedef float (*activation_t)(float);
using combine_t = float (*)(float, float);

__device__ float relu(float x) { return x > 0.0f ? x : 0.0f; }
__device__ float leaky_relu(float x) { return x > 0.0f ? x : 0.01f * x; }
__device__ float add(float a, float b) { return a + b; }

__device__ float apply(activation_t f, float x) { return f(x); }

__global__ void activate(const float *in, float *out, const int *kind, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    activation_t f = kind[i] > 0 ? leaky_relu : relu;
    combine_t combine = &add;
    float bias = (f == relu) ? 0.0f : (*f)(-1.0f);
    out[i] = combine(apply(f, in[i]), bias);
}
