// default_args_clamp.cu: brightness and contrast of 8-bit pixels stored as ints: the result is
// clamped to 0..255 by a helper whose bounds default, and offset by a helper with a default bias.
// Constructs: default arguments (trailing parameters omitted at some calls, given at others).
// corpus: {"kernel": "adjust_pixels", "grid": 2, "block": 128, "args": ["in:int32[200]=bytes", "out:int32[200]", "out_dark:int32[200]", 200, 3]}

__device__ int clampi(int v, int lo = 0, int hi = 255) {
    return v < lo ? lo : (v > hi ? hi : v);
}

__device__ int contrast(int v, int num, int bias = 16) {
    return (v - 128) * num / 2 + 128 + bias;
}

__global__ void adjust_pixels(const int *in, int *out, int *out_dark, int n, int num) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = clampi(contrast(in[i], num));
    out_dark[i] = clampi(contrast(in[i], num, -40), 10, 200);
}
