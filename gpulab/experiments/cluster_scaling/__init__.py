"""Scaling to 16,384 GPUs: AllReduce cost, a 3D-parallelism planner and failures, all modelled.

Nothing here is measured: every number comes from a stated formula and spec-sheet figures
(:mod:`gpulab.model.cluster`, :mod:`gpulab.model.parallelism`, :mod:`gpulab.model.reliability`),
and every assumption is a note of the result. Series (all ``modelled``, role ``model``):

- ``allreduce-<algorithm>``: x GPUs, y milliseconds for one AllReduce of ``message_bytes``;
  each point's ``extra`` holds the seconds and the nccl-tests bus bandwidth;
- ``efficiency``: x GPUs, y % scaling efficiency of the best plan that fits, against the ideal step
  at that GPU count (only the model's FLOPs at the planner's kernel rate: no bubble, no exposed
  communication, no recomputation); its DP/TP/PP, step time and MFU in ``extra``; a GPU count where
  no plan fits has no point;
- ``goodput``: x GPUs, y % of wall time that advances training, checkpointing at Young's interval;
- ``plans``: the planner's table at ``gpus`` GPUs, x its row (1, 2, ...), y memory per GPU in
  GB, ``extra`` holding DP, TP, PP, memory by kind, fits, problems, bubble, step time, efficiency.

:func:`figures` computes all of it from a Params in milliseconds, so a panel can redraw it live.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpulab.catalogue import Message, Note, msg, render, to_json
from gpulab.experiments.cluster_scaling.fit import LocalFit, fit_to_saved
from gpulab.lab.base import (
    CheckedParams,
    Context,
    ExperimentGen,
    ParamError,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    resolve_model_gpu,
)
from gpulab.lab.declare import Lab
from gpulab.model import cluster, parallelism, reliability
from gpulab.results import Point, Provenance, Result, Series, merge_notes

TITLE = render("experiment.cluster-scaling.title")
DESCRIPTION = render("experiment.cluster-scaling.description")

MAX_GPUS = 16384
LLAMA3_INTERLEAVE = 8
"""Interleaved stages a GPU for Llama 3 405B. The paper gives V only through its pipeline balance
(§3.3.2): one layer fewer on the first and last stages "means that the first model chunk on the first
stage has only the embedding", so a model chunk holds one layer and 126 layers + embedding + output
head make 128 chunks on 16 pipeline ranks: 8 a rank."""
LLAMA3_CHECKPOINT_SECONDS = float(round(reliability.LLAMA3_CHECKPOINT_SECONDS))  # 2.8 s, on the slider's 3 s step
GPU_COUNTS = tuple(2**i for i in range(3, 15))  # 8 ... 16,384
GPU_COUNT_PRESETS = (("8 to 16,384", GPU_COUNTS), ("8 to 1,024", GPU_COUNTS[:8]), ("1 to 16,384", (1, *GPU_COUNTS)))


@dataclass(frozen=True)
class Params(CheckedParams):
    model: str = param("llama3-405b", choices=tuple(parallelism.MODELS))
    model_gpu: str = param("h100-sxm")
    gpus: int = param(MAX_GPUS, min=1, max=MAX_GPUS)
    gpu_counts: tuple[int, ...] = param(GPU_COUNTS, min=1, max=MAX_GPUS, presets=GPU_COUNT_PRESETS)
    algorithms: tuple[str, ...] = param(cluster.ALGORITHMS, choices=cluster.ALGORITHMS)
    message_bytes: int = param(1 << 28, unit="B", min=1, max=1 << 36)
    # Meta's settings for Llama 3 405B (arXiv:2407.21783 §3.3.2): FSDP sharding optimizer state and
    # gradients (ZeRO stage 2), no activation checkpointing (the model's "selective"), 8 interleaved
    # stages a GPU (see LLAMA3_INTERLEAVE), DP and PP transfers under the compute.
    zero_stage: int = param(2, choices=(0, 1, 2, 3))
    recompute: str = param("selective", choices=parallelism.RECOMPUTE_CHOICES)
    interleave: int = param(LLAMA3_INTERLEAVE, min=1, max=16)
    overlap: bool = param(True)
    dp: int = param(0, min=0, max=MAX_GPUS)
    tp: int = param(0, min=0, max=64)
    pp: int = param(0, min=0, max=1024)
    failures_per_gpu_year: float = param(reliability.LLAMA3_FAILURES_PER_GPU_YEAR, min=0.0, max=100.0)
    checkpoint_seconds: float = param(LLAMA3_CHECKPOINT_SECONDS, unit="s", min=0.1, max=86400.0)
    restart_seconds: float = param(300.0, unit="s", min=0.0, max=86400.0)
    fit_from: str = param("")  # a saved collectives result: alpha and beta fitted to its AllReduce

    def __post_init__(self) -> None:
        super().__post_init__()
        problem = explicit_layout_problem(self)
        if problem is not None:
            raise ParamError(problem)

    @property
    def shape(self) -> parallelism.ModelShape:
        return parallelism.MODELS[self.model]

    @property
    def training(self) -> parallelism.Training:
        return parallelism.Training(self.zero_stage, self.recompute, 1, self.interleave, self.overlap)


def explicit_layout_problem(params: Params) -> Message | None:
    """What is wrong with a DP, TP or PP the user fixed (0 = let the planner try them all), or None."""
    shape = params.shape
    if params.tp and shape.heads % params.tp:
        return msg("cluster-scaling.problem.heads", tp=params.tp, heads=shape.heads)
    if params.pp > shape.layers:
        return msg("cluster-scaling.problem.layers", pp=params.pp, layers=shape.layers)
    if params.dp and shape.global_batch % params.dp:
        return msg("cluster-scaling.problem.batch", batch=shape.global_batch, dp=params.dp, micro=1)
    if params.dp and params.tp and params.pp and params.dp * params.tp * params.pp != params.gpus:
        return msg("cluster-scaling.problem.product", dp=params.dp, tp=params.tp, pp=params.pp,
                   product=params.dp * params.tp * params.pp, gpus=params.gpus)  # fmt: skip
    if (params.dp or params.tp or params.pp) and not parallelism.layouts(params.gpus, params.dp, params.tp, params.pp):
        return msg("cluster-scaling.error.no-layout", gpus=params.gpus, dp=params.dp or "*", tp=params.tp or "*",
                   pp=params.pp or "*")  # fmt: skip
    return None


@dataclass(frozen=True)
class Figures:
    """Everything the lab shows, computed from one Params."""

    spec: Any
    fabric: cluster.Fabric
    allreduce: dict[str, list[tuple[int, float]]]  # algorithm -> (GPUs, seconds)
    scaling: list[tuple[int, parallelism.Plan | None]]
    failures: list[reliability.Reliability]  # at each GPU count
    plans: list[parallelism.Plan]
    here: reliability.Reliability
    llama3_model_per_day: float


def figures(params: Params) -> Figures:
    """The AllReduce curves, the best plan and the reliability at each GPU count, and the planner's
    table and reliability at ``params.gpus``."""
    spec = resolve_model_gpu(params.model_gpu)
    fabric = cluster.fabric_for(spec)
    counts = sorted(set(params.gpu_counts))
    allreduce = allreduce_curves(params.algorithms, counts, params.message_bytes, fabric)
    scaling = parallelism.scaling(params.shape, counts, spec, fabric, params.training)
    failures = (params.failures_per_gpu_year, params.checkpoint_seconds, params.restart_seconds)
    plans = parallelism.plan_all(params.shape, params.gpus, spec, fabric, params.training,
                                 params.dp, params.tp, params.pp)  # fmt: skip
    llama3_per_day = reliability.interruptions_per_day(reliability.LLAMA3.gpus, params.failures_per_gpu_year)
    return Figures(spec, fabric, allreduce, scaling, [reliability.reliability(n, *failures) for n in counts], plans,
                   reliability.reliability(params.gpus, *failures), llama3_per_day)


def allreduce_curves(algorithms: tuple[str, ...], counts: list[int], message_bytes: int,
                     fabric: cluster.Fabric) -> dict[str, list[tuple[int, float]]]:  # fmt: skip
    """(GPUs, seconds) of each algorithm at the GPU counts where it can run (NVLS: inside one NVSwitch node)."""
    return {algorithm: [(n, cluster.allreduce_seconds(algorithm, n, message_bytes, fabric)) for n in counts
                        if cluster.unavailable(algorithm, n, fabric) is None] for algorithm in algorithms}  # fmt: skip


# ---------------------------------------------------------------- points and series


def plan_reasons(plan: parallelism.Plan, spec: Any) -> list[Message]:
    """Why a plan cannot run: its layout's problems, and its memory when it does not fit."""
    reasons = list(plan.problems)
    if not plan.fits:
        usable_gb = spec.memory_gb * parallelism.USABLE_MEMORY_SHARE
        reasons.append(msg("cluster-scaling.problem.memory", memory=f"{plan.memory.total / 1e9:.0f}",
                           usable=f"{usable_gb:.0f}"))  # fmt: skip
    return reasons


