"""The correctness checks. First the memory test's kernels themselves, run in the SIMT emulator on a
small buffer: a write pass then a verify pass finds nothing, and a fault put into memory between
the two is counted exactly, at its address. Then the checks through run_checks against the fake
device layer (faults injected), the emulator check on this machine, and the real GPU path
(``gpu`` marker: skipped without a CUDA device)."""

from __future__ import annotations

import contextlib
import types

import numpy as np
import pytest

from gpulab import experiments, kernels
from gpulab.catalogue import render
from gpulab.check import correctness
from gpulab.check import device_memtest as mt
from gpulab.check.device import NvmlGpu
from gpulab.check.model import Verdict
from gpulab.check.registry import Context, threshold
from gpulab.check.run import check_report
from tests.gpulab.check.fakes import FakeGpu, FakeLayer
from tests.gpulab.check.fakes_correctness import CHUNK_WORDS, FREE_BYTES, CheckedGpu

BASE = 0x7F00_0000_0000  # the emulated backend's stand-in for the region's device address
SEED = 0x1234_5678


def run(layer, only, **context):
    return check_report(Context(devices=layer, host="node1", **context), only)


def the_row(layer, check, **context):
    (row,) = run(layer, [check], **context).rows
    return row


def written(pattern, words=2500, chunk_words=CHUNK_WORDS):
    """An emulated backend and a buffer the write pass filled with ``pattern`` (chunks of 1000, 1000, 500)."""
    backend = mt.emulated_backend(words * mt.WORD_BYTES, BASE)
    buf = backend.allocate(words)
    mt.write_pass(backend, buf, pattern, mt.pattern_seed(pattern, SEED, BASE), chunk_words)
    return backend, buf


def verified(backend, buf, pattern):
    return mt.verify_pass(backend, buf, pattern, mt.pattern_seed(pattern, SEED, BASE), CHUNK_WORDS)


# ------------------------------------------------------------------ the kernels, in the emulator


@pytest.mark.parametrize("pattern", mt.PATTERNS)
def test_the_write_pass_writes_the_pattern_and_the_verify_pass_finds_nothing_wrong(pattern):
    backend, buf = written(pattern)
    assert np.array_equal(buf, mt.expected_words(pattern, 0, len(buf), mt.pattern_seed(pattern, SEED, BASE)))
    result = verified(backend, buf, pattern)
    assert (result.pattern, result.mismatches, result.bad) == (pattern, 0, ())


def test_the_patterns_are_what_they_say():
    ones = mt.expected_words("walking_ones", 0, 128, 0)
    assert all(bin(int(w)).count("1") == 1 for w in ones) and int(ones[3]) == 1 << 3 and int(ones[64]) == 1
    assert mt.expected_words("address", 10, 3, BASE).tolist() == [BASE + 80, BASE + 88, BASE + 96]
    random = mt.expected_words("random", 0, 4096, SEED)
    assert len(set(random.tolist())) == 4096  # no repeats: a word copied to another address shows
    assert not np.array_equal(random, mt.expected_words("random", 0, 4096, SEED + 1))
    with pytest.raises(ValueError, match="walking_ones"):
        mt.expected_words("checkerboard", 0, 4, 0)


@pytest.mark.parametrize("pattern", mt.PATTERNS)
def test_one_flipped_bit_is_counted_once_with_its_address_and_values(pattern):
    backend, buf = written(pattern)
    want = int(buf[1234])
    buf[1234] ^= np.uint64(1 << 17)  # in the second chunk
    result = verified(backend, buf, pattern)
    assert result.mismatches == 1
    (bad,) = result.bad
    assert (bad.index, bad.address, bad.want, bad.got) == (1234, BASE + 8 * 1234, want, want ^ (1 << 17))


def test_a_bit_stuck_at_zero_counts_exactly_the_words_that_needed_it():
    backend, buf = written("walking_ones")
    stuck = slice(100, 900)
    buf[stuck] &= ~np.uint64(1 << 5)
    wanted = mt.expected_words("walking_ones", 0, len(buf), mt.pattern_seed("walking_ones", SEED, BASE))
    expected_count = int(np.count_nonzero(wanted[stuck] & np.uint64(1 << 5)))
    result = verified(backend, buf, "walking_ones")
    assert expected_count in (12, 13) and result.mismatches == expected_count  # one word in 64 needs bit 5
    assert len(result.bad) == mt.MAX_RECORDED and all(100 <= b.index < 900 and b.got == 0 for b in result.bad)
    assert [b.index for b in result.bad] == sorted(b.index for b in result.bad)


