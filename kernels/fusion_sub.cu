// Unfused step 3 of the long chain y = ((a + b) * c - d) * 0.5: u[i] = t[i] - d[i].
// Another launch, another intermediate written out and read back by the next step.
extern "C" __global__ void fusion_sub(const float* __restrict__ t,
                                      const float* __restrict__ d,
                                      float* __restrict__ u,
                                      int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        u[i] = t[i] - d[i];
    }
}
