import types

import numpy as np
import pytest

from gpulab import experiments, kernels
from gpulab.paths import kernels_dir


def test_every_kernel_file_is_in_the_catalogue():
    assert experiments.uncatalogued_kernel_files() == []
    for spec in experiments.kernel_catalogue().values():
        assert spec.path.is_file(), spec.file


def test_every_catalogue_entry_defines_its_entry_point_with_c_linkage():
    for spec in experiments.kernel_catalogue().values():
        assert f'extern "C" __global__ void {spec.entry}(' in " ".join(spec.source.split())
    for spec in kernels.TOOL_KERNELS:
        assert f'extern "C" __global__ void {spec.entry}(' in " ".join(spec.source.split())


def test_presets_cover_their_problem_size():
    for spec in experiments.kernel_catalogue().values():
        for preset in spec.presets:
            n = preset.sizes["n"]
            needed = n * n if spec.entry.startswith("matmul") else n
            assert preset.threads >= needed, (spec.entry, preset.name)


def test_reference_does_not_touch_its_inputs_and_gives_the_right_shape():
    spec = kernels.get("vector_add")
    args = spec.build_args(spec.preset("small"))
    before = args[0].copy()
    expected = spec.expected(args)
    assert np.array_equal(args[0], before)
    assert np.array_equal(expected[2], args[0] + args[1])
    assert not spec.matches(args, expected)  # the output buffer is still zeros


def test_integer_outputs_must_match_bit_for_bit():
    want = np.array([1, 2, 3], np.int32)
    assert kernels.outputs_match(want.copy(), want, 1e-5, 1e-6)
    assert not kernels.outputs_match(np.array([1, 2, 4], np.int32), want, 0.5, 5.0)


def test_unknown_kernel_or_preset_names_the_known_ones():
    with pytest.raises(kernels.CatalogueError, match="vector_add"):
        kernels.get("vector_sub")
    with pytest.raises(kernels.CatalogueError, match="tiny"):
        kernels.get("vector_add").preset("huge")


TOOLS = {spec.entry: spec for spec in kernels.TOOL_KERNELS}  # the tools' kernels (memtest.cu), not in the catalogue


def _spec(entry):
    return TOOLS[entry] if entry in TOOLS else experiments.kernel(entry)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("entry", sorted(experiments.kernel_catalogue()) + sorted(TOOLS))
def test_every_kernel_compiles_with_nvrtc_without_a_gpu(entry, arch):
    nvrtc = pytest.importorskip("gpulab.nvrtc")
    spec = _spec(entry)
    try:
        cubin, _ = nvrtc.compile_cubin(spec.source, spec.file, arch)
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))
    assert cubin[:4] == b"\x7fELF"


def test_a_broken_kernel_gives_the_nvrtc_log_with_the_line():
    from gpulab import nvrtc

    source = (kernels_dir() / "vector_add.cu").read_text().replace("c[i] = a[i] + b[i];", "c[i] = a[i] + ;")
    try:
        with pytest.raises(nvrtc.NvrtcCompileError, match=r"vector_add\.cu\(\d+\)"):
            nvrtc.compile_cubin(source, "vector_add.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.gpu
@pytest.mark.parametrize("entry", sorted(experiments.kernel_catalogue()) + sorted(TOOLS))
def test_every_kernel_matches_its_reference_on_the_gpu(entry):
    import cupy

    from gpulab import cuda

    spec = _spec(entry)
    preset = spec.presets[-1]
    args = spec.build_args(preset)
    expected = spec.expected(args)
    device_args = cuda.to_device(args)  # stencil_1d's in + RADIUS stays a pointer into its array
    cuda.get_kernel(spec.source, spec.entry)(preset.grid, preset.block, tuple(device_args),
                                             shared_mem=preset.shared_mem)
    host = [cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else a for a in device_args]
    assert spec.matches(host, expected)


def test_a_view_argument_goes_to_the_device_as_the_same_view_into_one_copy_of_its_array(monkeypatch):
    from gpulab import cuda

    fake = types.SimpleNamespace(asarray=np.array)  # copies, as cupy.asarray copies to the device
    monkeypatch.setattr(cuda, "require_cupy", lambda: fake)
    halo = np.arange(10, dtype=np.float32)
    first, second, whole, scalar = cuda.to_device([halo[2:], halo[5:8], np.zeros(3, np.int32), np.int32(4)])
    assert first.base is second.base and first.base is not halo  # one copy of the whole array
    assert first.base.tolist() == halo.tolist() and first[0] == 2 and second.tolist() == [5, 6, 7]
    assert whole.base is None and scalar == 4
