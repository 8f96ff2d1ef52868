// atomic_minmax.cu: global minimum and maximum of an int array: each thread folds a grid-stride slice,
// then adds its candidates with one atomicMin and one atomicMax (the result is order-independent);
// the host starts lo at INT_MAX and hi at INT_MIN.
// Constructs: atomicMin / atomicMax on global ints, min/max builtins, extreme int literals.
// corpus: {"kernel": "global_minmax", "grid": 2, "block": 64, "args": ["v:int32[1000]=ints", "lo:int32[1]=max", "hi:int32[1]=min", 1000]}

extern "C" __global__ void global_minmax(const int *v, int *lo, int *hi, int n) {
    int my_lo = 2147483647, my_hi = -2147483647 - 1;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        my_lo = min(my_lo, v[i]);
        my_hi = max(my_hi, v[i]);
    }
    atomicMin(lo, my_lo);
    atomicMax(hi, my_hi);
}
