// overloaded_device_functions.cu: per-row sums and peak of three arrays of different element types
// (float, int, 8-bit), read through one overloaded to_float and reduced by warpReduce overloaded for
// float and int, with a function template overloaded by arity for the running maximum.
// Constructs: overloaded __device__ functions (float/int/unsigned char, picked by argument type),
// overloaded function templates (2 and 3 parameters), warp shuffles, one warp per row.
// corpus: {"kernel": "row_stats_mixed", "grid": 4, "block": 32, "args": ["xf:float32[400]=ints", "xi:int32[400]=ints", "xb:uint8[400]=bytes", "fsum:float32[4]", "isum:int32[4]", "peak:float32[4]", 100]}

__device__ float to_float(float v) { return v; }
__device__ float to_float(int v) { return (float)v; }
__device__ float to_float(unsigned char v) { return v / 255.0f; }  // a byte is a fraction of full scale

__device__ float warpReduce(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__device__ int warpReduce(int v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

template <typename T>
__device__ T largest(T a, T b) { return a > b ? a : b; }

template <typename T>
__device__ T largest(T a, T b, T c) { return largest(largest(a, b), c); }

extern "C" __global__ void row_stats_mixed(const float *xf, const int *xi, const unsigned char *xb,
                                           float *fsum, int *isum, float *peak, int n) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    float f = 0.0f;
    int s = 0;
    float p = -1.0e30f;
    for (int j = lane; j < n; j += 32) {
        int at = row * n + j;
        f += to_float(xf[at]);
        s += xi[at];
        p = largest(p, to_float(xi[at]), to_float(xb[at]));
    }
    f = warpReduce(f);
    s = warpReduce(s);
    for (int offset = 16; offset > 0; offset /= 2)
        p = largest(p, __shfl_down_sync(0xffffffff, p, offset));
    if (lane == 0) {
        fsum[row] = f;
        isum[row] = s;
        peak[row] = p;
    }
}
