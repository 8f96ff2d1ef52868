// Coalesced loads: lane j of a warp reads element j of a contiguous run, so one warp's
// 32 float loads fall in 4 neighbouring 32-byte sectors (128 bytes, all of them used).
extern "C" __global__ void load_coalesced(const float* __restrict__ in,
                                          float* __restrict__ out,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}
