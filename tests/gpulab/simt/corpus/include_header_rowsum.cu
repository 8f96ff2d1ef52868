// include_header_rowsum.cu: row sums and sums of squares of an int matrix, using the macros and the
// helper of a header next to this file (included twice: the include guard keeps that harmless).
// Constructs: #include "file" from the kernel's folder, include guard, function-like macros.
// corpus: {"kernel": "row_sums", "grid": 2, "block": 32, "args": ["m:int32[50,12]=ints", "sums:int32[50]", "squares:int32[50]", 50, 12]}
#include "corpus_helpers.cuh"
#include "corpus_helpers.cuh"

__global__ void row_sums(const int *m, int *sums, int *squares, int rows, int cols) {
    int r = grid_thread_id();
    if (r >= rows) return;
    int s = 0, q = 0;
    for (int c = 0; c < cols; ++c) {
        s += m[IDX2R(r, c, cols)];
        q += SQUARE(m[IDX2R(r, c, cols)]);
    }
    sums[r] = s;
    squares[r] = q;
    if (r == 0 && CEIL_DIV(rows, blockDim.x) != gridDim.x) sums[0] = -1;   // launched too small
}
