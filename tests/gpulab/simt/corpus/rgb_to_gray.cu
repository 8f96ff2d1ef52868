// rgb_to_gray.cu: colour-to-greyscale conversion of an interleaved RGB image (PMPP chapter 3), one
// thread per pixel on a 2-D grid, luminance weights 0.21 / 0.71 / 0.07.
// Constructs: file-scope const int CHANNELS, unsigned char in and out, float-to-uchar conversion.
// corpus: {"kernel": "color_to_gray", "grid": [2, 2], "block": [16, 16], "args": ["gray:uint8[20,30]", "rgb:uint8[20,30,3]=bytes", 30, 20]}

const int CHANNELS = 3;

__global__ void color_to_gray(unsigned char *gray, const unsigned char *rgb, int width, int height) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int offset = row * width + col;
        int rgb_offset = offset * CHANNELS;
        unsigned char r = rgb[rgb_offset];
        unsigned char g = rgb[rgb_offset + 1];
        unsigned char b = rgb[rgb_offset + 2];
        gray[offset] = 0.21f * r + 0.71f * g + 0.07f * b;
    }
}