def plan_extra(plan: parallelism.Plan, spec: Any) -> dict[str, Any]:
    """A plan as a point's facts (JSON-ready); ``reasons`` says why it cannot run (empty when it can)."""
    layout, memory = plan.layout, plan.memory
    return {"dp": layout.dp, "tp": layout.tp, "pp": layout.pp, "memory_gb": memory.total / 1e9,
            "weights_gb": memory.weights / 1e9, "gradients_gb": memory.gradients / 1e9,
            "optimizer_gb": memory.optimizer / 1e9, "activations_gb": memory.activations / 1e9,
            "fits": plan.fits, "usable": plan.usable, "reasons": [to_json(r) for r in plan_reasons(plan, spec)],
            "microbatches": plan.microbatches, "bubble": plan.bubble, "step_seconds": plan.step_s,
            "compute_seconds": plan.compute_s, "tp_comm_seconds": plan.tp_comm_s, "pp_comm_seconds": plan.pp_comm_s,
            "dp_comm_seconds": plan.dp_comm_s, "pp_exposed_seconds": plan.pp_exposed_s,
            "dp_exposed_seconds": plan.dp_exposed_s, "interleave": plan.interleave, "efficiency": plan.efficiency,
            "mfu": plan.mfu}  # fmt: skip


ALLREDUCE_LABELS = {"ring": "series.cluster-scaling.allreduce-ring", "tree": "series.cluster-scaling.allreduce-tree",
                    "hierarchical": "series.cluster-scaling.allreduce-hierarchical",
                    "nvls": "series.cluster-scaling.allreduce-nvls"}  # fmt: skip


