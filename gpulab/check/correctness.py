"""Correctness checks: does the GPU compute and remember what it is told, and does the emulator?

- ``emulator.kernels`` (CPU, every mode): every lab kernel in the SIMT emulator against its numpy
  reference. The labs explain the GPU with the emulator's results; this says they are right on
  this machine (its numpy, its Python).
- ``gpu.memtest``: a device memory pattern test (:mod:`gpulab.check.device_memtest`: walking
  ones, random, own address) over a share of the free memory (``[gpu.memtest]`` in the
  thresholds). One word read back wrong fails, with the count, the pattern and the first
  addresses; a failed allocation or kernel fails naming it.
- ``gpu.kernels``: the lab kernels on each GPU against numpy and against the emulator, each under
  its own tolerance (``KernelSpec.rtol/atol``, integers bit for bit). Quick runs a few
  (``[gpu.kernels] quick_kernels``); full runs all, and each also at its largest preset against numpy.

The GPU checks talk to the GPU through the device layer (``GpuView.memtest``/``run_kernel``),
so tests inject faults; without a GPU they give the one shared "no GPU" row
(:func:`gpulab.check.gpu_health._targets`).
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab.catalogue import Message, msg
from gpulab.lab.base import Cancelled

from .device import GpuView
from .device_memtest import MemtestError, MemtestResult
from .gpu_health import device_name, error_text, gpu_row, nvidia_smi_id, targets
from .model import Row, Verdict
from .registry import Context, register, threshold

# ------------------------------------------------------------------ comparing a kernel's outputs

_AGAINST = {"numpy": "check.kernels.against-numpy", "emulator": "check.kernels.against-emulator"}


@dataclass(frozen=True)
class Difference:
    """One way a kernel run differed: an output outside tolerance, or an error that stopped it."""

    kernel: str
    against: str = ""  # "numpy" or "emulator"; "" for an error
    argument: int = -1
    max_error: float = 0.0  # |got - want| where the output is farthest outside its tolerance
    tolerance: float = 0.0  # atol + rtol * |want| there (0 for integers: bit for bit)
    error: str = ""

    def message(self) -> Message:
        if self.error:
            return msg("check.kernels.diff-error", kernel=self.kernel, error=self.error)
        return msg("check.kernels.diff-value", kernel=self.kernel, against=msg(_AGAINST[self.against]),
                   argument=self.argument, error=f"{self.max_error:.3g}", tolerance=f"{self.tolerance:.3g}")


def worst_element(got: Any, want: np.ndarray, rtol: float, atol: float) -> tuple[float, float]:
    """``(|got - want|, tolerance)`` at the element farthest outside its tolerance (``allclose``'s
    rule: ``atol + rtol * |want|``; 0 for integers). A wrong shape or a NaN is an infinite error."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return float("inf"), 0.0
    wanted = want.astype(np.float64)
    error = np.abs(got.astype(np.float64) - wanted)
    error = np.where(np.isnan(error), np.inf, error)
    allowed = atol + rtol * np.abs(wanted) if np.issubdtype(want.dtype, np.floating) else np.zeros_like(wanted)
    if error.size == 0:
        return 0.0, 0.0
    worst = int(np.argmax(error - allowed))
    return float(error.flat[worst]), float(allowed.flat[worst])


def compare_outputs(kernel: str, spec: Any, got: Sequence[Any], want: Mapping[int, np.ndarray],
                    against: str) -> list[Difference]:
    """The outputs of ``got`` that :func:`gpulab.kernels.outputs_match` rejects, with their worst error."""
    from gpulab.kernels import outputs_match

    found = []
    for index, expected in want.items():
        if not outputs_match(got[index], expected, spec.rtol, spec.atol):
            error, tolerance = worst_element(got[index], expected, spec.rtol, spec.atol)
            found.append(Difference(kernel, against, index, error, tolerance))
    return found


def _preset(spec: Any, name: str) -> Any:
    """The preset called ``name``, or the smallest (as the GPU smoke run's comparison picks)."""
    return next((p for p in spec.presets if p.name == name), spec.smallest_preset)


def _lab_kernels(names: Sequence[str] | None = None) -> list[Any]:
    from gpulab import experiments

    table = experiments.kernel_catalogue()
    return [table[name] for name in sorted(table) if names is None or name in names]


@dataclass(frozen=True)
class Emulated:
    args: list[Any]  # as the emulated kernel left them
    expected: dict[int, np.ndarray]  # the numpy reference's outputs for the same inputs
    error: str = ""  # the emulator could not run it


