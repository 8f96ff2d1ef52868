// bitonic_sort_shared.cu: each block sorts its 256 ints ascending with a bitonic network in shared
// memory: for every stage k and step j a thread compares itself with partner tid ^ j.
// Constructs: nested loops with __syncthreads, XOR partner index, bool direction, unsigned shifts.
// corpus: {"kernel": "bitonic_sort_block", "grid": 2, "block": 256, "args": ["data:int32[512]=naturals"]}
#define SORT_N 256

extern "C" __global__ void bitonic_sort_block(int *data) {
    __shared__ int s[SORT_N];
    unsigned int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * SORT_N + tid];
    __syncthreads();
    for (unsigned int k = 2; k <= SORT_N; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int partner = tid ^ j;
            if (partner > tid) {
                bool ascending = (tid & k) == 0;
                int a = s[tid], b = s[partner];
                if ((a > b) == ascending) {
                    s[tid] = b;
                    s[partner] = a;
                }
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * SORT_N + tid] = s[tid];
}
