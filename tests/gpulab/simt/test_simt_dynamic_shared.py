"""Dynamic shared memory: ``extern __shared__`` arrays sized by the launch's ``shared_mem`` bytes."""

import argparse

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt import cli
from gpulab.simt.errors import CompileError, KernelFault, SimtError

REVERSE = """extern "C" __global__ void dynamic_reverse(float* d, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x;
    int tr = n - t - 1;
    s[t] = d[t];
    __syncthreads();
    d[t] = s[tr];
}
"""

# Several arrays carved out of one byte buffer, the usual pattern of CUDA samples.
CARVED = """extern "C" __global__ void carve(const float* x, const int* k, float* out, int n) {
    extern __shared__ unsigned char smem[];
    float* a = (float*)smem;
    int* b = (int*)&a[n];
    double* c = (double*)&b[n];
    int t = threadIdx.x;
    a[t] = x[t];
    b[t] = k[t];
    c[t] = (double)x[t] * k[t];
    __syncthreads();
    int u = (t + 1) % n;
    out[t] = a[u] * b[u] + (float)c[u];
}
"""

# Two extern __shared__ declarations alias one buffer start, as in CUDA.
ALIASED = """extern "C" __global__ void alias(const float* x, int* bits) {
    extern __shared__ float as_float[];
    extern __shared__ int as_int[];
    as_float[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    bits[threadIdx.x] = as_int[threadIdx.x];
}
"""

# At file scope, seen from a device function.
FILE_SCOPE = """extern __shared__ int buffer[];

__device__ int neighbour_sum(int t, int n) {
    return buffer[t] + buffer[(t + 1) % n];
}

extern "C" __global__ void sums(const int* x, int* out) {
    buffer[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = neighbour_sum(threadIdx.x, blockDim.x);
}
"""

STRIDED_DYNAMIC = """extern "C" __global__ void strided(float* out) {
    extern __shared__ float s[];
    s[threadIdx.x * 2] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x * 2];
}
"""
STRIDED_STATIC = STRIDED_DYNAMIC.replace("extern __shared__ float s[];", "__shared__ float s[64];")

STATIC_AND_DYNAMIC = """extern "C" __global__ void both(float* out) {
    __shared__ float fixed[256];
    extern __shared__ float dyn[];
    fixed[threadIdx.x] = 1.0f;
    dyn[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = fixed[threadIdx.x] + dyn[threadIdx.x];
}
"""

UNTOUCHED = """extern "C" __global__ void untouched(int* out, int use) {
    extern __shared__ int s[];
    if (use) s[threadIdx.x] = 1;
    out[threadIdx.x] = threadIdx.x;
}
"""


def test_dynamic_reverse_reverses_an_array_through_launch_sized_shared_memory():
    d = np.arange(64, dtype=np.float32) * 1.5
    expected = d[::-1].copy()
    simt.launch(REVERSE, "dynamic_reverse", 1, 64, [d, 64], shared_mem=64 * 4)
    np.testing.assert_array_equal(d, expected)


