// scan_hillis_steele.cu: inclusive prefix sum of one block's 256 ints, Hillis-Steele style: log2(n)
// rounds over a double buffer in shared memory, the buffers swapping roles every round.
// Constructs: static __shared__ double buffer, ping-pong indices, __syncthreads inside a loop.
// corpus: {"kernel": "scan_hillis_steele", "grid": 1, "block": 256, "args": ["in:int32[256]=ints", "out:int32[256]", 256]}
#define SCAN_MAX 256

extern "C" __global__ void scan_hillis_steele(const int *in, int *out, int n) {
    __shared__ int temp[2 * SCAN_MAX];
    int tid = threadIdx.x;
    int pout = 0, pin = 1;
    temp[pout * n + tid] = in[tid];
    __syncthreads();
    for (int offset = 1; offset < n; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout * n + tid] = temp[pin * n + tid] + temp[pin * n + tid - offset];
        else
            temp[pout * n + tid] = temp[pin * n + tid];
        __syncthreads();
    }
    out[tid] = temp[pout * n + tid];
}
