// transpose_constexpr_tile.cu: tiled transpose of an int matrix with the tile size a constexpr
// and the index arithmetic done with static_cast to int.
// Constructs: file-scope constexpr int in a shared array size, static_cast<int>, 2-D tile.
// corpus: {"kernel": "transpose_tile16", "grid": [2, 3], "block": [16, 16], "args": ["out:int32[20,40]", "in:int32[40,20]=naturals", 40, 20]}

constexpr int TILE = 16;

__global__ void transpose_tile16(int *out, const int *in, int rows, int cols) {
    __shared__ int tile[TILE][TILE + 1];
    int tx = static_cast<int>(threadIdx.x);
    int ty = static_cast<int>(threadIdx.y);
    int col = static_cast<int>(blockIdx.x) * TILE + tx;
    int row = static_cast<int>(blockIdx.y) * TILE + ty;
    if (row < rows && col < cols) tile[ty][tx] = in[row * cols + col];
    __syncthreads();
    int out_col = static_cast<int>(blockIdx.y) * TILE + tx;   // a row index of the input
    int out_row = static_cast<int>(blockIdx.x) * TILE + ty;   // a column index of the input
    if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[tx][ty];
}
