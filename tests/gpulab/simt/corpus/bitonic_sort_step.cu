// bitonic_sort_step.cu: one compare-exchange step (stage k, distance j) of a global bitonic sort; the
// host launches it for every (k, j) pair, this launch does k = 8, j = 4 on 256 floats.
// Constructs: unsigned kernel parameters, XOR partner, swap through a small device helper with references.
// corpus: {"kernel": "bitonic_step", "grid": 2, "block": 128, "args": ["values:float32[256]=rand", 4, 8]}

__device__ void swap_floats(float &a, float &b) {
    float t = a;
    a = b;
    b = t;
}

__global__ void bitonic_step(float *values, unsigned int j, unsigned int k) {
    unsigned int i = threadIdx.x + blockDim.x * blockIdx.x;
    unsigned int ixj = i ^ j;
    if (ixj > i) {
        float lo = values[i], hi = values[ixj];
        bool ascending = (i & k) == 0;
        if ((ascending && lo > hi) || (!ascending && lo < hi)) {
            swap_floats(lo, hi);
            values[i] = lo;
            values[ixj] = hi;
        }
    }
}
