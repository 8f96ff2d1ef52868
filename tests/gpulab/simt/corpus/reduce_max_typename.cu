// reduce_max_typename.cu: per-block maximum with the element type and block size as template
// parameters (launched as block_max<int, 128>), the shared buffer typed by T.
// Constructs: template <typename T, int BLOCK> kernel, two template arguments at launch, T locals.
// corpus: {"kernel": "block_max<int, 128>", "grid": 3, "block": 128, "args": ["in:int32[300]=naturals", "out:int32[3]", 300]}

template <typename T, int BLOCK>
__global__ void block_max(const T *in, T *out, int n) {
    __shared__ T best[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    best[threadIdx.x] = i < n ? in[i] : in[0];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s && best[threadIdx.x + s] > best[threadIdx.x]) best[threadIdx.x] = best[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = best[0];
}