def emulated(ctx: Context, spec: Any, preset: Any) -> Emulated:
    """``spec`` at ``preset`` in the emulator with its numpy reference, once per run (both checks use it)."""
    from gpulab import simt

    cache = ctx.shared.setdefault("kernels.emulated", {})
    key = (spec.entry, preset.name)
    if key not in cache:
        args = spec.build_args(preset)
        expected = spec.expected(args)
        try:
            simt.launch(spec.source, spec.entry, preset.grid, preset.block, args, filename=spec.file,
                        shared_mem=preset.shared_mem)
            cache[key] = Emulated(args, expected)
        except Exception as exc:  # a construct this emulator rejects, a fault: the kernel disagrees
            cache[key] = Emulated(args, expected, error_text(exc))
    return cache[key]


def _kernel_list(differences: Sequence[Difference]) -> list[Message]:
    return [d.message() for d in differences]


# ------------------------------------------------------------------ emulator.kernels


@register("emulator.kernels")
def check_emulator_kernels(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.emulator.kernels.title"))
    preset_name = str(threshold("gpu.kernels")["preset"])
    specs = [spec for spec in _lab_kernels() if not spec.gpu_only]
    differences: list[Difference] = []
    for spec in specs:
        if ctx.check_cancelled is not None:
            ctx.check_cancelled()
        run = emulated(ctx, spec, _preset(spec, preset_name))
        if run.error:
            differences.append(Difference(spec.entry, error=run.error))
        else:
            differences += compare_outputs(spec.entry, spec, run.args, run.expected, "numpy")
    bad = sorted({d.kernel for d in differences})
    facts = {"kernels": len(specs), "disagree": bad, "preset": preset_name}
    fields: dict[str, Any] = {"value": float(len(specs) - len(bad)), "unit": "kernels", "threshold": float(len(specs)),
                              "comparison": ">=", "source": "gpu.kernels", "device": "cpu", "facts": facts}
    if differences:
        return [Row("emulator.kernels", Verdict.FAIL,
                    msg("check.emulator.kernels.differ", bad=len(bad), count=len(specs),
                        kernels=_kernel_list(differences)),
                    msg("check.emulator.kernels.action"), **fields)]
    return [Row("emulator.kernels", Verdict.PASS,
                msg("check.emulator.kernels.ok", count=len(specs), preset=preset_name), **fields)]


# ------------------------------------------------------------------ gpu.memtest


def _gib(count: int) -> str:
    return f"{count / 2**30:.2f} GiB"


_PATTERN_NAMES = {"walking_ones": "check.gpu.memtest.pattern-walking-ones",
                  "random": "check.gpu.memtest.pattern-random", "address": "check.gpu.memtest.pattern-address"}
# MemtestError.stage -> (reason, action)
_STAGES = {"allocate": ("check.gpu.memtest.no-memory", "check.gpu.memtest.action-no-memory"),
           "kernel": ("check.gpu.memtest.kernel-error", "check.gpu.memtest.action-kernel-error")}


def _pattern_name(pattern: str) -> Message:
    return msg(_PATTERN_NAMES[pattern])


def judge_memtest(gpu: GpuView, result: MemtestResult, share: float) -> Row:
    allowed = int(threshold("gpu.memtest")["fail_above_mismatches"])
    facts = {"tested_bytes": result.tested_bytes, "free_bytes": result.free_bytes, "seed": result.seed,
             "base_address": f"{result.base_address:#x}", "seconds": round(result.seconds, 3),
             "mismatches": {p.pattern: p.mismatches for p in result.patterns},
             "first_bad": [{"pattern": p.pattern, "address": f"{b.address:#x}", "got": f"{b.got:#018x}",
                            "want": f"{b.want:#018x}"} for p in result.patterns for b in p.bad]}
    fields: dict[str, Any] = {"value": float(result.mismatches), "unit": "bad words", "threshold": float(allowed),
                              "comparison": "<=", "source": "gpu.memtest", "facts": facts}
    tested = _gib(result.tested_bytes)
    if result.mismatches > allowed:
        found = [msg("check.gpu.memtest.pattern-bad", pattern=_pattern_name(p.pattern), count=p.mismatches,
                     addresses=", ".join(f"{b.address:#x}" for b in p.bad[:3]))
                 for p in result.patterns if p.mismatches]
        return gpu_row("gpu.memtest", gpu, Verdict.FAIL,
                       msg("check.gpu.memtest.mismatch", count=result.mismatches, tested=tested, found=found),
                       action=msg("check.gpu.memtest.action-mismatch", index=gpu.index, gpu=nvidia_smi_id(gpu)),
                       **fields)
    return gpu_row("gpu.memtest", gpu, Verdict.PASS,
                   msg("check.gpu.memtest.ok", tested=tested, share=f"{share:.0%}", free=_gib(result.free_bytes),
                       patterns=[_pattern_name(p.pattern) for p in result.patterns], seconds=f"{result.seconds:.1f}"),
                **fields)


def _memtest_failed(gpu: GpuView, error: MemtestError) -> Row:
    """No memory to test, or a kernel that failed: a failure naming it, never a pass."""
    reason, action = _STAGES.get(error.stage, _STAGES["kernel"])
    return gpu_row("gpu.memtest", gpu, Verdict.FAIL, msg(reason, index=gpu.index, error=error.error),
                   action=msg(action, gpu=nvidia_smi_id(gpu)), source="gpu.memtest",
                   facts={"error": error.error, "stage": error.stage})


def _broken(check_id: str, gpu: GpuView, exc: BaseException) -> Row:
    error = error_text(exc)
    return Row(check_id, Verdict.FAIL, msg("check.gpu.broken", index=gpu.index, error=error),
               msg("check.gpu.action.broken", gpu=nvidia_smi_id(gpu)), device=device_name(gpu),
               facts={"model": gpu.name, "error": error})


@register("gpu.memtest")
def check_memtest(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.gpu.memtest.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    plan = threshold("gpu.memtest")
    mode = "full" if ctx.full else "quick"
    share, cap = float(plan[f"{mode}_share_of_free"]), int(plan[f"{mode}_cap_bytes"])
    seed = random.getrandbits(32)  # a new random pattern each run; the row records it
    rows = []
    for gpu in gpus:
        yield msg("check.gpu.memtest.progress", index=gpu.index, share=f"{share:.0%}")
        try:
            result = gpu.memtest(share, cap, seed, ctx.check_cancelled)
        except MemtestError as exc:
            rows.append(_memtest_failed(gpu, exc))
            continue
        except Cancelled:
            raise
        except Exception as exc:  # no CuPy, a driver that errors: never a pass
            rows.append(_broken("gpu.memtest", gpu, exc))
            continue
        rows.append(judge_memtest(gpu, result, share))
    return rows


# ------------------------------------------------------------------ gpu.kernels


def _on_gpu(ctx: Context, gpu: GpuView, spec: Any, preset: Any, with_emulator: bool) -> list[Difference]:
    """``spec`` at ``preset`` on ``gpu``, compared with numpy and (``with_emulator``) the emulator."""
    args = spec.build_args(preset)
    expected = spec.expected(args)
    try:
        got = gpu.run_kernel(spec, preset, args)
    except Exception as exc:  # a kernel that does not compile or faults on this GPU
        return [Difference(spec.entry, error=error_text(exc))]
    differences = compare_outputs(spec.entry, spec, got, expected, "numpy")
    if with_emulator and not spec.gpu_only:
        run = emulated(ctx, spec, preset)
        if not run.error:  # the emulator's own failure is emulator.kernels' row, not this GPU's
            differences += compare_outputs(spec.entry, spec, got, {i: run.args[i] for i in expected}, "emulator")
    return differences


def judge_kernels(gpu: GpuView, count: int, differences: Sequence[Difference], preset: str) -> Row:
    bad = sorted({d.kernel for d in differences})
    facts = {"kernels": count, "disagree": bad, "preset": preset,
             "differences": [{"kernel": d.kernel, "against": d.against, "argument": d.argument,
                              "max_error": d.max_error, "tolerance": d.tolerance, "error": d.error}
                             for d in differences]}
    fields: dict[str, Any] = {"value": float(count - len(bad)), "unit": "kernels", "threshold": float(count),
                              "comparison": ">=", "source": "gpu.kernels", "facts": facts}
    if differences:
        return gpu_row("gpu.kernels", gpu, Verdict.FAIL,
                       msg("check.gpu.kernels.differ", agreed=count - len(bad), count=count, index=gpu.index,
                           kernels=_kernel_list(differences)),
                    action=msg("check.gpu.kernels.action"), **fields)
    return gpu_row("gpu.kernels", gpu, Verdict.PASS,
                   msg("check.gpu.kernels.ok", count=count, index=gpu.index, preset=preset), **fields)


@register("gpu.kernels")
def check_gpu_kernels(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.gpu.kernels.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    plan = threshold("gpu.kernels")
    preset_name = str(plan["preset"])
    specs = _lab_kernels(None if ctx.full else list(plan["quick_kernels"]))
    rows = []
    for gpu in gpus:
        yield msg("check.gpu.kernels.progress", index=gpu.index, count=len(specs))
        differences: list[Difference] = []
        try:
            for spec in specs:
                if ctx.check_cancelled is not None:
                    ctx.check_cancelled()
                preset = _preset(spec, preset_name)
                differences += _on_gpu(ctx, gpu, spec, preset, with_emulator=True)
                largest = max(spec.presets, key=lambda p: p.threads)
                if ctx.full and largest.name != preset.name:  # on the GPU only: the emulator would take minutes
                    differences += _on_gpu(ctx, gpu, spec, largest, with_emulator=False)
        except Cancelled:
            raise
        except Exception as exc:  # a reference or comparison that broke: this GPU is not judged, never passed
            rows.append(_broken("gpu.kernels", gpu, exc))
            continue
        rows.append(judge_kernels(gpu, len(specs), differences, preset_name))
    return rows
