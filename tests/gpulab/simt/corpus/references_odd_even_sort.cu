// references_odd_even_sort.cu: odd-even transposition sort of 64 ints in shared memory by 32 threads;
// the compare-exchange helper takes its two operands by reference, straight into the shared array.
// Constructs: C++ reference parameters (int &) bound to shared-memory elements, swap through references.
// corpus: {"kernel": "odd_even_sort", "grid": 2, "block": 32, "args": ["data:int32[128]=naturals"]}
#define SORT_N 64

__device__ void order(int &lo, int &hi) {
    if (lo > hi) {
        int t = lo;
        lo = hi;
        hi = t;
    }
}

__global__ void odd_even_sort(int *data) {
    __shared__ int s[SORT_N];
    int *block_data = data + blockIdx.x * SORT_N;
    s[threadIdx.x] = block_data[threadIdx.x];
    s[threadIdx.x + 32] = block_data[threadIdx.x + 32];
    __syncthreads();
    for (int phase = 0; phase < SORT_N; ++phase) {
        int i = 2 * threadIdx.x + (phase & 1);
        if (i + 1 < SORT_N) order(s[i], s[i + 1]);
        __syncthreads();
    }
    block_data[threadIdx.x] = s[threadIdx.x];
    block_data[threadIdx.x + 32] = s[threadIdx.x + 32];
}
