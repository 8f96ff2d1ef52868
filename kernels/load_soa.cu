// Struct of arrays, written as index arithmetic: field f of every record is stored in its own
// run of n floats (all x, then all y, ...). Each thread still reads one field of its own
// record, but neighbouring lanes now read neighbouring floats: 4 sectors per warp, all used.
extern "C" __global__ void load_soa(const float* __restrict__ in,
                                    float* __restrict__ out,
                                    int fields,
                                    int field,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[field * n + i];
    }
}
