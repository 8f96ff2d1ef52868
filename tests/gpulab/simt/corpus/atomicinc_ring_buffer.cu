// atomicinc_ring_buffer.cu: threads holding an odd value push it into a 16-slot ring buffer; the slot
// comes from atomicInc, which wraps the head back to 0 after 15. Every slot counts its writes, so the
// result does not depend on which thread got which slot.
// Constructs: atomicInc(unsigned int *, limit) wrap-around, atomicAdd on the returned slot.
// corpus: {"kernel": "ring_push", "grid": 2, "block": 64, "args": ["values:int32[128]=ints", "head:uint32[1]", "writes:uint32[16]"]}
#define RING 16

__global__ void ring_push(const int *values, unsigned int *head, unsigned int *writes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (values[i] & 1) {
        unsigned int slot = atomicInc(head, RING - 1);
        atomicAdd(&writes[slot], 1u);
    }
}
