// The five STREAM operations as BabelStream defines them, in double precision, one thread
// per element. None of them does more than two floating-point operations per element, so
// each one is a measurement of the memory system: how many bytes per second the conveyor
// belt from memory to the cores carries. Bytes counted per element (read + written):
// copy 16, mul 16, add 24, triad 24, dot 16.

// c = a
extern "C" __global__ void stream_copy(const double *a, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i];
    }
}

// b = scalar * c
extern "C" __global__ void stream_mul(double *b, const double *c, double scalar, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        b[i] = scalar * c[i];
    }
}

// c = a + b
extern "C" __global__ void stream_add(const double *a, const double *b, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// a = b + scalar * c
extern "C" __global__ void stream_triad(double *a, const double *b, const double *c, double scalar, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = b[i] + scalar * c[i];
    }
}

// sum += a . b: each thread sums a grid-strided slice (so a GPU can launch just enough blocks
// to fill itself), each block adds its threads' sums in shared memory, and one thread per
// block adds the block's sum to *sum with an atomic. blockDim.x: a power of two <= 256.
#define DOT_BLOCK 256

extern "C" __global__ void stream_dot(const double *a, const double *b, double *sum, int n)
{
    __shared__ double partial[DOT_BLOCK];
    int tid = threadIdx.x;
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        acc += a[i] * b[i];
    }
    partial[tid] = acc;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) {
            partial[tid] += partial[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(sum, partial[0]);
    }
}