def test_arrays_carved_from_one_byte_buffer_by_pointer_casts_keep_their_values():
    n = 32
    rng = np.random.default_rng(1)
    x = rng.random(n).astype(np.float32)
    k = rng.integers(-5, 5, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    simt.launch(CARVED, "carve", 1, n, [x, k, out, n], shared_mem=n * (4 + 4 + 8))
    u = (np.arange(n) + 1) % n
    expected = (x[u] * k[u].astype(np.float32)) + (x[u].astype(np.float64) * k[u]).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


ALIGNED = """extern "C" __global__ void aligned(const double* x, double* out) {
    extern __shared__ __align__(16) unsigned char raw[];
    double* d = (double*)raw;
    d[threadIdx.x] = x[threadIdx.x] * 2.0;
    __syncthreads();
    out[threadIdx.x] = d[blockDim.x - 1 - threadIdx.x];
}
"""


def test_an_aligned_byte_buffer_viewed_as_doubles():
    x = np.linspace(-1, 1, 32)
    out = np.zeros(32)
    simt.launch(ALIGNED, "aligned", 1, 32, [x, out], shared_mem=32 * 8)
    np.testing.assert_array_equal(out, (x * 2.0)[::-1])


def test_two_extern_shared_declarations_alias_the_same_bytes():
    x = np.array([1.0, -2.5, np.inf, 0.1] * 8, dtype=np.float32)
    bits = np.zeros(32, np.int32)
    simt.launch(ALIASED, "alias", 1, 32, [x, bits], shared_mem=128)
    np.testing.assert_array_equal(bits, x.view(np.int32))


def test_file_scope_extern_shared_is_seen_by_kernel_and_device_function():
    x = np.arange(48, dtype=np.int32) * 3
    out = np.zeros(48, np.int32)
    simt.launch(FILE_SCOPE, "sums", 1, 48, [x, out], shared_mem=48 * 4)
    np.testing.assert_array_equal(out, x + np.roll(x, -1))


def test_each_block_has_its_own_dynamic_buffer():
    d = np.arange(4 * 64, dtype=np.float32)
    src = REVERSE.replace("d[t]", "d[blockIdx.x * n + t]")
    simt.launch(src, "dynamic_reverse", 4, 64, [d, 64], shared_mem=256)
    np.testing.assert_array_equal(d, np.arange(4 * 64, dtype=np.float32).reshape(4, 64)[:, ::-1].ravel())


def test_bank_conflicts_in_dynamic_shared_memory_match_a_static_array():
    metrics = []
    for src, shared in ((STRIDED_DYNAMIC, 256), (STRIDED_STATIC, 0)):
        out = np.zeros(32, np.float32)
        r = simt.launch(src, "strided", 1, 32, [out], shared_mem=shared)
        np.testing.assert_array_equal(out, np.arange(32, dtype=np.float32))
        metrics.append({k: v for k, v in r.metrics.items() if k.startswith("shared")})
    assert metrics[0] == metrics[1]
    assert metrics[0]["shared_store_transactions_per_request"] == 2.0


def test_static_and_dynamic_shared_memory_are_separate():
    out = np.zeros(256, np.float32)
    simt.launch(STATIC_AND_DYNAMIC, "both", 1, 256, [out], shared_mem=1024)
    np.testing.assert_array_equal(out, np.full(256, 3.0, np.float32))


def test_static_plus_dynamic_exactly_at_48_kib_is_allowed():
    out = np.zeros(256, np.float32)
    simt.launch(STATIC_AND_DYNAMIC, "both", 1, 256, [out], shared_mem=48 * 1024 - 1024)
    assert out[0] == 3.0


def test_static_plus_dynamic_over_48_kib_is_refused_naming_both_figures():
    out = np.zeros(256, np.float32)
    with pytest.raises(SimtError) as info:
        simt.launch(STATIC_AND_DYNAMIC, "both", 1, 256, [out], shared_mem=48 * 1024 - 1023)
    text = str(info.value)
    assert "1024 bytes of static" in text and "48129 bytes of dynamic" in text and "49152" in text
    assert info.value.details["static_bytes"] == 1024


def test_dynamic_shared_memory_bigger_than_the_limit_alone_is_refused():
    d = np.zeros(64, np.float32)
    with pytest.raises(SimtError, match=r"0 bytes of static .* 65536 bytes of dynamic"):
        simt.launch(REVERSE, "dynamic_reverse", 1, 64, [d, 64], shared_mem=64 * 1024)


def test_an_access_past_the_dynamic_size_faults_naming_the_buffer():
    d = np.arange(64, dtype=np.float32)
    with pytest.raises(KernelFault) as info:
        simt.launch(REVERSE, "dynamic_reverse", 1, 64, [d, 64], shared_mem=63 * 4)
    fault = info.value
    assert fault.kind == "memory" and fault.buffer == "s" and fault.line == 5
    assert "'s'" in str(fault) and "252-byte buffer" in str(fault) and "shared_mem=252" in str(fault)


def test_a_size_that_is_not_a_whole_number_of_elements_still_faults_at_the_last_byte():
    d = np.arange(64, dtype=np.float32)
    with pytest.raises(KernelFault, match="straddles the end"):
        simt.launch(REVERSE, "dynamic_reverse", 1, 64, [d, 64], shared_mem=64 * 4 - 2)


def test_touching_extern_shared_launched_with_shared_mem_zero_faults_clearly():
    d = np.arange(64, dtype=np.float32)
    with pytest.raises(KernelFault) as info:
        simt.launch(REVERSE, "dynamic_reverse", 1, 64, [d, 64])
    assert "shared_mem=0" in str(info.value) and info.value.buffer == "s"


def test_extern_shared_not_touched_needs_no_bytes():
    out = np.zeros(32, np.int32)
    simt.launch(UNTOUCHED, "untouched", 1, 32, [out, 0])
    np.testing.assert_array_equal(out, np.arange(32))


def test_misaligned_view_of_the_dynamic_buffer_faults():
    src = """extern "C" __global__ void k(double* out) {
    extern __shared__ unsigned char raw[];
    double* d = (double*)&raw[4];
    d[0] = 1.0;
    out[0] = d[0];
}
"""
    with pytest.raises(KernelFault, match="misaligned 8-byte store"):
        simt.launch(src, "k", 1, 1, [np.zeros(1)], shared_mem=64)


@pytest.mark.parametrize("bad", [-1, 1.5, "64", True])
def test_shared_mem_must_be_a_whole_number_of_bytes(bad):
    with pytest.raises(SimtError, match="shared_mem"):
        simt.launch(REVERSE, "dynamic_reverse", 1, 64, [np.zeros(64, np.float32), 64], shared_mem=bad)


def test_the_trace_names_the_dynamic_buffer():
    d = np.arange(32, dtype=np.float32)
    r = simt.launch(REVERSE, "dynamic_reverse", 1, 32, [d, 32], trace=True, shared_mem=128)
    shared = [s for s in r.trace[0] if s.space == "shared"]
    assert {s.buffer for s in shared} == {"s"} and {s.kind for s in shared} == {"load", "store"}


@pytest.mark.parametrize("source, construct", [
    ('extern "C" __global__ void k(float* o) { extern __shared__ float s[8]; o[0] = s[0]; }', "extern __shared__"),
    ('extern "C" __global__ void k(float* o) { extern __shared__ float s; o[0] = s; }', "extern __shared__"),
    ('extern "C" __global__ void k(float* o) { extern __shared__ float* p[]; o[0] = 0; }', "extern __shared__"),
    ('extern "C" __global__ void k(float* o) { extern float g; o[0] = g; }', "extern"),
    ('extern "C" __global__ void k(float* o) { extern __shared__ float s[]; float s2 = 0; extern __shared__ '
     'float s[]; o[0] = s2; }', "redeclaration"),
])
def test_unsupported_dynamic_shared_declarations_are_named(source, construct):
    with pytest.raises(CompileError) as info:
        simt.compile_source(source)
    assert info.value.construct == construct and info.value.line == 1


def _main(argv):
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_emulate_takes_shared_mem_in_bytes(tmp_path, capsys):
    path = tmp_path / "reverse.cu"
    path.write_text(REVERSE)
    base = ["emulate", str(path), "--kernel", "dynamic_reverse", "--grid", "1", "--block", "64",
            "--arg", "float32[64]=arange", "--arg", "64", "--json"]
    assert _main([*base, "--shared-mem", "256"]) == 0
    capsys.readouterr()
    assert _main(base) == 1
    assert "shared_mem=0" in capsys.readouterr().err
    assert _main([*base, "--shared-mem", "65536"]) == 1
    assert "65536 bytes of dynamic shared memory" in capsys.readouterr().err


def test_emulate_refuses_a_negative_shared_mem(tmp_path):
    path = tmp_path / "reverse.cu"
    path.write_text(REVERSE)
    with pytest.raises(SystemExit):
        _main(["emulate", str(path), "--kernel", "dynamic_reverse", "--grid", "1", "--block", "64",
               "--shared-mem", "-4"])


@pytest.mark.parametrize("source", [REVERSE, CARVED, ALIASED, ALIGNED, FILE_SCOPE, STRIDED_DYNAMIC, STATIC_AND_DYNAMIC,
                                    UNTOUCHED])
def test_dynamic_shared_sources_compile_with_nvrtc(source):
    from gpulab import nvrtc
    try:
        nvrtc.compile_cubin(source, "dynamic_shared.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))
