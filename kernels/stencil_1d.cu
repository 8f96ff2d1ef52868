// A 1-D stencil: out[i] is a weighted sum of in[i - RADIUS .. i + RADIUS].
// The host launches it with in = d_in + RADIUS, a pointer RADIUS elements into an array of
// n + 2*RADIUS: out[0]'s window reaches back to in[-RADIUS], which is still inside the
// allocation (the halo). Launched with d_in itself, thread 0 would read before the array.
// The weights are __constant__ data: every lane of a warp reads the same one at once, and
// the host may set them with cudaMemcpyToSymbol. sum += w * x is one fused multiply-add
// under nvcc's default -fmad=true, a multiply then an add (rounded twice) under -fmad=false.
#define RADIUS 2

__constant__ float weights[2 * RADIUS + 1] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};

extern "C" __global__ void stencil_1d(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            sum += weights[k + RADIUS] * in[i + k];
        }
        out[i] = sum;
    }
}