def _series(key: str, label: Message, y_axis: str, y_unit: str, provenance: Provenance,
            points: list[Point], x_axis: str = "axis.cluster.gpus") -> Series:  # fmt: skip
    return Series(render(label), provenance, Note(msg(x_axis)), "", Note(msg(y_axis)), y_unit, tuple(points),
                  role="model", key=key, label=label)  # fmt: skip


def build_series(figs: Figures, params: Params, provenance: Provenance) -> list[Series]:
    """The result's series, in the order the module docstring lists them."""
    series = []
    for algorithm, rows in figs.allreduce.items():
        points = [Point(n, seconds * 1e3, extra={"seconds": seconds, "algorithm": algorithm,
                                                 "busbw_gb_s": cluster.bus_bandwidth_gb_s(n, params.message_bytes,
                                                                                          seconds)})
                  for n, seconds in rows]  # fmt: skip
        label = msg(ALLREDUCE_LABELS[algorithm])
        series.append(_series(f"allreduce-{algorithm}", label, "axis.cluster.allreduce-time", "ms", provenance,
                              points))  # fmt: skip
    efficiency = [Point(n, plan.efficiency * 100, extra=plan_extra(plan, figs.spec))
                  for n, plan in figs.scaling if plan]
    label = msg("series.cluster-scaling.efficiency", share=f"{parallelism.COMPUTE_SHARE:.0%}")
    series.append(_series("efficiency", label, "axis.cluster.percent-of-ideal", "%", provenance, efficiency))
    goodput = [Point(r.gpus, r.goodput * 100, extra={"interruptions_per_day": r.interruptions_per_day,
                                                     "mtbf_seconds": r.mtbf_s, "interval_seconds": r.interval_s})
               for r in figs.failures]  # fmt: skip
    series.append(_series("goodput", msg("series.cluster-scaling.goodput"), "axis.cluster.percent", "%",
                          provenance, goodput))  # fmt: skip
    plans = [Point(i + 1, plan.memory.total / 1e9, extra=plan_extra(plan, figs.spec))
             for i, plan in enumerate(figs.plans)]
    series.append(_series("plans", msg("series.cluster-scaling.plans", gpus=params.gpus), "axis.cluster.memory",
                          "GB", provenance, plans, "axis.cluster.plan"))  # fmt: skip
    return series


# ---------------------------------------------------------------- notes


def reliability_notes(figs: Figures, params: Params) -> list[Message]:
    """Interruptions, MTBF, Young's interval and goodput at ``gpus``; Meta's figures beside the model's."""
    here, paper = figs.here, reliability.LLAMA3
    notes = [msg("cluster-scaling.note.reliability", gpus=params.gpus, per_day=f"{here.interruptions_per_day:.1f}",
                 mtbf_h=f"{here.mtbf_s / 3600:.1f}", interval_min=f"{here.interval_s / 60:.0f}",
                 checkpoint=f"{params.checkpoint_seconds:g}", goodput=f"{here.goodput * 100:.0f}")]  # fmt: skip
    notes.append(msg("cluster-scaling.note.llama3", model=f"{figs.llama3_model_per_day:.1f}",
                     rate=f"{params.failures_per_gpu_year:g}", paper=f"{paper.interruptions_per_day:.1f}",
                     unexpected=f"{paper.unexpected_per_day:.1f}", total=paper.interruptions,
                     unexpected_count=paper.unexpected, days=paper.days, gpus=paper.gpus))  # fmt: skip
    notes.append(msg("cluster-scaling.note.llama3-gpus"))
    return notes


