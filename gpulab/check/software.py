"""Software checks: can this machine run GPU code at all, and if not, why in plain words.

The CUDA check reads the same probe the Devices page shows (:func:`gpulab.devices.probe_cuda`)
and turns each of its reasons into a verdict and an action: no NVIDIA driver or no CuPy on a
laptop is a skip (a CPU-only report is still useful) unless ``--require-gpu`` makes it a
failure; a driver older than the CUDA runtime ("insufficient driver"), a CuPy that cannot load
and a driver that sees no device are failures. NVRTC compiling a small kernel is checked
without a GPU; NCCL only matters with two or more GPUs, MPI only for fleet mode.
"""

from __future__ import annotations

from collections.abc import Generator

from gpulab.catalogue import Message, msg, plain

from .device import device_layer
from .model import Row, Verdict
from .registry import Context, register

# probe_cuda's reason codes -> (verdict without --require-gpu, action key)
_CUDA_VERDICTS = {
    "ok": (Verdict.PASS, None),
    "no-cupy": (Verdict.SKIP, None),  # the probe's reason already says what to install
    "no-driver": (Verdict.SKIP, "check.action.install-driver"),
    "old-driver": (Verdict.FAIL, "check.action.update-driver"),
    "no-device": (Verdict.FAIL, "check.action.no-device"),
    "cupy-broken": (Verdict.FAIL, "check.action.reinstall-cupy"),
    "error": (Verdict.FAIL, "check.action.see-reason"),
}

_KERNEL = 'extern "C" __global__ void check_add(const float* a, float* b, int n) {\n' \
          '    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) b[i] += a[i];\n}\n'


def cuda_status(ctx: Context):
    """The CUDA probe, once per run (the GPU checks read it too)."""
    if "cuda" not in ctx.shared:
        devices = ctx.devices
        ctx.shared["cuda"] = devices.status() if devices is not None else _probe()
    return ctx.shared["cuda"]


def _probe():
    from gpulab.devices import probe_cuda

    return probe_cuda()


@register("software.cuda")
def check_cuda(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.software.cuda.title"))
    status = cuda_status(ctx)
    verdict, action = _CUDA_VERDICTS.get(status.reason_code, (Verdict.FAIL, "check.action.see-reason"))
    if verdict is Verdict.SKIP and ctx.require_gpu:
        verdict = Verdict.FAIL
    reason = status.reason_message or plain(status.reason)
    if status.available:
        names = ", ".join(gpu.name for gpu in status.devices)
        reason = msg("check.software.cuda.ok", count=len(status.devices), names=names,
                     runtime=status.cuda_runtime_version or "?", driver=status.cuda_driver_version or "?")
    facts = {"reason_code": status.reason_code, "cupy": status.cupy_version,
             "cuda_runtime": status.cuda_runtime_version, "cuda_driver": status.cuda_driver_version}
    return [Row("software.cuda", verdict, reason, msg(action) if action else None,
                value=float(len(status.devices)), unit="GPUs", device="host", facts=facts)]


@register("software.nvrtc")
def check_nvrtc(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.software.nvrtc.title"))
    from gpulab import nvrtc

    try:
        ptx, log = nvrtc.compile_ptx(_KERNEL, "check_add.cu")
    except nvrtc.NvrtcUnavailable as exc:  # no NVRTC library: only GPU work needs it
        verdict = Verdict.FAIL if ctx.require_gpu else Verdict.SKIP
        return [Row("software.nvrtc", verdict, msg("check.software.nvrtc.missing", detail=str(exc)),
                    msg("check.action.install-cupy"), device="host")]
    except Exception as exc:  # a library that loads but cannot compile a 4-line kernel
        return [Row("software.nvrtc", Verdict.FAIL, msg("check.software.nvrtc.failed", detail=str(exc)[:300]),
                    msg("check.action.reinstall-cupy"), device="host")]
    return [Row("software.nvrtc", Verdict.PASS, msg("check.software.nvrtc.ok", lines=ptx.count("\n")),
                device="host", facts={"log": log[:200]} if log else {})]


@register("software.mpi")
def check_mpi(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.software.mpi.title"))
    try:
        from mpi4py import MPI
    except Exception as exc:  # not installed, or an MPI library that does not load
        return [Row("software.mpi", Verdict.SKIP, msg("check.software.mpi.missing", detail=str(exc)[:200]),
                    msg("check.action.install-mpi"), device="host")]
    version = MPI.Get_library_version().strip().splitlines()[0].split(",")[0][:80]
    return [Row("software.mpi", Verdict.PASS, msg("check.software.mpi.ok", library=version), device="host")]


@register("software.nccl")
def check_nccl(ctx: Context) -> Generator[Message, None, list[Row]]:
    """NCCL matters only where two or more GPUs can talk: with fewer it is a skip that says so."""
    yield msg("check.progress.looking", what=msg("check.software.nccl.title"))
    from gpulab.cluster.nccl_backend import NCCL_INSTALL_HINT

    gpus = len(cuda_status(ctx).devices)
    if gpus < 2:
        return [Row("software.nccl", Verdict.SKIP, msg("collectives.reason.one-gpu", gpus=gpus), device="host")]
    if not device_layer(ctx).nccl_available():  # through the layer, so a test double can lack NCCL
        return [Row("software.nccl", Verdict.FAIL, msg("collectives.reason.no-nccl", command=NCCL_INSTALL_HINT),
                    msg("check.action.install-nccl", command=NCCL_INSTALL_HINT), device="host")]
    return [Row("software.nccl", Verdict.PASS, msg("check.software.nccl.ok", gpus=gpus, version=_nccl_version()),
                device="host")]


def _nccl_version() -> str:
    """NCCL's version as CuPy reports it (e.g. 22105 for 2.21.5), or "?"."""
    try:
        from cupy.cuda import nccl

        return str(nccl.get_version())
    except Exception:  # no CuPy or no NCCL in it (a test double's machine), or an older CuPy
        return "?"
