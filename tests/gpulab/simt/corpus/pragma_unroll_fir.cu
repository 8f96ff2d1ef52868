// pragma_unroll_fir.cu: an 8-tap integer FIR filter whose tap loop is unrolled, with an unroll count
// on the outer loop and "#pragma unroll 1" (keep the loop) on a third.
// Constructs: #pragma unroll, #pragma unroll N, #pragma unroll 1, #define tap count.
// corpus: {"kernel": "fir8", "grid": 2, "block": 64, "args": ["x:int32[128]=ints", "taps:int32[8]=ints", "y:int32[128]", 128]}
#define TAPS 8

__global__ void fir8(const int *x, const int *taps, int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int h[TAPS];
#pragma unroll 4
    for (int k = 0; k < TAPS; ++k) h[k] = taps[k];
    int acc = 0;
#pragma unroll
    for (int k = 0; k < TAPS; ++k) {
        if (i - k >= 0) acc += h[k] * x[i - k];
    }
#pragma unroll 1
    for (int r = 0; r < 2; ++r) acc = acc ^ (r << 4);
    y[i] = acc;
}
