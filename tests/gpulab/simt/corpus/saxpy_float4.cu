// saxpy_float4.cu: y = a*x + y with 16-byte vector loads and stores: the arrays are viewed as float4
// through reinterpret_cast, and the n % 4 leftover elements are done one by one.
// Constructs: float4 and its .x/.y/.z/.w members, reinterpret_cast<const float4 *>, vector store.
// corpus: {"kernel": "saxpy_vec4", "grid": 3, "block": 96, "args": [1030, -1.5, "x:float32[1030]=rand", "y:float32[1030]=rand"]}

__global__ void saxpy_vec4(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 xv = reinterpret_cast<const float4 *>(x)[i];
        float4 yv = reinterpret_cast<float4 *>(y)[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z;
        yv.w = a * xv.w + yv.w;
        reinterpret_cast<float4 *>(y)[i] = yv;
    }
    int tail = n4 * 4 + i;
    if (i < n - n4 * 4) y[tail] = a * x[tail] + y[tail];
}
