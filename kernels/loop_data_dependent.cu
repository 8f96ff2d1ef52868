// A loop whose trip count differs per lane (counts[i] rounds of a random-number step).
// The warp keeps looping until its slowest lane is done; lanes that finished early sit
// masked off, so a warp costs max(counts) rounds, not the average.
extern "C" __global__ void loop_data_dependent(const unsigned int* __restrict__ in,
                                               const int* __restrict__ counts,
                                               unsigned int* __restrict__ out,
                                               int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        int rounds = counts[i];
        for (int r = 0; r < rounds; ++r) {
            v = v * 1664525 + 1013904223;
        }
        out[i] = v;
    }
}
