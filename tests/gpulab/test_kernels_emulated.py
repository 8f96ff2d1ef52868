"""The ``kernels-emulated`` check: every kernel the emulator can run matches its numpy reference."""

import pytest

from gpulab import experiments, simt

EMULATABLE = sorted(name for name, spec in experiments.kernel_catalogue().items() if not spec.gpu_only)


@pytest.mark.parametrize("entry", EMULATABLE)
def test_every_emulatable_kernel_matches_its_reference_in_the_emulator(entry):
    spec = experiments.kernel(entry)
    preset = spec.smallest_preset
    args = spec.build_args(preset, seed=1)
    expected = spec.expected(args)
    result = simt.launch(spec.source, spec.entry, preset.grid, preset.block, args, filename=spec.file,
                         shared_mem=preset.shared_mem)
    assert spec.matches(result.args, expected), f"{entry} on preset {preset.name!r} differs from its reference"


@pytest.mark.parametrize("entry", EMULATABLE)
def test_every_emulatable_kernel_reports_work_and_memory_traffic(entry):
    spec = experiments.kernel(entry)
    preset = spec.smallest_preset
    result = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                         shared_mem=preset.shared_mem)
    assert result.metrics["inst_executed"] > 0
    assert result.metrics["gld_requests"] > 0
    assert 0 < result.metrics["warp_execution_efficiency"] <= 100
