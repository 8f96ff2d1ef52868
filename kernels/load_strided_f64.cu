// Strided double loads: lane j reads in[j * stride], 8 bytes each. A warp of coalesced
// doubles already wants 256 bytes (8 sectors, all used), so every stride doubles the sectors
// of the float32 version until each lane needs a sector of its own (stride 4 and more).
extern "C" __global__ void load_strided_f64(const double* __restrict__ in,
                                            double* __restrict__ out,
                                            int stride,
                                            int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride];
    }
}
