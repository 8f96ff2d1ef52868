// scan_blelloch_dynamic.cu: exclusive prefix sum of 512 ints by one block of 256 threads with the
// work-efficient up-sweep / down-sweep; indices are padded by one word every 32 to spread banks,
// and the padded buffer is sized at launch ((512 + 16) ints = 2112 bytes).
// Constructs: extern __shared__ (dynamic shared memory), function-like macro with arguments.
// corpus: {"kernel": "blelloch_scan", "grid": 1, "block": 256, "shared_mem": 2112, "args": ["out:int32[512]", "in:int32[512]=ints", 512]}
#define LOG_NUM_BANKS 5
#define PAD(index) ((index) >> LOG_NUM_BANKS)

__global__ void blelloch_scan(int *out, const int *in, int n) {
    extern __shared__ int buf[];
    int t = threadIdx.x;
    int left = t, right = t + n / 2;
    buf[left + PAD(left)] = in[left];
    buf[right + PAD(right)] = in[right];
    int stride = 1;
    for (int active = n >> 1; active > 0; active >>= 1) {       // up-sweep
        __syncthreads();
        if (t < active) {
            int a = stride * (2 * t + 1) - 1;
            int b = stride * (2 * t + 2) - 1;
            buf[b + PAD(b)] += buf[a + PAD(a)];
        }
        stride *= 2;
    }
    if (t == 0) buf[n - 1 + PAD(n - 1)] = 0;
    for (int active = 1; active < n; active *= 2) {             // down-sweep
        stride >>= 1;
        __syncthreads();
        if (t < active) {
            int a = stride * (2 * t + 1) - 1 ;
            int b = stride * (2 * t + 2) - 1;
            int held = buf[a + PAD(a)];
            buf[a + PAD(a)] = buf[b + PAD(b)];
            buf[b + PAD(b)] += held;
        }
    }
    __syncthreads();
    out[left] = buf[left + PAD(left)];
    out[right] = buf[right + PAD(right)];
}
