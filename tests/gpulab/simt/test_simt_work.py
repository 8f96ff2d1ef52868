"""FLOP and unique-byte counting (``launch(..., count_flops=True)``, gpulab.simt.work)."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab import kernels, simt


def _count(source: str, kernel: str, n: int, args: list, block: int = 32) -> dict[str, float]:
    grid = (n + block - 1) // block
    return simt.launch(source, kernel, grid, block, args, count_flops=True).metrics


def _f32(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.float32) + 1


def test_a_plain_launch_counts_no_work_and_names_no_work_metric() -> None:
    spec = kernels.get("vector_add")
    preset = spec.smallest_preset
    result = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
    assert "flop_count_sp" not in result.metrics
    assert "unique_global_load_bytes" not in result.metrics


def test_vector_add_is_one_flop_and_twelve_bytes_per_element() -> None:
    spec = kernels.get("vector_add")
    preset = kernels.preset_1d("t", 1000, 128)
    metrics = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                          count_flops=True).metrics
    assert metrics["flop_count_sp"] == 1000
    assert metrics["unique_global_load_bytes"] + metrics["unique_global_store_bytes"] == 12 * 1000


def test_counting_leaves_the_results_as_they_were() -> None:
    spec = kernels.get("matmul_tiled")
    preset = spec.smallest_preset
    plain, counted = spec.build_args(preset), spec.build_args(preset)
    simt.launch(spec.source, spec.entry, preset.grid, preset.block, plain)
    simt.launch(spec.source, spec.entry, preset.grid, preset.block, counted, count_flops=True)
    np.testing.assert_array_equal(plain[2], counted[2])


ARITH = """
extern "C" __global__ void k(float* x, double* d, int n) {
    int i = threadIdx.x;
    if (i < n) {
        float a = x[i];
        a = a * 2.0f + 1.0f;        // 2
        a -= a / 3.0f;              // 2
        a = fmaf(a, a, 1.0f);       // 2
        float c = 2.0f * 3.0f;      // folded: 0
        a = -a + c;                 // negation is free: 1
        if (a > 0.0f) { a = a; }    // a comparison: 0
        x[i] = a;
        d[i] = d[i] * 2.0 + 1.0;    // 2 double
    }
}
"""


def test_each_float_operation_counts_per_active_lane_and_fma_counts_two() -> None:
    n = 20  # of 32 lanes: the 12 others are masked off by the if
    metrics = _count(ARITH, "k", 32, [_f32(32), np.ones(32), np.int32(n)])
    assert metrics["flop_count_sp"] == 7 * n
    assert metrics["flop_count_dp"] == 2 * n


DIVERGENT = """
extern "C" __global__ void k(float* x) {
    int i = threadIdx.x;
    float v = x[i];
    v = (i % 2 == 0) ? v * 2.0f : v + 1.0f + 2.0f;
    if (i < 8) {
        for (int r = 0; r < i; ++r) { v += 1.0f; }
    }
    x[i] = v;
}
"""


def test_only_the_lanes_that_run_an_operation_count_it() -> None:
    metrics = _count(DIVERGENT, "k", 32, [_f32(32)])
    ternary = 16 * 1 + 16 * 2  # even lanes multiply once, odd lanes add twice
    loop = sum(range(8))  # lane i adds i times
    assert metrics["flop_count_sp"] == ternary + loop


def test_integer_arithmetic_is_not_a_flop() -> None:
    spec = kernels.get("divergence_even_odd")
    preset = spec.smallest_preset
    metrics = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                          count_flops=True).metrics
    assert metrics["flop_count_sp"] == metrics["flop_count_dp"] == 0


REUSE = """
extern "C" __global__ void k(const float* x, float* out, int* hits) {
    int i = threadIdx.x;
    out[i] = x[0] + x[i % 4];   // every lane reads x[0]; x[0..3] at most
    out[i] = out[i] * 2.0f;     // out read back and written again
    atomicAdd(hits, 1);
}
"""


def test_unique_bytes_count_each_byte_once_however_often_it_is_used() -> None:
    metrics = _count(REUSE, "k", 32, [_f32(8), np.zeros(32, np.float32), np.zeros(1, np.int32)])
    assert metrics["unique_global_load_bytes"] == 4 * 4 + 32 * 4 + 4  # x[0..3], out, the atomic's int
    assert metrics["unique_global_store_bytes"] == 32 * 4 + 4


@pytest.mark.parametrize(("entry", "tile"), [("matmul_naive", 8), ("matmul_tiled", 16)])
def test_matmul_is_two_n_cubed_flop_and_twelve_n_squared_unique_bytes(entry: str, tile: int) -> None:
    spec = kernels.get(entry)
    n = 32
    preset = kernels.preset_2d("t", n, tile)
    metrics = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                          count_flops=True).metrics
    assert metrics["flop_count_sp"] == 2 * n**3
    assert metrics["unique_global_load_bytes"] == 2 * 4 * n * n
    assert metrics["unique_global_store_bytes"] == 4 * n * n


def test_tiled_matmul_off_the_tile_grid_also_counts_the_padding_lanes_work() -> None:
    """Threads past the edge still run the tile loop on zeros, as they do on a GPU."""
    spec = kernels.get("matmul_tiled")
    n = 20
    preset = kernels.preset_2d("t", n, 16)
    metrics = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                          count_flops=True).metrics
    padded = 32
    assert metrics["flop_count_sp"] == 2 * padded**3
