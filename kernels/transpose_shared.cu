// Matrix transpose through a 32 x 32 shared-memory tile, WITHOUT padding.
// Global reads and writes are both coalesced, but reading a tile column (tile[tx][ty])
// puts all 32 lanes of a warp on the same shared-memory bank: a 32-way bank conflict,
// so the read takes 32 wavefronts. Compare transpose_shared_padded.cu.
#define TILE 32

extern "C" __global__ void transpose_shared(const float* __restrict__ in,
                                            float* __restrict__ out,
                                            int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) {
        tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n) {
        out[y * n + x] = tile[threadIdx.x][threadIdx.y];
    }
}
