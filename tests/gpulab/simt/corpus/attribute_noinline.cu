// attribute_noinline.cu: integer hash of every element (xorshift-multiply rounds) with helpers marked
// the ways sample code marks them: __noinline__, __attribute__((always_inline)) and an aligned local.
// Constructs: __noinline__, __attribute__((always_inline)), __attribute__((aligned(16))), unsigned wrap-around.
// corpus: {"kernel": "hash_all", "grid": 2, "block": 64, "args": ["keys:uint32[100]=bits", "hashes:uint32[100]", 100]}

__device__ __noinline__ unsigned int mix(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__device__ __attribute__((always_inline)) inline unsigned int combine(unsigned int h, unsigned int k) {
    return h ^ (k + 0x9e3779b9u + (h << 6) + (h >> 2));
}

__global__ void hash_all(const unsigned int *keys, unsigned int *hashes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int parts[4] __attribute__((aligned(16))) = {keys[i], 1u, 2u, 3u};
    unsigned int h = 0;
    for (int k = 0; k < 4; ++k) h = combine(h, mix(parts[k]));
    hashes[i] = h;
}
