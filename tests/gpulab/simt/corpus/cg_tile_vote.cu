// cg_tile_vote.cu: 16-thread tiles vote on their values: whether any / all are negative, the ballot
// of negatives, and the tile maximum by shfl_xor butterflies.
// Constructs: cg::tiled_partition<16>, thread_block_tile<16>, any(), all(), ballot(), shfl_xor(),
// thread_rank(), size(), meta-free tile indexing.
// corpus: {"kernel": "tile_votes", "grid": 1, "block": 64, "args": ["v:int32[64]=ints", "any_neg:int32[4]", "all_neg:int32[4]", "ballots:uint32[4]", "tile_max:int32[4]"]}
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void tile_votes(const int *v, int *any_neg, int *all_neg, unsigned int *ballots, int *tile_max) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int x = v[block.thread_rank()];
    int tile_id = block.thread_rank() / tile.size();
    bool negative = x < 0;
    int any = tile.any(negative);
    int all = tile.all(negative);
    unsigned int ballot = tile.ballot(negative);
    int m = x;
    for (int mask = tile.size() / 2; mask > 0; mask /= 2) m = max(m, tile.shfl_xor(m, mask));
    if (tile.thread_rank() == 0) {
        any_neg[tile_id] = any != 0;
        all_neg[tile_id] = all != 0;
        ballots[tile_id] = ballot;
        tile_max[tile_id] = m;
    }
}
