// saxpy_default_args.cu: y = a*x + y over a grid-stride for loop; the helper's third parameter
// has a default, so the first call adds nothing and the kernel adds y itself.
// Constructs: default arguments, __forceinline__, __restrict__, grid-stride for loop.
// corpus: {"kernel": "saxpy", "grid": 2, "block": 128, "args": [1000, 2.5, "x:float32[1000]=rand", "y:float32[1000]=rand"]}

__device__ __forceinline__ float axpy(float a, float x, float y = 0.0f) {
    return a * x + y;
}

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float scaled = axpy(a, x[i]);
        y[i] = scaled + y[i];
    }
}
