// stencil_1d_cbe.cu: out[i] = sum of in over a window of radius 3, the input padded by RADIUS on both
// sides, as in the "CUDA C/C++ basics" 1-D stencil: each block stages its window in shared memory.
// Constructs: #define sizes, static __shared__ with halo, halo loads by the first RADIUS threads.
// corpus: {"kernel": "stencil_1d", "grid": 4, "block": 64, "args": ["in:int32[262]=ints", "out:int32[256]"]}
#define RADIUS 3
#define BLOCK_SIZE 64

__global__ void stencil_1d(const int *in, int *out) {
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    int lindex = threadIdx.x + RADIUS;
    temp[lindex] = in[gindex + RADIUS];
    if (threadIdx.x < RADIUS) {
        temp[lindex - RADIUS] = in[gindex];
        temp[lindex + BLOCK_SIZE] = in[gindex + RADIUS + BLOCK_SIZE];
    }
    __syncthreads();
    int result = 0;
    for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
    out[gindex] = result;
}
