// histogram_switch_buckets.cu: sorts small integers into five buckets with a switch (grouped case
// labels, a default, and a case that falls through on purpose), counting with atomicAdd.
// Constructs: switch with grouped cases, negative case labels, fall-through, default, break.
// corpus: {"kernel": "bucket_count", "grid": 2, "block": 128, "args": ["values:int32[250]=ints", "counts:int32[6]", 250]}

extern "C" __global__ void bucket_count(const int *values, int *counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = values[i];
    int bucket;
    switch (v) {
    case 0:
        bucket = 0;
        break;
    case 1: case 2: case 3:
        bucket = 1;
        break;
    case -1: case -2: case -3:
        bucket = 2;
        break;
    case 8:
        atomicAdd(&counts[5], 1);   // the largest value is also counted on its own
        // fall through
    default:
        bucket = v > 0 ? 3 : 4;
        break;
    }
    atomicAdd(&counts[bucket], 1);
}
