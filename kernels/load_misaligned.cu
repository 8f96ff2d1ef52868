// Misaligned loads: lane i reads in[i + offset]. The warp still wants 128 contiguous
// bytes, but unless offset is a multiple of 8 floats they straddle 5 sectors, not 4.
extern "C" __global__ void load_misaligned(const float* __restrict__ in,
                                           float* __restrict__ out,
                                           int offset,
                                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i + offset];
    }
}