def planner_notes(figs: Figures, params: Params) -> list[Message]:
    best = parallelism.best_plan(figs.plans)
    notes: list[Message] = []
    if best is None:
        notes.append(msg("cluster-scaling.note.nothing-fits", gpus=params.gpus))
    else:
        layout = best.layout
        notes.append(msg("cluster-scaling.note.best-plan", gpus=params.gpus, dp=layout.dp, tp=layout.tp, pp=layout.pp,
                         step=f"{best.step_s:.1f}", efficiency=f"{best.efficiency * 100:.0f}",
                         memory=f"{best.memory.total / 1e9:.0f}"))  # fmt: skip
    for note in (parallelism.departure(params.shape, params.gpus, figs.plans),
                 parallelism.published_check(params.shape, params.gpus, figs.plans, figs.spec.key)):  # fmt: skip
        if note is not None:
            notes.append(note)
    if params.model == "llama3-405b":
        notes.append(msg("cluster-scaling.note.llama3-layout"))
    notes.append(msg("cluster-scaling.note.efficiency", share=f"{parallelism.COMPUTE_SHARE:.0%}"))
    return notes


def measurement_note(local: LocalFit | None) -> Message:
    """Whether alpha and beta were fitted to a local measurement, and to which."""
    return local.note() if local is not None else msg("cluster-scaling.note.no-fit")


def fitted_series(local: LocalFit, params: Params) -> Series:
    """A ring over the GPU counts on the link fitted to this machine's AllReduce (modelled from a measurement)."""
    rows = [(n, cluster.ring_allreduce_seconds(n, params.message_bytes, local.fit.link))
            for n in sorted(set(params.gpu_counts)) if n >= 2]  # fmt: skip
    size = params.message_bytes
    points = [Point(n, seconds * 1e3, extra={"seconds": seconds, "algorithm": "ring-fitted",
                                             "busbw_gb_s": cluster.bus_bandwidth_gb_s(n, size, seconds)})
              for n, seconds in rows]  # fmt: skip
    provenance = Provenance("modelled", local.device, {"fitted_to": local.path, "alpha_s": local.fit.alpha_s,
                                                       "beta_s_per_byte": local.fit.beta_s_per_byte,
                                                       "r_squared": local.fit.r_squared})  # fmt: skip
    return _series("allreduce-ring-fitted", msg("series.cluster-scaling.ring-fitted", device=local.device),
                   "axis.cluster.allreduce-time", "ms", provenance, points)  # fmt: skip


def all_notes(figs: Figures, params: Params, local: LocalFit | None = None) -> tuple[Note, ...]:
    assumptions = (*cluster.fabric_assumptions(figs.fabric, figs.spec.name),
                   *parallelism.planner_assumptions(params.shape, figs.spec, params.training))  # fmt: skip
    return merge_notes(planner_notes(figs, params), reliability_notes(figs, params), [measurement_note(local)],
                       assumptions, [msg("cluster-scaling.note.sources")])  # fmt: skip


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Model every figure (a few milliseconds) and yield each series' points so curves appear as usual."""
    yield Progress(0.0, msg("progress.cluster-scaling.modelling"))
    local = fit_to_saved(params.fit_from) if params.fit_from else None  # a bad file: ParamError naming it
    figs = figures(params)
    provenance = Provenance("modelled", figs.spec.name, {"model": "alpha-beta, 3D-parallelism planner, Young/Daly",
                                                         "spec_key": figs.spec.key})  # fmt: skip
    series = build_series(figs, params, provenance) + ([fitted_series(local, params)] if local else [])
    for s in series:
        ctx.check_cancelled()
        for point in s.points:
            yield PartialPoint(Note(s.label) if s.label is not None else s.name, point, provenance)
    yield Progress(1.0, msg("progress.done"))
    return Result("cluster-scaling", params_to_dict(params), tuple(series), all_notes(figs, params, local))


LAB = Lab("cluster-scaling", section="cluster", order=40, page="cluster-scaling",
          quick=("gpu_counts=8,1024,16384",))
