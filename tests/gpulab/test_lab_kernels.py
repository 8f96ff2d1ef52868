"""The kernel-lab kernels: catalogue entries, and references checked against plain per-thread Python."""

import re

import numpy as np
import pytest

from gpulab import experiments, kernels

LAB = sorted(name for name, spec in experiments.kernel_catalogue().items() if spec.tags)
MASK32 = 0xFFFFFFFF


def signature(spec: kernels.KernelSpec) -> list[str]:
    text = " ".join(spec.source.split())
    params = re.search(rf"void {spec.entry}\((.*?)\)", text).group(1)
    return [p.strip() for p in params.split(",")]


def test_the_lab_covers_divergence_coalescing_bank_conflicts_and_reduction():
    tags = {tag for name in LAB for tag in experiments.kernel(name).tags}
    assert {"divergence", "coalescing", "bank-conflicts", "reduction"} <= tags
    assert len(LAB) >= 14


@pytest.mark.parametrize("entry", LAB)
def test_every_lab_kernel_opens_with_a_comment_and_has_a_lesson(entry):
    spec = experiments.kernel(entry)
    assert spec.source.startswith("//"), "the header comment says what the kernel teaches"
    assert spec.lesson and spec.description and spec.title


@pytest.mark.parametrize("entry", LAB)
def test_every_lab_kernel_takes_only_pointers_and_ints(entry):
    for param in signature(experiments.kernel(entry)):
        assert "*" in param or param.startswith("int "), param


@pytest.mark.parametrize("entry", LAB)
def test_every_lab_kernel_has_a_tiny_preset_of_at_most_two_blocks_and_a_larger_one(entry):
    spec = experiments.kernel(entry)
    tiny = spec.preset("tiny")
    assert tiny.grid[0] * tiny.grid[1] * tiny.grid[2] <= 2
    assert max(p.threads for p in spec.presets) > 100 * tiny.threads


def test_even_odd_reference_follows_the_c_arithmetic_of_each_path_modulo_two_to_the_32():
    spec = experiments.kernel("divergence_even_odd")
    args = spec.build_args(spec.preset("tiny"))
    out = spec.expected(args)[1]
    a = (int(args[0][0]) * 3 + 1) & MASK32
    a = (a ^ (a >> 5)) + 12345
    b = (int(args[0][1]) * 5 + 7) & MASK32
    b = (b ^ (b << 3)) - 999
    assert int(out[0]) == a & MASK32
    assert int(out[1]) == b & MASK32


def test_warp_aligned_reference_does_the_same_work_per_warp_instead_of_per_lane():
    even_odd, aligned = experiments.kernel("divergence_even_odd"), experiments.kernel("divergence_warp_aligned")
    args = even_odd.build_args(even_odd.preset("tiny"))
    a, b = even_odd.expected(args)[1], aligned.expected(args)[1]
    assert np.array_equal(a[0:32:2], b[0:32:2])
    assert np.array_equal(a[33:64:2], b[33:64:2])
    assert not np.array_equal(a, b)


def test_kway_reference_with_one_path_applies_the_first_recipe_everywhere():
    spec = experiments.kernel("divergence_kway")
    args = spec.build_args(spec.preset("tiny"))
    args[2] = np.int32(1)
    want = (args[0].astype(np.uint64) * 3 + 1) & MASK32
    assert np.array_equal(spec.expected(args)[1], want.astype(np.uint32))


def test_data_dependent_loop_reference_runs_exactly_counts_rounds():
    spec = experiments.kernel("loop_data_dependent")
    args = spec.build_args(spec.preset("tiny"))
    args[1][:3] = [0, 1, 2]
    out = spec.expected(args)[2]
    step = lambda v: (v * 1664525 + 1013904223) & MASK32  # noqa: E731
    assert int(out[0]) == int(args[0][0])
    assert int(out[1]) == step(int(args[0][1]))
    assert int(out[2]) == step(step(int(args[0][2])))


def test_load_references_read_the_elements_each_thread_addresses():
    strided = experiments.kernel("load_strided")
    args = strided.build_args(strided.preset("tiny"))
    assert np.array_equal(strided.expected(args)[1], [args[0][i * 4] for i in range(64)])
    gather = experiments.kernel("load_gather")
    args = gather.build_args(gather.preset("tiny"))
    assert np.array_equal(gather.expected(args)[2], [args[0][j] for j in args[1]])
    misaligned = experiments.kernel("load_misaligned")
    args = misaligned.build_args(misaligned.preset("tiny"))
    assert np.array_equal(misaligned.expected(args)[1], args[0][1:65])


def test_shared_stride_reference_wraps_around_the_shared_buffer():
    spec = experiments.kernel("shared_stride")
    args = spec.build_args(spec.preset("tiny"))
    args[2] = np.int32(32)
    out = spec.expected(args)[1]
    assert out[32] == args[0][0] and out[33] == args[0][32]


@pytest.mark.parametrize("entry", ["reduce_interleaved", "reduce_sequential", "reduce_shuffle"])
def test_reduction_references_are_exact_per_block_integer_sums(entry):
    spec = experiments.kernel(entry)
    for preset in spec.presets[:2]:
        args = spec.build_args(preset)
        partial = spec.expected(args)[1]
        block = preset.block[0]
        assert kernels.reduction_block_size(int(args[2]), partial.size) == block
        assert partial.dtype == np.int32
        assert int(partial[0]) == int(args[0][:block].sum())
        assert int(partial.sum()) == int(args[0].sum())


@pytest.mark.gpu
@pytest.mark.parametrize("entry", LAB)
def test_every_lab_kernel_gives_the_same_outputs_on_the_gpu_as_in_the_emulator(entry):
    import cupy

    from gpulab import cuda, simt

    spec = experiments.kernel(entry)
    preset = spec.preset("small")
    emulated = spec.build_args(preset)
    simt.launch(spec.source, spec.entry, preset.grid, preset.block, emulated, shared_mem=preset.shared_mem)
    device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in spec.build_args(preset)]
    cuda.get_kernel(spec.source, spec.entry)(preset.grid, preset.block, tuple(device_args),
                                             shared_mem=preset.shared_mem)
    for index in spec.expected(emulated):
        assert kernels.outputs_match(cupy.asnumpy(device_args[index]), emulated[index], spec.rtol, spec.atol)
