// cg_dynamic_tiles.cu: segment sums over tiles made at run time with tiled_partition(block, n), the
// tile size a kernel argument, synchronising each tile through shared memory.
// Constructs: cg::thread_group from tiled_partition(group, n), thread_rank(), size(), sync() on a tile, a tree sum inside each tile.
// corpus: {"kernel": "tile_sums", "grid": 2, "block": 64, "args": ["x:float32[128]=ints", "sums:float32[128]", 8]}
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tile_sums(const float *x, float *sums, int tile_size) {
    __shared__ float buf[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, tile_size);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int base = threadIdx.x - tile.thread_rank();
    buf[threadIdx.x] = x[i];
    tile.sync();
    for (int stride = tile.size() / 2; stride > 0; stride /= 2) {
        if (tile.thread_rank() < stride) {
            buf[threadIdx.x] += buf[threadIdx.x + stride];
        }
        tile.sync();
    }
    sums[i] = buf[base];
}
