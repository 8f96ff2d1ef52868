// conv2d_constexpr_mask.cu: 2-D convolution of an int image with a 3x3 mask, zero padding at the
// borders; the mask size and its offset are constexpr.
// Constructs: constexpr int and a constexpr computed from another, nested loops, 2-D launch.
// corpus: {"kernel": "convolution_2d", "grid": [2, 2], "block": [16, 16], "args": ["image:int32[20,24]=ints", "mask:int32[3,3]=ints", "result:int32[20,24]", 20, 24]}

constexpr int MASK_DIM = 3;
constexpr int MASK_OFFSET = MASK_DIM / 2;

__global__ void convolution_2d(const int *image, const int *mask, int *result, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols) return;
    int temp = 0;
    for (int i = 0; i < MASK_DIM; i++) {
        for (int j = 0; j < MASK_DIM; j++) {
            int r = row - MASK_OFFSET + i;
            int c = col - MASK_OFFSET + j;
            if (r >= 0 && r < rows && c >= 0 && c < cols) temp += image[r * cols + c] * mask[i * MASK_DIM + j];
        }
    }
    result[row * cols + col] = temp;
}
