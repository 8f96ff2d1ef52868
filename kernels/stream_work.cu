// The work of one chunk in the streams lab: each element goes through `rounds` rounds of
// v = v * 0.999 + 0.001 (one multiply-add each), so the kernel's length is set by `rounds`
// while the bytes it reads and writes stay the same. Copy in, this kernel, copy out: the lab
// overlaps them across streams.
extern "C" __global__ void stream_work(const float* __restrict__ x, float* __restrict__ y,
                                       int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < rounds; ++r) {
            v = v * 0.999f + 0.001f;
        }
        y[i] = v;
    }
}
