// Block sum with its shared buffer sized by the launch: one int per warp in dynamic shared
// memory (extern __shared__; the launch gives shared_mem = warps per block x 4 bytes, as
// CuPy's RawKernel(..., shared_mem=) does). Each warp adds its 32 values with shuffles in a
// helper that takes its value by reference; lane 0 of each warp stores the warp's sum, then
// warp 0 adds those. Also shows the C++ a course kernel uses: constexpr, auto, references.
constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ void warp_sum(int &v)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
}

extern "C" __global__ void reduce_dynamic(const int* __restrict__ in,
                                          int* __restrict__ partial,
                                          int n)
{
    extern __shared__ int warp_sums[];
    const auto tid = threadIdx.x;
    const auto i = blockIdx.x * blockDim.x + tid;
    int v = i < n ? in[i] : 0;
    warp_sum(v);
    if (tid % 32 == 0) {
        warp_sums[tid / 32] = v;
    }
    __syncthreads();
    if (tid < 32) {
        v = tid < blockDim.x / 32 ? warp_sums[tid] : 0;
        warp_sum(v);
        if (tid == 0) {
            partial[blockIdx.x] = v;
        }
    }
}
