// printf_debug.cu: doubles every element and, as a learner debugging would, prints what a few threads
// see (thread and block ids, the value, a float with a precision) with device printf.
// Constructs: printf with %d, %u, %f, %.2f and a string literal, printf inside a branch.
// corpus: {"kernel": "double_and_trace", "grid": 2, "block": 32, "args": ["data:float32[64]=ints", 64]}

__global__ void double_and_trace(float *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float before = data[i];
    data[i] = 2.0f * before;
    if (threadIdx.x % 16 == 0) {
        printf("block %d thread %u: %f -> %.2f\n", blockIdx.x, threadIdx.x, before, data[i]);
    }
    if (i == 0) printf("%s\n", "first thread done");
}
