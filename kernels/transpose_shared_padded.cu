// Matrix transpose through a shared-memory tile padded to 32 x 33. The extra column
// shifts each row by one bank, so a tile column spreads over all 32 banks and the
// column read is conflict-free (one wavefront), for the price of 32 unused floats.
#define TILE 32

extern "C" __global__ void transpose_shared_padded(const float* __restrict__ in,
                                                   float* __restrict__ out,
                                                   int n)
{
    __shared__ float tile[TILE][TILE + 1];
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
