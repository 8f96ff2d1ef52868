"""Ring and tree AllReduce, step by step on real data, and why busbw is the yardstick.

The chosen number of ranks each get a random float32 vector (from the seed); ring and tree
AllReduce are executed exactly on them (:mod:`gpulab.cluster.allreduce_steps`), and every step is
kept: which chunks moved on which link, the values sent, each rank's buffer and which ranks'
data each chunk already sums. The final vectors are checked against the plain sum.

For n = 2 … 16 the same algorithms are run again to count the bytes on each link, and a link
model (one port of B GB/s each way per rank, a step as long as its busiest port needs, no
latency) turns the counts into times: algbw = S/t falls as n grows, busbw = algbw·2(n−1)/n stays
at B for the ring. The counts are exact (emulated: executed, no time claimed); the bandwidths are
modelled.

Series: ``ring-busbw``, ``ring-algbw``, ``tree-busbw`` (GB/s against n, modelled),
``ring-link-bytes``, ``tree-link-bytes`` (bytes on the busiest link ÷ S against n, emulated), and
``ring-steps``, ``tree-steps`` (x = step, y = bytes moved in the step; each point's ``extra`` is the
step record of :func:`~gpulab.cluster.allreduce_steps.step_to_json`, the last one also the check).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab.catalogue import Message, Note, msg, render
from gpulab.cluster import allreduce_steps as ar
from gpulab.lab.base import (
    CheckedParams,
    Context,
    ExperimentGen,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    random_normal,
)
from gpulab.lab.declare import Lab
from gpulab.results import Point, Provenance, Result, Series

TITLE = render("experiment.allreduce-steps.title")
DESCRIPTION = render("experiment.allreduce-steps.description")

SWEEP_RANKS = tuple(range(2, 17))
# Link rates per direction: NVLink 4 on an H100 SXM is 900 GB/s in both directions together
# (resources/gpus.toml); PCIe Gen5 x16 about 63 GB/s each way; an InfiniBand NDR port 400 Gb/s.
LINK_PRESETS = (("NVLink", 450.0), ("PCIe", 63.0), ("InfiniBand", 50.0))
EMULATED_DEVICE = "numpy on this CPU"


@dataclass(frozen=True)
class Params(CheckedParams):
    ranks: int = param(4, min=2, max=16)
    chunk_elements: int = param(2, min=1, max=64)
    seed: int = param(0, min=0)
    link_gb_s: float = param(450.0, unit="GB/s", min=0.001, max=100_000.0, presets=LINK_PRESETS)


def rank_vectors(ranks: int, chunk_elements: int, seed: int) -> np.ndarray:
    """Each rank's float32 vector (one row per rank), ``ranks × chunk_elements`` values long."""
    return random_normal(np.random.default_rng(seed), (ranks, ranks * chunk_elements))


def describe(step: ar.Step, algorithm: str, total: int) -> Message:
    """What happens in ``step``, in words: the first message of a ring step (the others are alike),
    every sender and receiver of a tree step."""
    n = step.ranks
    if step.phase == "start":
        size = step.buffers[0].size * ar.BYTES_PER_VALUE
        return msg("allreduce.step.start", ranks=n, bytes=size, chunk=f"{size / n:.3g}")
    adds = step.phase in ar.ADDING_PHASES
    phase = msg(f"allreduce.phase.{step.phase}")
    first = step.transfers[0]
    if algorithm == "ring":
        key = "allreduce.step.ring-add" if adds else "allreduce.step.ring-copy"
        return msg(key, index=step.index, total=total, phase=phase, src=first.src, dst=first.dst,
                   chunk=first.chunks[0], bytes=first.bytes, count=len(step.transfers))  # fmt: skip
    key = "allreduce.step.tree-add" if adds else "allreduce.step.tree-copy"
    senders, receivers = [str(t.src) for t in step.transfers], [str(t.dst) for t in step.transfers]
    return msg(key, index=step.index, total=total, phase=phase, bytes=first.bytes, senders=senders,
               receivers=receivers)  # fmt: skip


def bytes_text(run: list[ar.Step], position: int) -> Message:
    """Bytes on the links in step ``position`` and up to it."""
    step = run[position]
    links = ar.link_bytes(step)
    so_far = ar.total_link_bytes(run[: position + 1])
    sent = ar.bytes_sent_per_rank(run[: position + 1])
    final = ar.bytes_sent_per_rank(run)
    message_bytes = run[0].buffers[0].size * ar.BYTES_PER_VALUE
    return msg("allreduce.bytes", links=len(links), per_link=max(links.values(), default=0),
               total=sum(links.values()), port=ar.busiest_port_bytes(step), all_links=sum(so_far.values()),
               sent=max(sent), final=max(final), factor=f"{max(final) / message_bytes:.3g}")  # fmt: skip


def verification_text(check: ar.Verification, ranks: int) -> Message:
    key = "allreduce.verified" if check.ok else "allreduce.not-verified"
    return msg(key, ranks=ranks, error=f"{check.max_abs_error:.2g}", bound=f"{check.bound:.2g}")


# ---------------------------------------------------------------- the series


def _series(key: str, provenance: Provenance, x_label: Message, y_label: Message, y_unit: str,
            points: list[Point]) -> Series:  # fmt: skip
    label = msg(f"series.allreduce.{key}")
    return Series(render(label), provenance, Note(x_label), "", Note(y_label), y_unit, tuple(points),
                  role="model" if provenance.kind == "modelled" else "emulated", key=key, label=label)  # fmt: skip


def _emulated(params: Params) -> Provenance:
    return Provenance("emulated", EMULATED_DEVICE, {"method": "executed exactly on float32 vectors",
                                                    "seed": params.seed})  # fmt: skip


