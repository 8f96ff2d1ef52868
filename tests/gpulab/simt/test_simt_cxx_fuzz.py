"""Fuzzing the C++ lowering: mutated C++ kernels raise only documented errors."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpulab import simt

CXX_SEEDS = [
    """namespace ops {
    __device__ float twice(float x, float by = 2.0f) { return x * by; }
    __device__ void add(float& total, const float& v) { total += v; }
}
namespace o = ops;
extern "C" __global__ void k(const float* a, float* out, int n) {
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc{0.0f};
    int steps{};
    if (i < n) {
        float& slot = out[i];
        for (auto j = 0u; j < 3u; ++j) { o::add(acc, ops::twice(a[i] + j)); steps++; }
        slot = acc + static_cast<float>(steps) + float(int(a[i] / 3));
    }
}
""",
    """using namespace std;
__device__ void swap(int& x, int& y) { int t = x; x = y; y = t; }
__device__ int clampi(int v, int lo = 0, int hi = 9) { return ::min(::max(v, lo), hi); }
extern "C" __global__ void k(const float* a, float* out, int n) {
    int t = threadIdx.x;
    int p{t}, q = static_cast<int>(a[t % 300]);
    if (t & 1) swap(p, q);
    const auto* base = reinterpret_cast<const unsigned*>(a);
    unsigned bits = base[t % 300];
    float w[4]{};
    w[t % 4] = clampi(p - q) + (bits & 1u);
    if (t < n) out[t] = w[0] + w[1] + w[2] + w[3] + int{3};
}
""",
]


class DrawnChoices:
    """``gpulab bench fuzz``'s mutations with the random choices drawn by hypothesis."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def pick(self, options):
        return self.data.draw(st.sampled_from(list(options)))

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_cxx_kernels_raise_only_documented_exceptions(data):
    from gpulab.bench import fuzz

    source = fuzz.mutate(data.draw(st.sampled_from(CXX_SEEDS)), DrawnChoices(data))
    block = data.draw(st.integers(1, 70))
    n = data.draw(st.integers(-5, 300))
    a = np.arange(300, dtype=np.float32)
    out = np.zeros(300, dtype=np.float32)
    try:
        simt.launch(source, "k", 1, block, [a, out, n], max_steps=20_000, max_loop_iterations=2_000)
    except simt.SimtError as exc:
        assert str(exc) and "internal error" not in str(exc)


def test_the_cxx_seeds_run_unmutated():
    for seed in CXX_SEEDS:
        out = np.zeros(300, dtype=np.float32)
        simt.launch(seed, "k", 1, 64, [np.arange(300, dtype=np.float32), out, 50])
        assert out[:50].any()
