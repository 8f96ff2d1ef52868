// static_cast_quantize.cu: quantises floats in [0, 1) to 8-bit codes (round half up, clamped) and
// back, with every conversion spelled static_cast.
// Constructs: static_cast<unsigned char>, static_cast<float>, static_cast<int>, unsigned char output.
// corpus: {"kernel": "quantize_u8", "grid": 2, "block": 128, "args": ["x:float32[250]=unit", "codes:uint8[250]", "restored:float32[250]", 250]}

__global__ void quantize_u8(const float *x, unsigned char *codes, float *restored, int n) {
    int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    float scaled = x[i] * 255.0f + 0.5f;
    int q = static_cast<int>(scaled);
    q = q > 255 ? 255 : q;
    unsigned char code = static_cast<unsigned char>(q);
    codes[i] = code;
    restored[i] = static_cast<float>(code) / 255.0f;
}
