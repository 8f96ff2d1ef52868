// dot_product_atomic.cu: dot product in the "CUDA by Example" way: grid-stride partial sums, a
// shared-memory tree per block, then one atomicAdd per block into the result (whole numbers: exact).
// Constructs: const int threadsPerBlock at file scope, shared cache array, float atomicAdd.
// corpus: {"kernel": "dot", "grid": 4, "block": 128, "args": [1500, "a:float32[1500]=ints", "b:float32[1500]=ints", "c:float32[1]"]}

const int threadsPerBlock = 128;

__global__ void dot(int n, const float *a, const float *b, float *c) {
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;
    float temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0) atomicAdd(c, cache[0]);
}