def test_a_word_stuck_at_zero_in_the_last_ragged_chunk_is_found():
    backend, buf = written("random")
    buf[2499] = 0
    result = verified(backend, buf, "random")
    assert result.mismatches == 1 and result.bad[0].index == 2499 and result.bad[0].got == 0


def test_the_count_is_exact_beyond_the_few_words_recorded():
    backend, buf = written("address")
    buf[10:30] += np.uint64(8)  # twenty words, each holding its neighbour's address
    result = verified(backend, buf, "address")
    assert result.mismatches == 20 and len(result.bad) == mt.MAX_RECORDED
    assert all(10 <= b.index < 30 and b.got == b.want + 8 for b in result.bad)


def test_an_aliased_address_line_shows_in_the_address_and_random_patterns_not_in_walking_ones():
    # Address bit 12 (word 512) stuck: writing word i + 512 lands in word i as well, so after the
    # write pass the low half holds the high half's words. Walking ones repeats every 64 words, so
    # it cannot see this; a pattern unique per address can (why the test writes everything first).
    def alias(buf, pattern):
        buf[:512] = buf[512:1024]

    result = mt.run_memtest(mt.emulated_backend(1024 * mt.WORD_BYTES, BASE), 1.0, 0, SEED, 300, between=alias)
    found = {p.pattern: p.mismatches for p in result.patterns}
    assert found == {"walking_ones": 0, "random": 512, "address": 512}
    assert result.tested_bytes == 8192 and result.base_address == BASE and result.mismatches == 1024


def test_the_planned_size_is_the_share_of_free_memory_capped():
    assert mt.planned_words(1000 * 8, 0.5, 0) == 500
    assert mt.planned_words(1 << 40, 0.10, 1 << 30) == (1 << 30) // 8
    assert mt.planned_words(7, 1.0, 0) == 0


def test_no_memory_to_test_is_an_error_not_a_pass():
    with pytest.raises(mt.MemtestError) as caught:
        mt.run_memtest(mt.emulated_backend(4), 1.0, 0, SEED)
    assert caught.value.stage == "allocate"


# ------------------------------------------------------------------ gpu.memtest against the fake


def test_a_healthy_gpu_passes_the_memory_test_over_the_planned_share():
    gpu = CheckedGpu()
    row = the_row(FakeLayer(gpu), "gpu.memtest")
    assert row.verdict is Verdict.PASS and row.value == 0 and row.threshold == 0 and row.source == "gpu.memtest"
    plan = threshold("gpu.memtest")
    (result,) = gpu.memtests
    assert result.tested_bytes == int(FREE_BYTES * plan["quick_share_of_free"]) // 8 * 8
    assert [p.pattern for p in result.patterns] == ["walking_ones", "random", "address"]
    assert "walking ones" in render(row.reason) and row.device == "gpu0" and row.facts["free_bytes"] == FREE_BYTES
    run(FakeLayer(gpu), ["gpu.memtest"], mode="full")
    assert gpu.memtests[1].tested_bytes == int(FREE_BYTES * plan["full_share_of_free"]) // 8 * 8


def test_a_flipped_bit_fails_with_the_count_the_pattern_the_address_and_what_to_do():
    def flip(buf, pattern):
        if pattern == "random":
            buf[1500] ^= np.uint64(1)

    row = the_row(FakeLayer(CheckedGpu(corrupt=flip)), "gpu.memtest")
    assert row.verdict is Verdict.FAIL and row.value == 1
    reason, action = render(row.reason), render(row.action)
    assert "(1 in the 0.00 GiB tested)" in reason and "random: 1" in reason and f"{BASE + 8 * 1500:#x}" in reason
    assert row.facts["mismatches"] == {"walking_ones": 0, "random": 1, "address": 0}
    assert "Xid" in action and "ECC" in action and "RMA" in action and "--device 0" in action
    assert "RMA" in render(row.action, "zh")


