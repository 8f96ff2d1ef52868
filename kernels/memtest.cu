// Device memory pattern test (gpulab check's gpu.memtest): fill a buffer of 64-bit words with a
// pattern, then read it back and count the words that differ. Each word's expected value is a
// function of its index alone, so the verifier regenerates it and nothing is stored twice.
//
// Patterns (the `pattern` argument):
//   0 walking ones:  one bit set, walking with the word's index (bit (index + shift) % 64), so
//                    neighbouring words differ in a single data line each
//   1 random:        a splitmix64 hash of (seed, index): no two neighbours alike, reproducible
//   2 own address:   the word holds its own byte address (base + 8 * index), which catches an
//                    address line that is stuck or shorted (two addresses landing in one word)
//
// One launch covers the `n` words of `buf`, which are words `first` ... `first + n - 1` of the
// tested region (the host launches chunk by chunk, so no launch runs long). A grid-stride loop,
// so any grid covers any n. The verifier counts mismatches with atomicAdd and records the first
// `max_record` it meets (word index, value read, value expected); which ones come first is up to
// the scheduler, the count is exact.

#define MEMTEST_WALKING_ONES 0
#define MEMTEST_RANDOM 1
#define MEMTEST_ADDRESS 2

// splitmix64's finalizer (Steele, Lea, Flood 2014): a bijection on 64-bit words that mixes
// every input bit into every output bit.
__device__ unsigned long long memtest_mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// The value word `index` of the region should hold. `seed` is the random pattern's seed, the
// walking ones' shift, and the region's base address for the address pattern.
__device__ unsigned long long memtest_expected(int pattern, unsigned long long index, unsigned long long seed)
{
    if (pattern == MEMTEST_WALKING_ONES) {
        return 1ULL << ((index + seed) & 63ULL);
    }
    if (pattern == MEMTEST_RANDOM) {
        return memtest_mix(seed + (index + 1ULL) * 0x9e3779b97f4a7c15ULL);
    }
    return seed + index * 8ULL;
}

extern "C" __global__ void memtest_write(unsigned long long *buf, unsigned long long n,
                                         unsigned long long first, int pattern, unsigned long long seed)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        buf[i] = memtest_expected(pattern, first + i, seed);
    }
}

extern "C" __global__ void memtest_verify(const unsigned long long *buf, unsigned long long n,
                                          unsigned long long first, int pattern, unsigned long long seed,
                                          unsigned long long *bad_count, unsigned long long *bad_index,
                                          unsigned long long *bad_got, unsigned long long *bad_want,
                                          int max_record)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned long long want = memtest_expected(pattern, first + i, seed);
        unsigned long long got = buf[i];
        if (got != want) {
            unsigned long long slot = atomicAdd(bad_count, 1ULL);
            if (slot < (unsigned long long)max_record) {
                bad_index[slot] = first + i;
                bad_got[slot] = got;
                bad_want[slot] = want;
            }
        }
    }
}
