// GPU pointer chase (the latency lab, gpulab.latency.gpu_chase): one thread follows a chain of
// indices in global memory, so every load's address is the value the load before returned and no
// two loads overlap; the time per load is the latency of wherever the chain lives (L1, L2, DRAM).
//
// The chain is gpulab.latency.ladder.build_chain's: chain[i] is the index of the next entry, one
// entry per 64-byte line, one cycle through every line of the working set.
//
// `steps` dependent loads from `start`, timed with clock64() (SM cycles). The final index is
// written to `sink` so the compiler cannot drop the loads; the cycles to `cycles`. Only thread 0
// of block 0 works: a second thread would overlap its loads with the first's.
extern "C" __global__ void pointer_chase(const long long *chain, long long start, long long steps,
                                         long long *sink, long long *cycles)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) {
        return;
    }
    long long at = start;
    long long begin = clock64();
    for (long long i = 0; i < steps; ++i) {
        at = chain[at];
    }
    long long end = clock64();
    sink[0] = at;
    cycles[0] = end - begin;
}
