// warp_vote_any_all.cu: for every warp, whether any / all of its values are even, and how many are.
// Constructs: __any_sync, __all_sync, __ballot_sync, __popc, __activemask on a partial last warp.
// corpus: {"kernel": "warp_votes", "grid": 1, "block": 112, "args": ["v:int32[112]=ints", "any_even:int32[4]", "all_even:int32[4]", "num_even:int32[4]"]}

extern "C" __global__ void warp_votes(const int *v, int *any_even, int *all_even, int *num_even) {
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    unsigned int active = __activemask();
    bool even = (v[threadIdx.x] & 1) == 0;
    int any = __any_sync(active, even);
    int all = __all_sync(active, even);
    int count = __popc(__ballot_sync(active, even));
    if (lane == 0) {
        any_even[warp] = any != 0;
        all_even[warp] = all != 0;
        num_even[warp] = count;
    }
}
