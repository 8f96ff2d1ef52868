// clock_timing.cu: times a small per-thread loop with clock() and clock64() and stores both the
// result and the elapsed cycles (the test checks only that the cycle counts are not negative).
// Constructs: clock(), clock64(), long long arithmetic, clock_t.
// corpus: {"kernel": "timed_poly", "grid": 1, "block": 64, "args": ["x:int32[64]=ints", "y:int32[64]", "cycles:int64[64]", "cycles32:int32[64]"]}

__global__ void timed_poly(const int *x, int *y, long long *cycles, int *cycles32) {
    int i = threadIdx.x;
    clock_t start32 = clock();
    long long start = clock64();
    int v = x[i];
    int acc = 0;
    for (int k = 0; k < 8; ++k) acc = acc * v + k;
    y[i] = acc;
    cycles[i] = clock64() - start;
    cycles32[i] = (int)(clock() - start32);
}
