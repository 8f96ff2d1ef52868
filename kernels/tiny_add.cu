// One tiny step of work: add the constant c to every element of a small array.
// Its run on the GPU takes about as long as nothing at all; launched K times in a row, the
// cost of each launch, not the adding, sets the time: the launch-overhead lab's plain kernel.
extern "C" __global__ void tiny_add(int n, float c, float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = a[i] + c;
    }
}