def _modelled(params: Params) -> Provenance:
    return Provenance("modelled", f"link model, {params.link_gb_s:g} GB/s", {
        "model": "one port of B per rank each way; a step lasts its busiest port's bytes / B; no latency",
        "link_gb_s": params.link_gb_s})  # fmt: skip


def sweep_point(algorithm: str, n: int, params: Params) -> dict[str, float]:
    """Counted bytes and modelled bandwidths of ``algorithm`` on n ranks (S = n float32 values)."""
    run = ar.steps(algorithm, rank_vectors(n, 1, params.seed))
    message_bytes = n * ar.BYTES_PER_VALUE
    seconds = ar.model_seconds(run, params.link_gb_s * 1e9)
    algbw = ar.algbw(message_bytes, seconds) / 1e9
    return {"ranks": n, "algbw_gb_s": algbw, "busbw_gb_s": ar.busbw(algbw, n), "busbw_factor": ar.busbw_factor(n),
            "link_bytes_over_s": max(ar.total_link_bytes(run).values()) / message_bytes,
            "sent_bytes_over_s": max(ar.bytes_sent_per_rank(run)) / message_bytes, "steps": len(run) - 1,
            "link_gb_s": params.link_gb_s}  # fmt: skip


CHART = (
    ("ring-busbw", "ring", "busbw_gb_s"),
    ("ring-algbw", "ring", "algbw_gb_s"),
    ("tree-busbw", "tree", "busbw_gb_s"),
)
COUNTS = (("ring-link-bytes", "ring"), ("tree-link-bytes", "tree"))


def _sweep(params: Params, ctx: Context) -> Generator[Progress | PartialPoint, None, list[Series]]:
    """The n = 2 … 16 sweep: a chart point per curve as each n is done; returns the series."""
    chart: dict[str, list[Point]] = {key: [] for key, _alg, _y in CHART}
    counts: dict[str, list[Point]] = {key: [] for key, _alg in COUNTS}
    modelled, emulated = _modelled(params), _emulated(params)
    for i, n in enumerate(SWEEP_RANKS):
        ctx.check_cancelled()
        yield Progress(0.2 + 0.8 * i / len(SWEEP_RANKS), msg("progress.allreduce.sweep", ranks=n))
        facts = {alg: sweep_point(alg, n, params) for alg in ar.ALGORITHMS}
        for key, alg, y in CHART:
            point = Point(n, facts[alg][y], extra={**facts[alg], "chart": True})
            chart[key].append(point)
            yield PartialPoint(Note(msg(f"series.allreduce.{key}")), point, modelled)
        for key, alg in COUNTS:
            counts[key].append(Point(n, facts[alg]["link_bytes_over_s"], extra=facts[alg]))
    axis_n, axis_bw = msg("axis.allreduce.ranks"), msg("axis.bandwidth")
    series = [_series(key, modelled, axis_n, axis_bw, "GB/s", chart[key]) for key, _alg, _y in CHART]
    series += [_series(key, emulated, axis_n, msg("axis.allreduce.link-bytes"), "× S", counts[key])
               for key, _alg in COUNTS]  # fmt: skip
    return series


def _steps_series(algorithm: str, data: np.ndarray, params: Params) -> tuple[Series, ar.Verification]:
    run = ar.steps(algorithm, data)
    check = ar.verify(data, run[-1])
    total = len(run) - 1
    points = []
    for step in run:
        extra: dict[str, Any] = {**ar.step_to_json(step), "algorithm": algorithm, "total_steps": total}
        if step.index == total:
            extra["verification"] = {"max_abs_error": check.max_abs_error, "bound": check.bound,
                                     "ranks_agree": check.ranks_agree, "ok": check.ok}  # fmt: skip
        points.append(Point(step.index, sum(t.bytes for t in step.transfers), extra=extra))
    series = _series(f"{algorithm}-steps", _emulated(params), msg("axis.allreduce.step"),
                     msg("axis.allreduce.step-bytes"), "B", points)  # fmt: skip
    return series, check


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Both algorithms step by step on ``ranks`` vectors, then the n = 2 … 16 sweep."""
    data = rank_vectors(params.ranks, params.chunk_elements, params.seed)
    yield Progress(0.0, msg("progress.allreduce.steps", ranks=params.ranks))
    stepped, checks = [], []
    for algorithm in ar.ALGORITHMS:
        series, check = _steps_series(algorithm, data, params)
        stepped.append(series)
        checks.append(msg("allreduce.note.checked", algorithm=msg(f"allreduce.algorithm.{algorithm}"),
                          text=verification_text(check, params.ranks)))  # fmt: skip
    swept = yield from _sweep(params, ctx)
    yield Progress(1.0, msg("progress.done"))
    message_bytes = data.shape[1] * ar.BYTES_PER_VALUE
    notes = [*checks,
             msg("allreduce.note.ring", steps=ar.step_count("ring", params.ranks), chunk=message_bytes // params.ranks,
                 total=f"{ar.busbw_factor(params.ranks) * message_bytes:.4g}"),
             msg("allreduce.note.tree", steps=ar.step_count("tree", params.ranks), bytes=message_bytes),
             msg("allreduce.note.model", gb_s=f"{params.link_gb_s:g}"),
             msg("allreduce.note.busbw")]  # fmt: skip
    return Result("allreduce-steps", params_to_dict(params), (*swept, *stepped), tuple(notes))


LAB = Lab("allreduce-steps", section="cluster", order=30, page="allreduce-steps", quick=("ranks=4", "chunk_elements=2"))
