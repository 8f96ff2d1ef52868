// atomicdec_countdown.cu: every thread takes a ticket from a counter with atomicDec, which restarts
// at the limit (63) after it reaches 0; the tickets handed out are tallied, so the tally is the same
// whatever order the threads ran in.
// Constructs: atomicDec(unsigned int *, limit) wrap-around, shared-memory tally, atomicAdd of counts.
// corpus: {"kernel": "take_tickets", "grid": 1, "block": 100, "args": ["counter:uint32[1]=ones", "tally:uint32[64]"]}

__global__ void take_tickets(unsigned int *counter, unsigned int *tally) {
    __shared__ unsigned int seen[64];
    if (threadIdx.x < 64) seen[threadIdx.x] = 0;
    __syncthreads();
    unsigned int ticket = atomicDec(counter, 63u);
    atomicAdd(&seen[ticket], 1u);
    __syncthreads();
    if (threadIdx.x < 64) tally[threadIdx.x] = seen[threadIdx.x];
}
