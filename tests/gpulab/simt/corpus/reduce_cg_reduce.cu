// reduce_cg_reduce.cu: one partial sum per block in two rounds of cg::reduce: every warp reduces
// its values, warp 0 reduces the per-warp sums kept in shared memory.
// Constructs: cooperative_groups/reduce.h, cg::reduce with cg::plus<int>, auto for group handles,
// block.sync(), block.size().
// corpus: {"kernel": "block_sum_cg", "grid": 3, "block": 256, "args": ["in:int32[700]=ints", "partial:int32[3]", 700]}
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void block_sum_cg(const int *in, int *partial, int n) {
    __shared__ int warp_sums[32];
    auto block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int s = cg::reduce(warp, v, cg::plus<int>());
    unsigned int warp_id = block.thread_rank() / 32;
    if (warp.thread_rank() == 0) warp_sums[warp_id] = s;
    block.sync();
    if (warp_id == 0) {
        unsigned int nwarps = (block.size() + 31) / 32;
        int w = warp.thread_rank() < nwarps ? warp_sums[warp.thread_rank()] : 0;
        w = cg::reduce(warp, w, cg::plus<int>());
        if (warp.thread_rank() == 0) partial[blockIdx.x] = w;
    }
}
