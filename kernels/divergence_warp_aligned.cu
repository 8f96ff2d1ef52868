// The same two paths as divergence_even_odd.cu, but the branch depends on the warp number
// (threadIdx.x / 32) instead of the lane: all 32 lanes of a warp agree, so each warp runs
// only its own path with every lane busy. Same work, no divergence.
extern "C" __global__ void divergence_warp_aligned(const unsigned int* __restrict__ in,
                                                   unsigned int* __restrict__ out,
                                                   int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        if ((threadIdx.x / 32) % 2 == 0) {
            v = v * 3 + 1;
            v = v ^ (v >> 5);
            v = v + 12345;
        } else {
            v = v * 5 + 7;
            v = v ^ (v << 3);
            v = v - 999;
        }
        out[i] = v;
    }
}
