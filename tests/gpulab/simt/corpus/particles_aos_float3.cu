// particles_aos_float3.cu: one explicit Euler step for particles stored as xyz triples: velocity
// gains g*dt, position gains v*dt; the maths uses float3 with user-written operators (as a
// helper_math-style header would provide).
// Constructs: float3, make_float3, operator overloads on float3 taking const references, __forceinline__.
// corpus: {"kernel": "euler_step", "grid": 1, "block": 128, "args": ["pos:float32[300]=rand", "vel:float32[300]=rand", 100, 0.125]}

__device__ __forceinline__ float3 operator+(const float3 &a, const float3 &b) {
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

__device__ __forceinline__ float3 operator*(float s, const float3 &v) {
    return make_float3(s * v.x, s * v.y, s * v.z);
}

__device__ float3 load3(const float *p, int i) { return make_float3(p[3 * i], p[3 * i + 1], p[3 * i + 2]); }

__device__ void store3(float *p, int i, float3 v) {
    p[3 * i] = v.x;
    p[3 * i + 1] = v.y;
    p[3 * i + 2] = v.z;
}

__global__ void euler_step(float *pos, float *vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float3 gravity = make_float3(0.0f, -9.75f, 0.0f);
    float3 v = load3(vel, i) + dt * gravity;
    float3 p = load3(pos, i) + dt * v;
    store3(vel, i, v);
    store3(pos, i, p);
}
