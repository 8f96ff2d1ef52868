// matvec_rows.cu: y = A x with one thread per row (simple, uncoalesced row walks).
// Constructs: __restrict__ const pointers, __launch_bounds__, running sum in a loop.
// corpus: {"kernel": "matvec_rows", "grid": 1, "block": 128, "args": ["A:float32[100,37]=ints", "x:float32[37]=ints", "y:float32[100]", 100, 37]}

extern "C" __global__ void __launch_bounds__(128)
matvec_rows(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += A[r * cols + c] * x[c];
    y[r] = sum;
}
