// cg_reduce_plus_braces.cu: per-warp sum and maximum with cooperative groups' reduce, the operator
// objects written with braces (cg::plus<float>{}), as recent CUDA samples and LLM-training code do.
// Constructs: cg::reduce with brace-initialised operator objects, thread_block_tile<32>, meta_group_rank.
// corpus: {"kernel": "warp_sums", "grid": 4, "block": 128, "args": ["x:float32[512]=rand", "sums:float32[16]", "maxes:float32[16]"]}
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void warp_sums(const float *x, float *sums, float *maxes) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    float sum = cg::reduce(warp, v, cg::plus<float>{});
    float top = cg::reduce(warp, v, cg::greater<float>{});
    if (warp.thread_rank() == 0) {
        int w = blockIdx.x * (blockDim.x / 32) + warp.meta_group_rank();
        sums[w] = sum;
        maxes[w] = top;
    }
}