def test_a_failed_allocation_fails_naming_it():
    row = the_row(FakeLayer(CheckedGpu(allocate_raises=MemoryError("out of memory allocating 12 GiB"))),
                  "gpu.memtest")
    assert row.verdict is Verdict.FAIL and row.facts["stage"] == "allocate"
    assert "could not allocate" in render(row.reason) and "out of memory allocating 12 GiB" in render(row.reason)


def test_a_kernel_error_fails_naming_it():
    row = the_row(FakeLayer(CheckedGpu(launch_raises=RuntimeError("cudaErrorIllegalAddress"))), "gpu.memtest")
    assert row.verdict is Verdict.FAIL and row.facts["stage"] == "kernel"
    assert "memtest_write" in render(row.reason) and "cudaErrorIllegalAddress" in render(row.reason)


def test_a_gpu_that_errors_otherwise_fails_too_and_each_gpu_gets_its_row():
    class Broken(CheckedGpu):
        def memtest(self, *args, **kwargs):
            raise RuntimeError("CUDA_ERROR_LAUNCH_FAILED")

    report = run(FakeLayer(CheckedGpu(0), Broken(1)), ["gpu.memtest"])
    assert [(r.device, r.verdict) for r in report.rows] == [("gpu0", Verdict.PASS), ("gpu1", Verdict.FAIL)]
    assert "CUDA_ERROR_LAUNCH_FAILED" in render(report.rows[1].reason)


def test_no_gpu_gives_the_one_shared_skip_for_every_gpu_check_and_a_failure_when_required():
    report = run(FakeLayer(), ["gpu.ecc", "gpu.memtest", "gpu.kernels"])
    assert [(r.check, r.verdict) for r in report.rows] == [("gpu", Verdict.SKIP)]
    report = run(FakeLayer(), ["gpu.memtest", "gpu.kernels"], require_gpu=True)
    assert [(r.check, r.verdict) for r in report.rows] == [("gpu", Verdict.FAIL)]


# ------------------------------------------------------------------ gpu.kernels against the fake


def test_kernels_that_agree_pass_with_the_quick_subset_at_the_small_preset():
    gpu = CheckedGpu()
    row = the_row(FakeLayer(gpu), "gpu.kernels")
    quick = sorted(threshold("gpu.kernels")["quick_kernels"])
    assert row.verdict is Verdict.PASS and row.value == row.threshold == len(quick)
    assert gpu.kernels_run == [(entry, "small") for entry in quick]


def test_full_mode_runs_every_lab_kernel_and_each_at_its_largest_preset_too():
    gpu = CheckedGpu()
    row = the_row(FakeLayer(gpu), "gpu.kernels", mode="full")
    catalogue = experiments.kernel_catalogue()
    assert row.verdict is Verdict.PASS and row.value == len(catalogue)
    assert {entry for entry, _ in gpu.kernels_run} == set(catalogue)
    assert ("matmul_tiled", "medium") in gpu.kernels_run and ("vector_add", "large") in gpu.kernels_run


def test_a_kernel_off_by_more_than_its_tolerance_fails_naming_it_with_its_error():
    def off(outputs):
        outputs[2][7] += np.float32(1e-3)  # vector_add's c; its tolerance is rtol 1e-5, atol 1e-6

    row = the_row(FakeLayer(CheckedGpu(kernel_faults={"vector_add": off})), "gpu.kernels")
    reason = render(row.reason)
    assert row.verdict is Verdict.FAIL and row.value == row.threshold - 1 and row.facts["disagree"] == ["vector_add"]
    assert "vector_add against numpy, argument 2" in reason and "vector_add against the emulator" in reason
    (numpy_diff, _emulator_diff) = row.facts["differences"]
    assert numpy_diff["max_error"] == pytest.approx(1e-3, rel=1e-2) and numpy_diff["tolerance"] < 1e-4
    assert "Xid" in render(row.action)


def test_a_kernel_within_its_tolerance_passes_and_an_integer_kernel_must_match_bit_for_bit():
    def within(outputs):
        outputs[2][7] = np.nextafter(outputs[2][7], np.float32(np.inf))  # one ulp: within rtol 1e-5

    def one_off(outputs):
        outputs[1][0] += 1  # divergence_kway writes uint32

    row = the_row(FakeLayer(CheckedGpu(kernel_faults={"vector_add": within, "divergence_kway": one_off})),
                  "gpu.kernels")
    assert row.facts["disagree"] == ["divergence_kway"]
    assert {d["tolerance"] for d in row.facts["differences"]} == {0.0}


