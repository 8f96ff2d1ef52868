"""The device-to-device copy lab: bytes credited, a measured CPU copy, a modelled GPU, the driver's copy on a GPU."""

import numpy as np
import pytest

from gpulab import experiments
from gpulab.catalogue import render
from gpulab.cuda import cuda_status
from gpulab.experiments import Context, ParamError, device_copy, drive
from gpulab.lab.base import resolve_model_gpu
from gpulab.model import memory_share

SIZES = "4096,65536,1048576"


@pytest.fixture(scope="module")
def result():
    params = experiments.params_from_strings(device_copy.Params, {"sizes": SIZES, "repeats": "3"})
    return drive(device_copy.run(params, Context()))


def test_the_lab_is_found_from_its_declaration_with_its_kernel():
    assert experiments.get("device-copy") is device_copy
    assert experiments.kernel("copy_f32") is device_copy.KERNEL
    assert experiments.names().index("bandwidth") < experiments.names().index("device-copy")


def test_the_cpu_copy_is_measured_at_every_size_and_credited_with_twice_its_buffer(result):
    cpu = result.get_series("cpu-copyto")
    assert cpu.provenance.kind == "measured"
    assert [p.x for p in cpu.points] == [4096, 65536, 1048576]
    for point in cpu.points:
        assert point.extra["bytes_moved"] == 2 * point.x
        assert point.y == pytest.approx(2 * point.x / point.extra["seconds"] / 1e9, rel=1e-6)  # odd repeats: one median


def test_the_modelled_gpu_copies_at_its_achievable_share_once_the_launch_is_paid(result):
    model = result.get_series("model")
    spec = resolve_model_gpu("h100-sxm")
    achievable_gb_s = memory_share(spec).share * spec.memory_bandwidth_gb_s
    assert model.provenance.kind == "modelled"
    rates = [p.y for p in model.points]
    assert rates == sorted(rates) and rates[-1] < achievable_gb_s  # the launch cost still shows at 1 MiB
    seconds = model.points[-1].extra["seconds"]
    assert seconds == pytest.approx(2 * 1048576 / (achievable_gb_s * 1e9) + 5e-6, rel=0.05)


@pytest.mark.skipif(cuda_status().available, reason="checks the note shown without a GPU")
def test_without_a_gpu_the_lab_says_why_and_measures_no_gpu_copy(result):
    assert {s.key for s in result.series} == {"cpu-copyto", "model"}
    assert any("No GPU series" in render(note) for note in result.notes)


def test_the_copy_kernel_copies_exactly_in_the_emulator():
    from gpulab import simt

    preset = device_copy.KERNEL.presets[0]
    args = device_copy.KERNEL.build_args(preset)
    simt.launch(device_copy.KERNEL.source, device_copy.KERNEL.entry, preset.grid, preset.block, args)
    np.testing.assert_array_equal(args[2], args[1])


@pytest.mark.parametrize("sizes", ["4097", "0", "2^33"])
def test_a_buffer_size_the_copy_cannot_take_is_refused_by_name(sizes):
    with pytest.raises(ParamError, match="sizes"):
        experiments.params_from_strings(device_copy.Params, {"sizes": sizes})


@pytest.mark.gpu
def test_on_a_gpu_the_drivers_copy_and_the_kernel_stay_under_the_spec_bandwidth():
    if not cuda_status().available:
        pytest.skip(f"needs a CUDA device: {cuda_status().reason}")
    params = experiments.params_from_strings(device_copy.Params, {"sizes": "2^26", "repeats": "3"})
    done = drive(device_copy.run(params, Context()))
    for key in ("gpu-memcpy", "gpu-cuda-kernel"):
        point = done.get_series(key).points[0]
        assert 0 < point.y and point.extra.get("percent_of_peak", 0) < 100
