// nvcc_environment.cu: turns to radians, clamped to the float range, and a lane-tagged index, read and
// written through cache-hint loads and stores; the names come from what nvcc's environment gives a .cu file.
// Constructs: uint and ushort, M_PI, __FLT_MAX__, FLT_MAX (<cfloat>), INT_MAX (<climits>), uint32_t
// (<cstdint>), <cassert> with a device assert, __ldcs/__ldcg, __stcs/__stwt.
// corpus: {"kernel": "turns_to_radians", "grid": 2, "block": 128, "args": ["turns:float32[256]=rand", "radians:float32[256]", "index:uint32[256]", 256]}
#include <cassert>
#include <cfloat>
#include <climits>
#include <cstdint>

__global__ void turns_to_radians(const float *turns, float *radians, uint32_t *index, int n) {
    uint i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(n >= 0 && n <= INT_MAX);
    if (i >= (uint)n) return;
    ushort lane = (ushort)(i % 32u);
    float r = (float)(2.0 * M_PI) * __ldcs(turns + i) + 0.0f * __ldcg(turns + i);
    r = fmaxf(fminf(r, __FLT_MAX__), -FLT_MAX);
    __stcs(radians + i, r);
    __stwt(index + i, (uint32_t)(i * 100u + lane));
}
