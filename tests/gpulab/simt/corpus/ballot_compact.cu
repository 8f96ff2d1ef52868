// ballot_compact.cu: warp-level stream compaction: the positive values of every 32-element chunk are
// packed to the front of its 32 output slots in order, and the count of each chunk is written.
// Constructs: __ballot_sync, __popc, lane masks built with shifts, warp-synchronous prefix counts.
// corpus: {"kernel": "compact_positive", "grid": 2, "block": 128, "args": ["in:int32[256]=ints", "out:int32[256]", "counts:int32[8]", 256]}

extern "C" __global__ void compact_positive(const int *in, int *out, int *counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp_global = i / 32;
    int v = i < n ? in[i] : 0;
    bool keep = v > 0;
    unsigned int votes = __ballot_sync(0xffffffff, keep);
    unsigned int lower = votes & ((1u << lane) - 1u);
    int slot = __popc(lower);
    if (keep) out[warp_global * 32 + slot] = v;
    if (lane == 0) counts[warp_global] = __popc(votes);
}
