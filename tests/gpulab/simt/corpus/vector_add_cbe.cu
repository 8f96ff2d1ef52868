// vector_add_cbe.cu: c = a + b, one thread per element with a grid-stride while loop, as in
// "CUDA by Example" chapter 5 (any grid covers all N elements).
// Constructs: object-like #define, C++ linkage __global__, while loop, blockDim * gridDim stride.
// corpus: {"kernel": "add", "grid": 3, "block": 128, "args": ["a:int32[1000]=ints", "b:int32[1000]=ints", "c:int32[1000]"]}
#define N 1000

__global__ void add(const int *a, const int *b, int *c) {
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    while (tid < N) {
        c[tid] = a[tid] + b[tid];
        tid += blockDim.x * gridDim.x;
    }
}
