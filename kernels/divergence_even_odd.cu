// Warp divergence, the worst simple case: even lanes take one path, odd lanes the other.
// A warp issues one instruction for all 32 lanes, so it runs BOTH paths one after the
// other with half of its lanes masked off each time: half of the stove stands idle.
// Compare divergence_warp_aligned.cu, which does the same work without divergence.
extern "C" __global__ void divergence_even_odd(const unsigned int* __restrict__ in,
                                               unsigned int* __restrict__ out,
                                               int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        if (threadIdx.x % 2 == 0) {
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
