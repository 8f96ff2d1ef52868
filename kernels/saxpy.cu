// SAXPY: y = a*x + y, the single-precision "a x plus y" of BLAS level 1.
// Each element costs 2 FLOP and moves 12 bytes (x and y read, y written), so on every GPU
// the memory system, not the arithmetic, sets the time: the triad of the memory labs.
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
