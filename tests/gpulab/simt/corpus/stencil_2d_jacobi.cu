// stencil_2d_jacobi.cu: one Jacobi sweep of the 2-D Laplace equation: each interior point becomes
// the average of its four neighbours, boundary points are copied.
// Constructs: file-scope const float, __restrict__, 2-D launch, boundary test.
// corpus: {"kernel": "jacobi_step", "grid": [2, 2], "block": [16, 16], "args": ["u:float32[30,28]=unit", "u_new:float32[30,28]", 30, 28]}

const float QUARTER = 0.25f;

extern "C" __global__ void jacobi_step(const float *__restrict__ u, float *__restrict__ u_new, int ny, int nx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int idx = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        u_new[idx] = u[idx];
        return;
    }
    u_new[idx] = QUARTER * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx]);
}
