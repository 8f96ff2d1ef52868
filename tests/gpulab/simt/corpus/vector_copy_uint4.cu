// vector_copy_uint4.cu: copies a buffer of 32-bit words four at a time through uint4, and swaps the
// two halves of every int2 pair built with make_int2.
// Constructs: uint4 loads/stores via reinterpret_cast, int2 and make_int2, member access.
// corpus: {"kernel": "copy_and_swap", "grid": 2, "block": 64, "args": ["src:uint32[512]=bits", "dst:uint32[512]", "pairs:int32[256]=ints", "swapped:int32[256]", 512, 128]}

__global__ void copy_and_swap(const unsigned int *src, unsigned int *dst, const int *pairs, int *swapped,
                              int n_words, int n_pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_words / 4) {
        uint4 v = reinterpret_cast<const uint4 *>(src)[i];
        reinterpret_cast<uint4 *>(dst)[i] = v;
    }
    if (i < n_pairs) {
        int2 p = make_int2(pairs[2 * i], pairs[2 * i + 1]);
        int2 q = make_int2(p.y, p.x);
        swapped[2 * i] = q.x;
        swapped[2 * i + 1] = q.y;
    }
}
