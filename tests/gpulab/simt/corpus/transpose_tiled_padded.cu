// transpose_tiled_padded.cu: coalesced transpose through a 32x33 shared tile (the extra column
// avoids bank conflicts); a 32x8 block copies a 32x32 tile in four rows per thread.
// Constructs: 2-D __shared__ array with padding, #pragma unroll, non-square matrix.
// corpus: {"kernel": "transpose_coalesced", "grid": [3, 2], "block": [32, 8], "args": ["odata:float32[96,64]", "idata:float32[64,96]=rand", 96, 64]}
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_coalesced(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}
