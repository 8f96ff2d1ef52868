// Strided loads: lane j reads in[j * stride]. With stride 2 a warp touches twice as many
// sectors as it needs; from stride 8 on (8 floats = one 32-byte sector) every lane needs
// its own sector and only 4 of each 32 bytes fetched are used.
extern "C" __global__ void load_strided(const float* __restrict__ in,
                                        float* __restrict__ out,
                                        int stride,
                                        int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride];
    }
}
