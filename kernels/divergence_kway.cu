// k-way divergence: lane % k picks one of k different recipes (k = 1..8). The warp runs
// the recipes one after another, each with only about 32/k lanes active, so its useful
// work shrinks roughly as 1/k. Written as an if/else-if chain (a switch on lane % k
// diverges the same way, on a GPU and in the emulator).
extern "C" __global__ void divergence_kway(const unsigned int* __restrict__ in,
                                           unsigned int* __restrict__ out,
                                           int k,
                                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        int path = (threadIdx.x % 32) % k;
        if (path == 0) {
            v = v * 3 + 1;
        } else if (path == 1) {
            v = v * 5 + 7;
        } else if (path == 2) {
            v = v ^ (v >> 3);
        } else if (path == 3) {
            v = v + (v << 4);
        } else if (path == 4) {
            v = v * 7 - 11;
        } else if (path == 5) {
            v = v ^ (v << 7);
        } else if (path == 6) {
            v = v + 1000003;
        } else {
            v = v * 9 + (v >> 2);
        }
        out[i] = v;
    }
}
