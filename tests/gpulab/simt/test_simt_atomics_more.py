"""atomicInc/atomicDec wrap exactly as CUDA says, clock()/clock64() count warp-steps, and each
atomic takes exactly CUDA's overloads."""

import numpy as np
import pytest

from gpulab import simt
from tests.gpulab.simt.nvrtc_check import compiles, rejects


def nvrtc_compiles(source: str) -> None:
    compiles(source, "atomics.cu")


nvrtc_rejects = rejects


WRAP = """
extern "C" __global__ void k(unsigned int* counters, unsigned int* old, const unsigned int* limit,
                             const int* slot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) old[i] = OP(&counters[slot[i]], limit[i]);
}
"""


def serial(op: str, counters: np.ndarray, limit: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """CUDA's definition, one thread after another in increasing thread id."""
    old = np.zeros(len(slot), dtype=np.uint32)
    for i in range(len(slot)):
        x, val = int(counters[slot[i]]), int(limit[i])
        old[i] = x
        if op == "atomicInc":
            counters[slot[i]] = 0 if x >= val else x + 1
        else:
            counters[slot[i]] = val if x == 0 or x > val else x - 1
    return old


def run_wrap(op: str, start, limit, slot, block: int = 128):
    n = len(slot)
    counters = np.array(start, dtype=np.uint32)
    expected_counters = counters.copy()
    expected_old = serial(op, expected_counters, np.asarray(limit, np.uint32), np.asarray(slot))
    old = np.zeros(n, dtype=np.uint32)
    source = WRAP.replace("OP", op)
    simt.launch(source, "k", (n + block - 1) // block, block,
                [counters, old, np.asarray(limit, np.uint32), np.asarray(slot, np.int32), n])
    assert old.tolist() == expected_old.tolist()
    assert counters.tolist() == expected_counters.tolist()
    nvrtc_compiles(source)


@pytest.mark.parametrize("op", ["atomicInc", "atomicDec"])
@pytest.mark.parametrize("start", [0, 5, 36, 37, 38, 4294967295])
def test_many_lanes_on_one_address_wrap_round_the_ring_in_lane_order(op, start):
    n = 1000  # eight blocks of 128: the counter goes round 0..37 many times
    run_wrap(op, [start], [37] * n, [0] * n)


@pytest.mark.parametrize("op", ["atomicInc", "atomicDec"])
def test_limits_zero_and_uint_max_are_the_edges_of_the_ring(op):
    for limit in (0, 4294967295):
        for start in (0, 1, 4294967294, 4294967295):
            run_wrap(op, [start], [limit] * 70, [0] * 70, block=64)


@pytest.mark.parametrize("op", ["atomicInc", "atomicDec"])
def test_lanes_with_different_limits_and_addresses_serialise_per_address(op):
    rng = np.random.default_rng(7)
    n = 600
    run_wrap(op, rng.integers(0, 12, 5), rng.integers(0, 9, n), rng.integers(0, 5, n))
    run_wrap(op, rng.integers(0, 12, n), rng.integers(0, 9, n), np.arange(n))  # one lane an address


def test_atomic_inc_counts_as_atomic_traffic():
    source = WRAP.replace("OP", "atomicInc")
    r = simt.launch(source, "k", 1, 32, [np.zeros(1, np.uint32), np.zeros(32, np.uint32),
                                         np.full(32, 100, np.uint32), np.zeros(32, np.int32), 32])
    assert r.metrics["atomic_requests"] == 1


@pytest.mark.parametrize("ctype, call", [("int", "atomicInc(p, 1)"), ("int", "atomicDec(p, 1)"),
                                         ("unsigned long long", "atomicInc(p, 1)")])
def test_atomic_inc_and_dec_take_unsigned_int_only(ctype, call):
    source = f'extern "C" __global__ void k({ctype}* p) {{ {call}; }}'
    with pytest.raises(simt.CompileError, match="takes an unsigned int\\*") as info:
        simt.launch(source, "k", 1, 1, [np.zeros(1, np.int32 if ctype == "int" else np.uint64)])
    assert info.value.line == 1
    nvrtc_rejects(source)


# ------------------------------------------------------------------ clocks
CLOCKS = """
extern "C" __global__ void k(long long* t) {
    int i = threadIdx.x;
    clock_t c0 = clock();
    long long start = clock64();
    float x = 0.0f;
    for (int j = 0; j < 10; j++) x += j;
    __nanosleep(100);
    long long stop = clock64();
    t[3 * i] = start;
    t[3 * i + 1] = stop;
    t[3 * i + 2] = (long long)c0 + (x > 100.0f);
}
"""


def test_clock64_counts_warp_steps_monotonically_and_differences_are_steps():
    t = np.zeros(3 * 64, dtype=np.int64)
    r = simt.launch(CLOCKS, "k", 1, 64, [t])
    start, stop, c0 = t[0::3], t[1::3], t[2::3]
    assert (c0 <= start).all() and (start < stop).all()
    assert len(set(start.tolist())) == 1  # all lanes of one call read the same counter
    assert stop[0] <= r.steps
    single = np.zeros(3 * 32, dtype=np.int64)
    simt.launch(CLOCKS, "k", 1, 32, [single])
    # two warps run in lock step: twice the warp-steps between the same two calls
    assert stop[0] - start[0] == 2 * (single[1] - single[0])
    nvrtc_compiles(CLOCKS)


# ------------------------------------------------------------------ CUDA's overload set
ACCEPTED = [
    ("atomicCAS", "unsigned long long"), ("atomicExch", "float"), ("atomicAdd", "double"),
    ("atomicAdd", "unsigned long long"), ("atomicMax", "long long"), ("atomicAnd", "long long"),
    ("atomicSub", "unsigned int"), ("atomicExch", "unsigned long long"),
]
REJECTED = [
    ("atomicAdd", "long long"), ("atomicSub", "float"), ("atomicSub", "unsigned long long"),
    ("atomicExch", "double"), ("atomicExch", "long long"), ("atomicMin", "float"), ("atomicMax", "double"),
    ("atomicCAS", "long long"), ("atomicCAS", "float"), ("atomicAnd", "float"),
]


def overload_source(name: str, ctype: str) -> str:
    args = "p, v, v" if name == "atomicCAS" else "p, v"
    return f'extern "C" __global__ void k({ctype}* p, {ctype} v) {{ {name}({args}); }}'


@pytest.mark.parametrize("name, ctype", ACCEPTED)
def test_cuda_atomic_overloads_are_accepted(name, ctype):
    dtype = {"float": np.float32, "double": np.float64, "unsigned int": np.uint32,
             "long long": np.int64, "unsigned long long": np.uint64}[ctype]
    p = np.array([5], dtype=dtype)
    simt.launch(overload_source(name, ctype), "k", 1, 4, [p, dtype(2)])
    nvrtc_compiles(overload_source(name, ctype))


def test_atomic_cas_on_64_bits_swaps_once_and_returns_the_old_value():
    source = """extern "C" __global__ void k(unsigned long long* p, unsigned long long* old) {
    old[threadIdx.x] = atomicCAS(p, 1ULL << 40, (1ULL << 41) + threadIdx.x);
}"""
    p, old = np.array([1 << 40], dtype=np.uint64), np.zeros(4, dtype=np.uint64)
    simt.launch(source, "k", 1, 4, [p, old])
    assert old.tolist() == [1 << 40] + [1 << 41] * 3 and p[0] == 1 << 41
    nvrtc_compiles(source)


@pytest.mark.parametrize("name, ctype", REJECTED)
def test_atomic_overloads_cuda_lacks_are_rejected_by_name(name, ctype):
    source = overload_source(name, ctype)
    with pytest.raises(simt.CompileError, match=f"{name} on {ctype} is not supported: CUDA's {name} takes"):
        simt.launch(source, "k", 1, 1, [np.zeros(1), 0])
    nvrtc_rejects(source)