def test_a_kernel_that_errors_on_the_gpu_fails_naming_the_error():
    row = the_row(FakeLayer(CheckedGpu(kernel_raises={"matmul_tiled": RuntimeError("NVRTC_ERROR_COMPILATION")})),
                  "gpu.kernels")
    assert row.verdict is Verdict.FAIL and "matmul_tiled: RuntimeError: NVRTC_ERROR_COMPILATION" in render(row.reason)


# ------------------------------------------------------------------ emulator.kernels on this machine


def test_every_lab_kernel_agrees_with_numpy_in_this_machines_emulator():
    row = the_row(FakeLayer(), "emulator.kernels")
    count = len([s for s in experiments.kernel_catalogue().values() if not s.gpu_only])
    assert row.verdict is Verdict.PASS and row.device == "cpu" and row.value == row.threshold == count


def test_an_emulator_that_computes_wrong_or_breaks_fails_naming_the_kernels(monkeypatch):
    from gpulab import simt

    real = simt.launch

    def faulty(source, entry, grid, block, args, **kwargs):
        if entry == "stencil_1d":
            raise simt.SimtError("no such construct")
        result = real(source, entry, grid, block, args, **kwargs)
        if entry == "reduce_shuffle":
            args[1][0] += 1
        return result

    monkeypatch.setattr(simt, "launch", faulty)
    row = the_row(FakeLayer(), "emulator.kernels")
    reason = render(row.reason)
    assert row.verdict is Verdict.FAIL and row.facts["disagree"] == ["reduce_shuffle", "stencil_1d"]
    assert "reduce_shuffle against numpy, argument 1" in reason and "no such construct" in reason


def test_the_gpu_check_reuses_the_emulator_runs_of_the_emulator_check(monkeypatch):
    from gpulab import simt

    launched = []
    real = simt.launch

    def counted(source, entry, *args, **kwargs):
        launched.append(entry)
        return real(source, entry, *args, **kwargs)

    monkeypatch.setattr(simt, "launch", counted)
    run(FakeLayer(CheckedGpu()), ["emulator.kernels", "gpu.kernels"])
    assert sorted(launched) == sorted(s.entry for s in experiments.kernel_catalogue().values() if not s.gpu_only)


def test_worst_element_names_the_error_and_tolerance_farthest_out():
    want = np.array([1.0, 100.0, 0.0], np.float32)
    got = np.array([1.0, 100.01, 0.0], np.float32)
    error, tolerance = correctness.worst_element(got, want, 1e-5, 1e-6)
    assert error == pytest.approx(0.01, rel=1e-3) and tolerance == pytest.approx(1e-6 + 1e-3)
    assert correctness.worst_element(np.array([np.nan]), np.array([1.0]), 1e-5, 1e-6)[0] == float("inf")
    assert correctness.worst_element(np.zeros(2), np.zeros(3), 1e-5, 1e-6) == (float("inf"), 0.0)


# ------------------------------------------------------------------ the real GPU path


@pytest.mark.gpu
def test_on_a_real_gpu_the_memory_test_passes_and_a_flipped_bit_is_found_at_its_address():
    import cupy

    with cupy.cuda.Device(0):
        backend = mt.cupy_backend(0)
        clean = mt.run_memtest(backend, 0.05, 64 << 20, SEED, chunk_words=1 << 20)
        assert clean.mismatches == 0 and clean.tested_bytes > 0

        def flip(buf, pattern):
            buf[12345:12346] ^= cupy.uint64(1 << 40)

        faulty = mt.run_memtest(backend, 0.05, 64 << 20, SEED, chunk_words=1 << 20, between=flip)
    assert [p.mismatches for p in faulty.patterns] == [1, 1, 1]
    assert all(p.bad[0].index == 12345 and p.bad[0].address == faulty.base_address + 8 * 12345
               for p in faulty.patterns)


@pytest.mark.gpu
def test_on_a_real_gpu_the_correctness_checks_pass():
    report = run(None, ["emulator.kernels", "gpu.memtest", "gpu.kernels"], device_index=0)
    assert [(r.check, r.verdict) for r in report.rows] == [
        ("emulator.kernels", Verdict.PASS), ("gpu.memtest", Verdict.PASS), ("gpu.kernels", Verdict.PASS)]


