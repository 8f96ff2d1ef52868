// Gather: lane i reads in[idx[i]] at a random place. Reading idx is coalesced, but the
// gathered loads scatter over memory, so a warp fetches up to 32 sectors for 128 bytes.
extern "C" __global__ void load_gather(const float* __restrict__ in,
                                       const int* __restrict__ idx,
                                       float* __restrict__ out,
                                       int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[idx[i]];
    }
}
