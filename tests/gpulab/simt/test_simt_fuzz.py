"""Property-based fuzzing: mutated kernels and random launches raise only documented errors."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpulab import simt

SEED_KERNELS = [
    """#define TILE 4
extern "C" __global__ void k(const float* a, float* out, int n) {
    __shared__ float s[TILE * 8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    s[t % (TILE * 8)] = (i < n) ? a[i] : 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < TILE; j++) {
        if (j == t % 3) continue;
        acc += s[(t + j) % (TILE * 8)] * 2.0f;
    }
    while (acc > 100.0f) acc = acc / 2.0f;
    if (i < n) out[i] = acc + __shfl_down_sync(0xffffffff, acc, 1);
}
""",
    """__device__ int f(int x) { if (x < 0) return -x; return x % 7; }
extern "C" __global__ void k(const float* a, float* out, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (int)i - 5;
    do { v = f(v) + 1; } while (v < 3);
    if (i < n) { atomicAdd(&out[i % 4], a[i] * v); }
    int b = __popc(__ballot_sync(0xffffffff, v & 1));
    if (b > 40 || i >= n) return;
    out[i] = max(out[i], (float)b);
}
""",
    """#define W 8
__device__ float pick(const float* p, int k, int n) { return (k >= 0 && k < n) ? p[k] : -1.0f; }
extern "C" __global__ void k(const float* a, float* out, int n) {
    __shared__ float tile[W][W + 1];
    __shared__ int hits;
    int t = threadIdx.x + threadIdx.y * blockDim.x;
    float local[3] = {1.0f, 2.0f};
    if (t == 0) hits = 0;
    __syncthreads();
    tile[t % W][t / W % W] = pick(a, t * 2, n);
    atomicAdd(&hits, (t & 1) ? 1 : 0);
    __syncthreads();
    int j = 0;
    do {
        j++;
        if (j % 3 == 1) continue;
        local[j % 3] += tile[j % W][t % W] * 0.5f;
    } while (j < W);
    float s = __shfl_xor_sync(0xffffffff, local[1], 4, 16) + (float)__clz(t + 1);
    if (t < n) out[t] = s + (float)hits / 2.0f;
}
""",
]

class DrawnChoices:
    """``gpulab bench fuzz``'s mutations, with every random choice drawn by hypothesis (so a
    failure shrinks to a small edit)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def pick(self, options):
        return self.data.draw(st.sampled_from(list(options)))

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))


def _mutate(source: str, data: st.DataObject) -> str:
    from gpulab.bench import fuzz

    return fuzz.mutate(source, DrawnChoices(data))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_kernels_raise_only_documented_exceptions(data):
    source = _mutate(data.draw(st.sampled_from(SEED_KERNELS)), data)
    grid = data.draw(st.tuples(st.integers(1, 3), st.integers(1, 2)))
    block = data.draw(st.tuples(st.integers(1, 70), st.integers(1, 2)))
    n = data.draw(st.integers(-5, 300))
    a = np.arange(300, dtype=np.float32)
    out = np.zeros(300, dtype=np.float32)
    try:
        simt.launch(source, "k", grid, block, [a, out, n], max_steps=20_000,
                    max_loop_iterations=2_000)
    except simt.SimtError as exc:
        assert str(exc) and "internal error" not in str(exc)


@settings(max_examples=40, deadline=None)
@given(grid=st.integers(1, 4), block=st.tuples(st.integers(1, 40), st.integers(1, 3)),
       n=st.integers(0, 500))
def test_valid_kernel_on_random_launch_shapes_matches_numpy(grid, block, n):
    src = """extern "C" __global__ void k(const int* a, int* out, int n) {
        int t = threadIdx.x + threadIdx.y * blockDim.x;
        int i = blockIdx.x * blockDim.x * blockDim.y + t;
        if (i < n) out[i] = a[i] * 3 - (a[i] >> 1);
    }"""
    a = np.arange(-250, 250, dtype=np.int32)
    out = np.zeros(500, dtype=np.int32)
    simt.launch(src, "k", grid, block, [a, out, n])
    covered = min(n, grid * block[0] * block[1])
    assert np.array_equal(out[:covered], a[:covered] * 3 - (a[:covered] >> 1))
    assert not out[covered:].any()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(index=st.integers(0, 2**31))
def test_mutated_catalogue_kernels_raise_only_documented_exceptions(index):
    """Seeds from kernels/*.cu and the labs' kernels, mutated as ``gpulab bench fuzz`` does
    (tokens, lines, values, ``continue``/``break``, random characters), under realistic budgets."""
    from gpulab.bench import fuzz

    _index, outcome, detail, _seconds = fuzz.run_one((11, index, 60.0))
    assert outcome not in fuzz.BUG_OUTCOMES, f"mutant {index} of seed 11: {outcome}: {detail}"


def test_the_catalogue_seeds_include_every_emulated_kernel_file():
    from pathlib import Path

    from gpulab.bench import fuzz

    files = {Path(spec.file).name for spec, _preset in fuzz.seeds()}
    root = Path(__file__).resolve().parents[3]
    assert {p.name for p in (root / "kernels").glob("*.cu")} <= files


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_corpus_kernels_raise_only_documented_exceptions(data):
    """The corpus kernels (tests/gpulab/simt/corpus: dynamic shared memory, templates, cooperative
    groups, C++ basics ...) mutated as ``gpulab bench fuzz`` does: a mutant compiles with a
    CompileError, faults with a KernelFault or runs, never an internal error, another exception or a hang."""
    from gpulab.bench import fuzz

    spec, preset = data.draw(st.sampled_from(fuzz.corpus_seeds()))
    source = _mutate(spec.source, data)
    outcome, detail, _seconds = fuzz.run_source(spec, preset, source, 60.0)
    assert outcome not in fuzz.BUG_OUTCOMES, f"{spec.file}: {outcome}: {detail}\n{source}"


def test_unmutated_corpus_seeds_run_or_fail_only_in_documented_ways():
    from gpulab.bench import fuzz

    for spec, preset in fuzz.corpus_seeds():
        outcome, detail, _seconds = fuzz.run_source(spec, preset, spec.source, 60.0)
        assert outcome not in fuzz.BUG_OUTCOMES, f"{spec.file}: {outcome}: {detail}"


def test_the_fuzz_seeds_include_the_corpus_kernels_the_launch_can_take():
    import inspect

    from gpulab.bench import corpus, fuzz

    files = {spec.file for spec, _preset in fuzz.seeds()}
    takes_shared_mem = "shared_mem" in inspect.signature(simt.launch).parameters
    wanted = {k.file for k in corpus.load() if takes_shared_mem or not k.shared_mem}
    assert len(wanted) >= 40 and wanted <= files
