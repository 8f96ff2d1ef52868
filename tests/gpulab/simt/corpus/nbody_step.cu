// nbody_step.cu: gravitational accelerations of n bodies (all-pairs, softened), bodies staged tile by
// tile in shared memory as float4 (position and mass); positions go in and out as float triples.
// Constructs: float3/float4, make_float3/make_float4, __shared__ float4 tile, rsqrtf, reference out-parameter.
// corpus: {"kernel": "nbody_accel", "grid": 2, "block": 64, "args": ["pos:float32[384]=rand", "mass:float32[128]=unit", "acc:float32[384]", 128, 0.01]}

__device__ void body_body(const float4 &bj, const float3 &pi, float3 &ai, float eps2) {
    float3 r = make_float3(bj.x - pi.x, bj.y - pi.y, bj.z - pi.z);
    float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
    float inv = rsqrtf(dist2);
    float s = bj.w * inv * inv * inv;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
}

__global__ void nbody_accel(const float *pos, const float *mass, float *acc, int n, float eps2) {
    __shared__ float4 tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float3 pi = make_float3(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
    float3 ai = make_float3(0.0f, 0.0f, 0.0f);
    for (int start = 0; start < n; start += blockDim.x) {
        int j = start + threadIdx.x;
        tile[threadIdx.x] = make_float4(pos[3 * j], pos[3 * j + 1], pos[3 * j + 2], mass[j]);
        __syncthreads();
        for (int k = 0; k < blockDim.x; ++k) body_body(tile[k], pi, ai, eps2);
        __syncthreads();
    }
    acc[3 * i] = ai.x;
    acc[3 * i + 1] = ai.y;
    acc[3 * i + 2] = ai.z;
}