# ------------------------------------------------------------------ the CuPy glue, with numpy standing in


class _DeviceArray(np.ndarray):
    """A numpy array with CuPy's ``.data.ptr`` (its address), as the CuPy backend reads it."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0])


def _numpy_cupy(monkeypatch, free_bytes):
    """gpulab.cuda's CuPy replaced by numpy, its kernels by the emulator: what the GPU path calls,
    how it calls it (grid and block tuples, argument types), minus the GPU."""
    from gpulab import cuda, simt

    launches = []

    def get_kernel(source, entry, device_index=0, options=()):
        def kernel(grid, block, args, shared_mem=0):
            assert isinstance(grid, tuple) and isinstance(block, tuple)
            launches.append((entry, device_index, grid, block))
            simt.launch(source, entry, grid, block, list(args), shared_mem=shared_mem)
        return kernel

    released = []
    pool = types.SimpleNamespace(free_all_blocks=lambda: released.append(True))
    fake = types.SimpleNamespace(
        uint64=np.uint64, asnumpy=np.asarray, ndarray=np.ndarray, get_default_memory_pool=lambda: pool,
        zeros=lambda n, dtype: np.zeros(n, dtype).view(_DeviceArray), asarray=lambda a: np.array(a),
        cuda=types.SimpleNamespace(Device=lambda index: contextlib.nullcontext(),
                                   runtime=types.SimpleNamespace(memGetInfo=lambda: (free_bytes, 2 * free_bytes)),
                                   get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None)))
    monkeypatch.setattr(cuda, "require_cupy", lambda: fake)
    monkeypatch.setattr(cuda, "get_kernel", get_kernel)
    return launches, released


def test_the_gpu_memory_test_launches_the_kernels_as_cupy_expects_and_gives_its_memory_back(monkeypatch):
    launches, released = _numpy_cupy(monkeypatch, free_bytes=40_000)
    result = NvmlGpu(1, "test GPU", None).memtest(0.5, 0, SEED)
    assert result.tested_bytes == 20_000 and result.mismatches == 0 and result.base_address > 0
    assert {entry for entry, *_ in launches} == {"memtest_write", "memtest_verify"}
    assert all(index == 1 and block == (mt.BLOCK,) and grid == (10,) for _e, index, grid, block in launches)
    assert len(released) >= 2  # cached blocks freed before measuring, the tested region after


def test_a_lab_kernel_runs_through_the_cupy_path_with_its_preset(monkeypatch):
    launches, _ = _numpy_cupy(monkeypatch, free_bytes=0)
    spec = experiments.kernel("stencil_1d")  # a view argument (in + RADIUS) and __constant__ weights
    preset = spec.preset("small")
    args = spec.build_args(preset)
    expected = spec.expected(args)
    got = NvmlGpu(0, "test GPU", None).run_kernel(spec, preset, args)
    assert spec.matches(got, expected) and launches == [("stencil_1d", 0, preset.grid, preset.block)]


def test_the_plain_fake_gpu_is_healthy_for_the_correctness_checks():
    report = run(FakeLayer(FakeGpu(0)), ["gpu.memtest", "gpu.kernels"])
    assert [(r.check, r.verdict) for r in report.rows] == [("gpu.memtest", Verdict.PASS), ("gpu.kernels", Verdict.PASS)]


@pytest.mark.parametrize("spec", kernels.TOOL_KERNELS, ids=lambda spec: spec.entry)
@pytest.mark.parametrize("preset", ["tiny", "small"])
def test_the_memtest_kernels_match_their_references_in_the_emulator(spec, preset):
    # The references (gpulab.kernels) the NVRTC, fuzz and GPU kernel tests use too: the write pass's
    # own-address words, the verifier finding the one flipped bit its arguments carry.
    from gpulab import simt

    chosen = spec.preset(preset)
    args = spec.build_args(chosen, seed=3)
    expected = spec.expected(args)
    simt.launch(spec.source, spec.entry, chosen.grid, chosen.block, args, filename=spec.file)
    assert spec.matches(args, expected)
    if spec.entry == "memtest_verify":
        assert int(args[5][0]) == 1 and int(args[7][0]) != int(args[8][0])
