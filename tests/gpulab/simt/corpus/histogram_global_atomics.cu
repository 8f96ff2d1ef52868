// histogram_global_atomics.cu: 256-bin byte histogram, every thread adds straight to the global bins
// ("CUDA by Example" chapter 9's first version), grid-stride over the buffer.
// Constructs: unsigned char input, atomicAdd on unsigned int in global memory, grid-stride while loop.
// corpus: {"kernel": "histo_kernel", "grid": 4, "block": 128, "args": ["buffer:uint8[3000]=bytes", 3000, "histo:uint32[256]"]}

__global__ void histo_kernel(const unsigned char *buffer, long size, unsigned int *histo) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&histo[buffer[i]], 1);
        i += stride;
    }
}
