// Unfused step 4 of the long chain y = ((a + b) * c - d) * 0.5: y[i] = u[i] * 0.5.
// One multiply costs a whole pass over memory: 8 bytes per element for one FLOP.
extern "C" __global__ void fusion_half(const float* __restrict__ u,
                                       float* __restrict__ y,
                                       int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = u[i] * 0.5f;
    }
}
