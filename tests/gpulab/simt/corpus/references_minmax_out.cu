// references_minmax_out.cu: per-thread minimum and maximum of a strided slice, returned through two
// reference out-parameters, and a reference to a local that aliases it (updates through either name).
// Constructs: int & out-parameters, a local reference alias (int &alias = x), const int & parameter.
// corpus: {"kernel": "slice_minmax", "grid": 1, "block": 64, "args": ["v:int32[640]=naturals", "lo:int32[64]", "hi:int32[64]", "span:int32[64]", 640]}

__device__ void min_max(const int *v, int first, int stride, const int &n, int &lo, int &hi) {
    lo = v[first];
    hi = v[first];
    for (int k = first + stride; k < n; k += stride) {
        lo = min(lo, v[k]);
        hi = max(hi, v[k]);
    }
}

__global__ void slice_minmax(const int *v, int *lo, int *hi, int *span, int n) {
    int t = threadIdx.x;
    int a, b;
    min_max(v, t, blockDim.x, n, a, b);
    int &alias = b;
    alias -= a;          // b now holds the span
    lo[t] = a;
    hi[t] = alias + a;
    span[t] = b;
}
