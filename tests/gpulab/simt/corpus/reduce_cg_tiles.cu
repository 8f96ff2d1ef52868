// reduce_cg_tiles.cu: total of an int array; each warp-sized tile reduces with tile.shfl_down in a
// device function that takes the tile, and lane 0 of each tile adds its sum atomically.
// Constructs: cooperative groups (this_thread_block, tiled_partition<32>, thread_block_tile<32> as a
// parameter, shfl_down, size, thread_rank), namespace alias, atomicAdd.
// corpus: {"kernel": "reduce_cg", "grid": 2, "block": 128, "args": ["in:int32[700]=ints", "total:int32[1]", 700]}
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ int tile_sum(cg::thread_block_tile<32> tile, int v) {
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) {
        v += tile.shfl_down(v, offset);
    }
    return v;
}

__global__ void reduce_cg(const int *in, int *total, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int sum = 0;
    for (int i = blockIdx.x * block.size() + block.thread_rank(); i < n; i += block.size() * gridDim.x) {
        sum += in[i];
    }
    sum = tile_sum(tile, sum);
    if (tile.thread_rank() == 0) atomicAdd(total, sum);
}
