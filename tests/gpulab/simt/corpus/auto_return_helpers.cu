// auto_return_helpers.cu: blend two float images row by row with a weight map, the helpers written
// with deduced return types (a lerp, a clamp template used for float and int, an index helper with a
// trailing return type, a bool test); one flag per pixel from the int instance of the clamp.
// Constructs: auto return types (float, bool, int via a template instance), auto template, trailing
// return type (auto f(...) -> int), auto locals, 2-D launch.
// corpus: {"kernel": "blend_rows", "grid": [4, 3], "block": 32, "args": ["a:float32[300]=rand", "b:float32[300]=rand", "w:float32[300]=unit", "out:float32[300]", "flags:int32[300]", 100, 3]}

__device__ auto lerp(float a, float b, float t) { return a + t * (b - a); }

template <typename T>
__device__ auto clamp01(T v) {
    if (v < (T)0) return (T)0;
    if (v > (T)1) return (T)1;
    return v;
}

__device__ auto index2d(int row, int col, int width) -> int { return row * width + col; }

__device__ auto is_inside(int col, int width) { return col >= 0 && col < width; }

extern "C" __global__ void blend_rows(const float *a, const float *b, const float *w, float *out,
                                      int *flags, int width, int height) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (!is_inside(col, width) || row >= height) return;
    auto i = index2d(row, col, width);
    auto t = clamp01(w[i] * 2.0f - 0.5f);
    out[i] = lerp(a[i], b[i], t);
    flags[i] = clamp01(i % 3 - 1);
}
