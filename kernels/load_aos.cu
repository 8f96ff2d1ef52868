// Array of structs, written as index arithmetic: record i holds `fields` floats side by side
// (x, y, z, w, ... of one particle) and each thread reads one field of its own record.
// Neighbouring lanes are `fields` floats apart, so the warp's load behaves like stride `fields`.
extern "C" __global__ void load_aos(const float* __restrict__ in,
                                    float* __restrict__ out,
                                    int fields,
                                    int field,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * fields + field];
    }
}
