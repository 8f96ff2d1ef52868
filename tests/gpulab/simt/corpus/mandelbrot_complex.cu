// mandelbrot_complex.cu: escape-time iteration counts of a Mandelbrot image, with a complex-number
// struct that has a constructor, operators and a magnitude member ("CUDA by Example"'s Julia set
// style); one thread per pixel on a 2-D grid.
// Constructs: struct with constructor and member-initialiser list, operator* and operator+,
// member function, 2-D launch, float loop with early exit.
// corpus: {"kernel": "mandelbrot", "grid": [2, 2], "block": [16, 12], "args": ["iters:int32[24,32]", 32, 24, 64]}

struct cuComplexF {
    float r;
    float i;
    __device__ cuComplexF(float a, float b) : r(a), i(b) {}
    __device__ float magnitude2() const { return r * r + i * i; }
    __device__ cuComplexF operator*(const cuComplexF &a) const {
        return cuComplexF(r * a.r - i * a.i, i * a.r + r * a.i);
    }
    __device__ cuComplexF operator+(const cuComplexF &a) const {
        return cuComplexF(r + a.r, i + a.i);
    }
};

__device__ int escape_time(float cx, float cy, int max_iter) {
    cuComplexF c(cx, cy);
    cuComplexF z(0.0f, 0.0f);
    for (int k = 0; k < max_iter; k++) {
        z = z * z + c;
        if (z.magnitude2() > 4.0f) return k;
    }
    return max_iter;
}

__global__ void mandelbrot(int *iters, int width, int height, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float cx = -2.0f + 3.0f * x / width;
    float cy = -1.25f + 2.5f * y / height;
    iters[y * width + x] = escape_time(cx, cy, max_iter);
}
