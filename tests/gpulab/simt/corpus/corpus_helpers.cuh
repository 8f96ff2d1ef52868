// corpus_helpers.cuh: a small helper header as sample code ships them (include guard, function-like
// macros, an inline device function), included by include_header_rowsum.cu from the same folder.
#ifndef CORPUS_HELPERS_CUH
#define CORPUS_HELPERS_CUH

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define IDX2R(row, col, ld) ((row) * (ld) + (col))
#define SQUARE(x) ((x) * (x))

__device__ __forceinline__ int grid_thread_id() {
    return blockIdx.x * blockDim.x + threadIdx.x;
}

#endif  // CORPUS_HELPERS_CUH
