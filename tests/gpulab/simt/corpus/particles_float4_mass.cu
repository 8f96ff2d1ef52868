// particles_float4_mass.cu: momentum and kinetic energy of particles stored as float4 (x, y, z
// velocity and mass in w), read with one 16-byte load each; energy sums are whole numbers here.
// Constructs: float4 through reinterpret_cast, .w member, make_float4, float4 store.
// corpus: {"kernel": "momentum", "grid": 2, "block": 64, "args": ["vel_mass:float32[400]=ints", "momentum:float32[400]", "energy2:float32[100]", 100]}

__global__ void momentum(const float *vel_mass, float *momentum, float *energy2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 vm = reinterpret_cast<const float4 *>(vel_mass)[i];
    float m = vm.w;
    reinterpret_cast<float4 *>(momentum)[i] = make_float4(m * vm.x, m * vm.y, m * vm.z, m);
    energy2[i] = m * (vm.x * vm.x + vm.y * vm.y + vm.z * vm.z);
}
