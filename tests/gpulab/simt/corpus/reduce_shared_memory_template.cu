// reduce_shared_memory_template.cu: the CUDA samples' reduce0 (interleaved addressing, one partial
// sum per block) with its SharedMemory<T> helper typing the dynamic shared buffer per instance.
// Constructs: struct template with conversion operators (operator T*(), operator const T*() const),
// extern __shared__ inside a member function, struct template used with the enclosing function
// template's parameter (SharedMemory<T>()), explicit instantiation for a second type.
// corpus: {"kernel": "reduce0<int>", "grid": 4, "block": 128, "shared_mem": 512, "args": ["g_idata:int32[500]=ints", "g_odata:int32[4]", 500]}

// Utility class used to avoid linker errors with extern unsized shared memory arrays with
// templated type (as in the CUDA samples' reduction_kernel.cu)
template <class T>
struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }

    __device__ inline operator const T *() const {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
    T *sdata = SharedMemory<T>();

    // load shared mem
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? g_idata[i] : 0;

    __syncthreads();

    // do reduction in shared mem
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        // modulo arithmetic is slow!
        if ((tid % (2 * s)) == 0) {
            sdata[tid] += sdata[tid + s];
        }

        __syncthreads();
    }

    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce0<float>(float *g_idata, float *g_odata, unsigned int n);
