"""Alpha and beta fitted to a local AllReduce measurement: a saved ``collectives`` result.

The scaling lab's AllReduce curves stand on assumed link figures. When a learner has measured
AllReduce on this machine (the collectives lab, on CPU ranks or GPUs) and saved the result, the
lab fits ``t = 2(n-1)·alpha + 2(n-1)/n·S·beta`` (a ring over the measured ranks) to its points and
draws a ring of that link beside the assumed ones, saying what it was fitted to. The other way
round, :func:`model_reference` gives the collectives lab the model's curves for the GPUs an NCCL
result measured on, to draw beside the measurement.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpulab.catalogue import Message, msg
from gpulab.experiments import collectives
from gpulab.lab.base import ParamError, params_from_strings
from gpulab.model import cluster
from gpulab.results import Result, ResultFormatError, load
from gpulab.specs import load_specs


@dataclass(frozen=True)
class LocalFit:
    """The fitted link and what it was fitted to."""

    fit: cluster.AlphaBetaFit
    ranks: int
    points: int
    device: str
    path: str

    def note(self) -> Message:
        return msg("cluster-scaling.note.fitted", alpha=f"{self.fit.alpha_s * 1e6:.3g}", gb_s=f"{self.fit.gb_s:.3g}",
                   r2=f"{self.fit.r_squared:.3f}", points=self.points, ranks=self.ranks, device=self.device,
                   path=Path(self.path).name)  # fmt: skip


def _bad(path: str, why: Message | str) -> ParamError:
    return ParamError(msg("cluster-scaling.error.fit-from", path=path, why=why))


def _saved_ranks(path: str, value: object) -> int:
    """The file's rank count, checked as the collectives lab's own form checks it (a whole number
    within its limits): a file is not trusted to say 1e300 or 2.9 ranks."""
    if not isinstance(value, int) or isinstance(value, bool):  # JSON's 2.9 or 1e300: not a count of ranks
        raise _bad(path, msg("param.error.int", key="ranks", text=repr(value)[:40]))
    try:
        return int(params_from_strings(collectives.Params, {"ranks": str(value)}).ranks)
    except ParamError as exc:
        raise _bad(path, exc.message) from exc


def fit_to_saved(path: str) -> LocalFit:
    """Fit alpha and beta to the AllReduce points of the collectives result saved at ``path``.
    ParamError names the file and what is wrong with it (unreadable, another lab, no AllReduce)."""
    try:
        result = load(path)
    except ResultFormatError as exc:
        raise _bad(path, exc.message) from exc
    except OSError as exc:
        raise _bad(path, msg("result.problem.unreadable", reason=exc.strerror or str(exc))) from exc
    if result.experiment != "collectives":
        raise _bad(path, msg("cluster-scaling.error.fit-other-lab", lab=repr(result.experiment)))
    series = next((s for s in result.series if s.key.endswith("-allreduce") and len(s.points) >= 2), None)
    if series is None:
        raise _bad(path, msg("cluster-scaling.error.fit-no-allreduce"))
    ranks = _saved_ranks(path, result.params.get("ranks"))
    try:
        fit = cluster.fit_alpha_beta([p.x for p in series.points], [p.extra["seconds"] for p in series.points], ranks)
    except KeyError as exc:
        raise _bad(path, msg("cluster-scaling.error.fit-no-times")) from exc
    except ValueError as exc:  # the fit's own reason, a technical sentence quoted in the message
        raise _bad(path, msg("cluster-scaling.error.fit-refused", detail=str(exc))) from exc
    if fit.alpha_s < 0 or fit.beta_s_per_byte <= 0:  # a line that says sending costs nothing explains nothing
        raise _bad(path, msg("cluster-scaling.error.fit-no-growth"))
    return LocalFit(fit, ranks, len(series.points), series.provenance.device, path)


# ---------------------------------------------------------------- the model beside a measurement


@dataclass(frozen=True)
class ModelReference:
    """What the AllReduce model expects from the GPUs a collectives result measured on: for each
    algorithm NCCL has there, (message bytes, busbw GB/s) at the measured sizes; ``missing`` says why
    NVLink SHARP is not among them (None when it is)."""

    gpu: str
    ranks: int
    curves: dict[str, list[tuple[float, float]]]
    missing: Message | None


def model_reference(result: Result) -> ModelReference | None:
    """The model's ring (and NVLink SHARP where the GPUs have it) at the sizes an NCCL AllReduce was
    measured at, for the GPU the result names; None for CPU ranks or a GPU the spec table does not know."""
    series = next((s for s in result.series if s.key == "nccl-allreduce" and s.points), None)
    if series is None:
        return None
    devices = [str(d) for d in series.provenance.details.get("devices", ()) or ()]
    ranks = int(series.provenance.details.get("ranks", 0) or result.params.get("ranks", 0) or 0)
    spec = load_specs().match(devices[0]) if devices else None
    if spec is None or ranks < 2:
        return None
    fabric = cluster.fabric_for(spec)
    sizes = [float(p.x) for p in series.points]
    curves = {algorithm: [(size, cluster.bus_bandwidth_gb_s(ranks, size, cluster.allreduce_seconds(
        algorithm, ranks, size, fabric))) for size in sizes] for algorithm in ("ring", "nvls")
        if cluster.unavailable(algorithm, ranks, fabric) is None}  # fmt: skip
    return ModelReference(spec.name, ranks, curves, cluster.unavailable("nvls", ranks, fabric))
