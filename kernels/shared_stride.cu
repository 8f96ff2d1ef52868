// Shared-memory bank conflicts on demand: each block copies WORDS floats into shared
// memory (conflict-free), then thread i reads word (i * stride) % WORDS. Shared memory
// has 32 banks of 4 bytes, so a warp's read needs gcd(stride, 32) wavefronts (for
// strides up to 32): odd strides are free, stride 2 is a 2-way conflict, stride 32 a
// 32-way one.
#define WORDS 1024

extern "C" __global__ void shared_stride(const float* __restrict__ in,
                                         float* __restrict__ out,
                                         int stride,
                                         int n)
{
    __shared__ float buf[WORDS];
    for (int k = threadIdx.x; k < WORDS; k += blockDim.x) {
        buf[k] = in[k];
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = buf[(i * stride) % WORDS];
    }
}
