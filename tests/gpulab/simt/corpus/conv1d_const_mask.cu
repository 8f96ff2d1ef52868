// conv1d_const_mask.cu: 1-D convolution with a 5-tap mask, ghost cells read as zero (PMPP's basic
// 1-D convolution); the mask width is a file-scope const.
// Constructs: file-scope const int used in device code, ghost-cell bounds checks.
// corpus: {"kernel": "convolution_1d", "grid": 2, "block": 128, "args": ["N:float32[200]=ints", "M:float32[5]=ints", "P:float32[200]", 200]}

const int MASK_WIDTH = 5;

__global__ void convolution_1d(const float *N, const float *M, float *P, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= width) return;
    float value = 0.0f;
    int start = i - MASK_WIDTH / 2;
    for (int j = 0; j < MASK_WIDTH; j++) {
        if (start + j >= 0 && start + j < width) value += N[start + j] * M[j];
    }
    P[i] = value;
}
