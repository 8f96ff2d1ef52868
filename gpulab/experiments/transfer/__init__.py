"""PCIe transfers, "the side door is tiny": host-to-GPU and GPU-to-host copies from pinned and
pageable memory, 4 KiB to 1 GiB, in GB/s against the link's theoretical rate; and "keep it on
the GPU": many small round trips against one batched copy of the same bytes.

Every series shares one pair of axes (bytes per copy, GB/s), so any plot of the result reads
right. Series, by key:

* ``h2d-pinned``, ``d2h-pageable``, ...  measured with CUDA events (role gpu), one per
  direction and memory kind; each point's ``percent_of_peak`` compares it with the link's
  theoretical rate in one direction (the link as NVML reads it, else the spec table).
* ``model-gen4-pinned``, ...  the transfer model (:func:`gpulab.model.transfer_time`) of a
  PCIe generation at x16 (role model), for every generation in ``model_gens`` when there is
  no GPU; with a GPU, ``model-link-pinned``/``-pageable`` model the link it sits on instead.
* ``model-both-h2d``, ``model-both-d2h``  pinned copies of the lesson's link (Gen4 without a GPU,
  the GPU's own with one) while a copy the other way runs all the time: the host link is shared,
  and each direction keeps its cited share of its one-way rate. Only when both directions and
  pinned memory are chosen.
* ``batch-round-trips``, ``batch-one-copy`` (measured) and ``model-batch-round-trips``,
  ``model-batch-one-copy`` (modelled): the keep-it-on-the-GPU demo, one point each. x is the
  payload (chunks x chunk size), y the bytes moved both ways over the total time, and
  ``extra`` holds ``seconds`` (the total), ``copies``, ``n_chunks`` and ``chunk_bytes``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg, render
from gpulab.experiments.transfer import gpu as transfer_gpu
from gpulab.experiments.transfer.gpu import LinkReading
from gpulab.lab.base import (
    Cancelled,
    CheckedParams,
    Context,
    Event,
    ExperimentGen,
    ParamError,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    powers_of_two,
)
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import Axes, OnError, Stopped, Sweep, SweepSeries, gpu_details, sweep_points
from gpulab.measure import (
    Ceiling,
    RepeatPolicy,
    clean_points,
    flagged_headline,
    modelled_point,
    noisy_notes,
    rate_point,
    with_ceiling,
)
from gpulab.model.transfer import DEFAULT_PINNED_EFFICIENCY, Direction, PcieLink, transfer_time
from gpulab.results import Point, Provenance, Result, Series, merge_notes

TITLE = render("experiment.transfer.title")
DESCRIPTION = render("experiment.transfer.description")

MAX_BYTES = 1 << 30
DIRECTIONS = ("h2d", "d2h")
KINDS = ("pinned", "pageable")
SIZE_PRESETS = (
    ("standard", powers_of_two(12, 28, 2)),
    ("quick", powers_of_two(12, 24, 2)),
    ("full", powers_of_two(12, 30)),
)
X_LABEL, X_UNIT = msg("axis.transfer.copy-size"), "B"
Y_LABEL, Y_UNIT = msg("axis.bandwidth"), "GB/s"
AXES = Axes(X_LABEL, X_UNIT, Y_LABEL, Y_UNIT)
TIMING = "CUDA events around each copy after warm-up, median of repeats"
SWEEP_BUDGET_S = 40.0
"""The measured points share this many seconds (repeat counts shrink to fit), so that a full sweep,
4 KiB to 1 GiB with buffer set-up and warm-up, ends within a minute."""


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param(powers_of_two(12, 28, 2), unit="B", min=1, max=MAX_BYTES, presets=SIZE_PRESETS)
    directions: Literal["both", "h2d", "d2h"] = param("both")
    memory: Literal["both", "pinned", "pageable"] = param("both")
    model_gens: tuple[int, ...] = param((3, 4, 5), min=1, max=5)
    batch_chunks: int = param(1024, min=1, max=1 << 20)
    batch_chunk_bytes: int = param(4096, unit="B", min=1, max=1 << 24)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.batch_chunks * self.batch_chunk_bytes > MAX_BYTES:
            total = bytes_text(self.batch_chunks * self.batch_chunk_bytes)
            raise ParamError(msg("param.error.transfer-batch", total=total, limit=bytes_text(MAX_BYTES)))

    @property
    def chosen_directions(self) -> tuple[str, ...]:
        return DIRECTIONS if self.directions == "both" else (self.directions,)

    @property
    def chosen_kinds(self) -> tuple[str, ...]:
        return KINDS if self.memory == "both" else (self.memory,)


def bytes_text(n: float) -> str:
    """4096 -> '4 KiB', 2**28 -> '256 MiB', 1000 -> '1000 B'."""
    n = int(n)
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} B"


def _memory_msg(kind: str) -> Message:
    return msg("transfer.memory.pinned") if kind == "pinned" else msg("transfer.memory.pageable")


def _direction_msg(direction: str) -> Message:
    return msg("transfer.direction.h2d") if direction == "h2d" else msg("transfer.direction.d2h")


def _series(key: str, label: Message, role: str, provenance: Provenance) -> Series:
    return Series(render(label), provenance, Note(X_LABEL), X_UNIT, Note(Y_LABEL), Y_UNIT, role=role, key=key,
                  label=label)  # fmt: skip


def link_ceiling(link: PcieLink | None, source: str) -> Ceiling | None:
    """The theoretical rate of ``link`` in one direction, as the ceiling of its points."""
    if link is None:
        return None
    return Ceiling(link.gb_s_per_direction, f"{link.label} theoretical rate per direction ({source})")


# ------------------------------------------------------------------ modelled


def model_copy_series(link: PcieLink, kind: str, sizes: tuple[int, ...], key: str) -> Series:
    """The modelled GB/s of one copy of each size over ``link`` from ``kind`` memory."""
    pinned = kind == "pinned"
    probe = transfer_time(link, 1 << 20, pinned=pinned)
    details = {"formula": "time = bytes / (link rate x efficiency) + start-up latency", "link": link.label,
               "link_gb_s_per_direction": link.gb_s_per_direction, "memory": kind,
               "assumptions": [str(note) for note in probe.assumptions]}  # fmt: skip
    # No "(model)" in the name: the legend says MODELLED, and the name differs from every measured one.
    label = msg("series.transfer.link-memory", link=f"Gen{link.gen} x{link.lanes}", memory=_memory_msg(kind))
    series = _series(key, label, "model", Provenance("modelled", link.label, details))
    ceiling = link_ceiling(link, "PCIe base specification")
    for n in sizes:
        seconds = transfer_time(link, n, pinned=pinned).seconds
        point = with_ceiling(modelled_point(n, n, seconds, memory=kind), ceiling)
        series = series.with_point(point)
    return series


BOTH_WAYS: tuple[Direction, ...] = ("h2d", "d2h")


def model_both_ways_series(link: PcieLink, sizes: tuple[int, ...]) -> list[Series]:
    """Pinned copies each way over ``link`` while a copy the other way runs all the time."""
    details = {"formula": "time = bytes / (link rate x pinned efficiency x share while both directions copy) "
               "+ start-up latency", "link": link.label, "link_gb_s_per_direction": link.gb_s_per_direction,
               "gen": link.gen, "lanes": link.lanes, "memory": "pinned", "both_ways": True}  # fmt: skip
    ceiling = link_ceiling(link, "PCIe base specification")
    series = []
    for direction in BOTH_WAYS:
        label = msg("series.transfer.both-ways", link=f"Gen{link.gen} x{link.lanes}",
                    direction=_direction_msg(direction))  # fmt: skip
        one = _series(f"model-both-{direction}", label, "model",
                      Provenance("modelled", link.label, {**details, "direction": direction}))  # fmt: skip
        for n in sizes:
            seconds = transfer_time(link, n, direction=direction, both_ways=True).seconds
            alone_gb_s = n / transfer_time(link, n, direction=direction).seconds / 1e9  # the same copy, one way
            point = modelled_point(n, n, seconds, memory="pinned", direction=direction, both_ways=True,
                                   one_way_gb_s=alone_gb_s)  # fmt: skip
            one = one.with_point(with_ceiling(point, ceiling))
        series.append(one)
    return series


def both_ways_note(series: list[Series]) -> Message | None:
    """The largest copy of each direction both ways at once, against the same copy one way."""
    by_key = {s.key: s for s in series if s.points}
    h2d, d2h = by_key.get("model-both-h2d"), by_key.get("model-both-d2h")
    if h2d is None or d2h is None:
        return None
    largest_h2d, largest_d2h = max(h2d.points, key=lambda p: p.x), max(d2h.points, key=lambda p: p.x)
    return msg("note.transfer.both-ways", link=str(h2d.provenance.details["link"]), size=bytes_text(largest_h2d.x),
               h2d=f"{largest_h2d.y:.1f}", d2h=f"{largest_d2h.y:.1f}",
               one=f"{largest_h2d.extra['one_way_gb_s']:.1f}")  # fmt: skip


def batch_seconds_modelled(link: PcieLink, n_chunks: int, chunk_bytes: int) -> tuple[float, float]:
    """(seconds of n round trips, seconds of one batched copy each way) over ``link`` from pinned memory."""
    one_chunk = transfer_time(link, chunk_bytes, direction="h2d").seconds + transfer_time(
        link, chunk_bytes, direction="d2h").seconds  # fmt: skip
    total = n_chunks * chunk_bytes
    batched = transfer_time(link, total, direction="h2d").seconds + transfer_time(link, total, direction="d2h").seconds
    return n_chunks * one_chunk, batched


def _batch_labels(n_chunks: int, chunk_bytes: int) -> tuple[Message, Message]:
    many = msg("series.transfer.round-trips", n=n_chunks, chunk=bytes_text(chunk_bytes))
    return many, msg("series.transfer.one-batch", total=bytes_text(n_chunks * chunk_bytes))


def _batch_point(n_chunks: int, chunk_bytes: int, copies: int, seconds: float | list[float],
                 ceiling: Ceiling | None) -> Point:  # fmt: skip
    total = n_chunks * chunk_bytes
    facts = {"copies": copies, "n_chunks": n_chunks, "chunk_bytes": chunk_bytes}
    if isinstance(seconds, list):
        point = rate_point(total, 2 * total, seconds, **facts)
    else:
        point = modelled_point(total, 2 * total, seconds, **facts)
    return with_ceiling(point, ceiling)


def model_batch_series(link: PcieLink, n_chunks: int, chunk_bytes: int) -> list[Series]:
    """The modelled keep-it-on-the-GPU pair: n round trips, one batched copy each way."""
    many_s, one_s = batch_seconds_modelled(link, n_chunks, chunk_bytes)
    details = {"formula": "round trips: n x (copy in + copy out) of one chunk; batched: one copy in + one out",
               "link": link.label, "memory": "pinned"}  # fmt: skip
    provenance = Provenance("modelled", link.label, details)
    ceiling = link_ceiling(link, "PCIe base specification")
    many, one = _batch_labels(n_chunks, chunk_bytes)
    pairs = (("model-batch-round-trips", many, 2 * n_chunks, many_s), ("model-batch-one-copy", one, 2, one_s))
    return [_series(key, msg("series.transfer.modelled", what=label), "model", provenance)
            .with_point(_batch_point(n_chunks, chunk_bytes, copies, seconds, ceiling))
            for key, label, copies, seconds in pairs]  # fmt: skip


def batch_model_link(params: Params) -> PcieLink:
    """The link the no-GPU batching demo models: Gen4 x16 (the lesson's figure) when listed, else the newest listed."""
    return PcieLink(4 if 4 in params.model_gens else max(params.model_gens))


def _listed_gens(params: Params) -> tuple[int, ...]:
    return tuple(dict.fromkeys(params.model_gens))  # listed order, no repeats


# ------------------------------------------------------------------ clamping


def clamp_sizes(sizes: tuple[int, ...], limit_bytes: int) -> tuple[int, ...]:
    """``sizes`` with every size above ``limit_bytes`` replaced by the largest power of two within it
    (repeats dropped, order kept); () when not even one byte fits."""
    if limit_bytes < 1:
        return ()
    top = 1 << (limit_bytes.bit_length() - 1)
    return tuple(dict.fromkeys(size if size <= limit_bytes else top for size in sizes))


def clamp_to_memory(params: Params, limits: dict[str, int]) -> tuple[tuple[int, ...], int, list[Message]]:
    """(sizes, batch chunks, notes): what fits the buffer limits (see :func:`transfer_gpu.buffer_limits`),
    with a note for each memory that made something smaller."""
    sizes, chunks, notes = params.sizes, params.batch_chunks, []
    for where, limit in sorted(limits.items()):
        clamped = clamp_sizes(sizes, limit)
        fitting_chunks = min(chunks, limit // params.batch_chunk_bytes)
        if clamped != sizes or fitting_chunks != chunks:
            free = msg("transfer.memory-kind.host") if where == "host" else msg("transfer.memory-kind.device")
            notes.append(msg("note.transfer.clamped", limit=bytes_text(limit), memory=free))
        sizes, chunks = clamped, fitting_chunks
    return sizes, chunks, notes


# ------------------------------------------------------------------ measured


class _Budget:
    """Repeat counts from a time budget: each point gets an equal share of what is left."""

    def __init__(self, seconds: float, points: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.left = max(points, 1)

    def policy(self) -> RepeatPolicy:
        share = max(self.deadline - time.monotonic(), 0.0) / max(self.left, 1)
        self.left -= 1
        if share < 0.01:  # the budget is spent: one sample each from here on
            return RepeatPolicy(repeats=1, min_seconds=0.0, max_seconds=0.0, max_samples=1)
        return RepeatPolicy(repeats=3, min_seconds=min(0.05, share / 2), max_seconds=share, max_samples=500)


@dataclass
class _Measured:
    """What the measuring part hands back: its series (points so far), notes, and the link as read
    before the copies (``before``: idle) and after them (``after``: None when not read)."""

    series: list[Series]
    notes: list[Message]
    before: LinkReading
    after: LinkReading | None = None


def _measured_provenance(device: int, reading: LinkReading, ceiling: Ceiling | None, **details: Any) -> Provenance:
    facts = gpu_details(ceiling, timing=TIMING, pinned_efficiency_assumed=DEFAULT_PINNED_EFFICIENCY,
                        **reading.details(), **details)  # fmt: skip
    return Provenance("measured", cuda.device_name(device), facts)


@dataclass(frozen=True)
class _Copying:
    """What every copy series shares at every size: the open buffers and the time budget."""

    copies: Any
    budget: _Budget


def _copy_error_note(stopped: Stopped) -> Message:
    where = msg("progress.transfer.copy", series=stopped.label, size=bytes_text(stopped.size))
    return msg("note.transfer.gpu-error", where=where, error=stopped.error)


GPU_STOPS = OnError(group="gpu", note=_copy_error_note)
"""A GPU error stops every copy series (and the batching demo after them); the points so far stay."""


def _copy_series(device: int, reading: LinkReading, ceiling: Ceiling | None, params: Params,
                 ctx: Context) -> list[SweepSeries]:  # fmt: skip
    def maker(direction: str, kind: str) -> Callable[[int, _Copying], Point]:
        def make(n: int, on: _Copying) -> Point:
            samples = on.copies.time(on.copies.copy_call(direction, kind, n), on.budget.policy(), ctx.check_cancelled)
            return with_ceiling(rate_point(n, n, samples, direction=direction, memory=kind), ceiling)

        return make

    out = []
    for direction in params.chosen_directions:
        for kind in params.chosen_kinds:
            label = msg("series.transfer.measured", direction=_direction_msg(direction), memory=_memory_msg(kind))
            provenance = _measured_provenance(device, reading, ceiling, direction=direction, memory=kind)
            out.append(SweepSeries(label, "gpu", provenance, maker(direction, kind), f"{direction}-{kind}",
                                   on_error=GPU_STOPS))  # fmt: skip
    return out


def _progress(series: SweepSeries, n: int) -> Message:
    return msg("progress.transfer.copy", series=series.label, size=bytes_text(n))


def _measure(params: Params, ctx: Context) -> Generator[Event, None, _Measured]:
    device = ctx.device_index or 0
    reading = transfer_gpu.read_link(device)
    ceiling = link_ceiling(reading.link, reading.source)
    kinds = params.chosen_kinds
    limits = transfer_gpu.buffer_limits(transfer_gpu.free_host_bytes(), transfer_gpu.free_device_bytes(device),
                                        host_buffers=len(kinds))  # fmt: skip
    sizes, chunks, notes = clamp_to_memory(params, limits)
    sweep = Sweep("transfer", params, AXES, _copy_series(device, reading, ceiling, params, ctx), unit="bytes",
                  progress=_progress)  # fmt: skip
    state = _SweepState({s.key: sweep.empty_series(s) for s in sweep.series}, {}, where=None)
    if not sizes:
        return _Measured([*state.series.values()], notes, reading)
    state.batch = _batch_series_empty(device, reading, ceiling, chunks, params.batch_chunk_bytes)
    try:
        copies = transfer_gpu.open_copies(device, max(max(sizes), chunks * params.batch_chunk_bytes),
                                          tuple(sorted(set(kinds) | ({"pinned"} if chunks else set()))))  # fmt: skip
        try:
            budget = _Budget(SWEEP_BUDGET_S, len(sizes) * len(sweep.series) + (2 if chunks else 0))
            on = _Copying(copies, budget)
            swept = yield from sweep_points(replace(sweep, operands=lambda _n: on), sizes)
            state.series, stopped = swept.series, swept.stopped_notes()
            notes += stopped
            if chunks and not stopped:
                yield from _batch_points(copies, chunks, params.batch_chunk_bytes, state, budget, ceiling, ctx)
        finally:
            copies.close()
    except (Cancelled, ParamError):
        raise
    except Exception as exc:  # a GPU error setting up or batching: keep what was measured, say where it stopped
        notes.append(msg("note.transfer.gpu-error", where=state.where or msg("transfer.where.setup"),
                         error=f"{type(exc).__name__}: {exc}"))  # fmt: skip
    after = transfer_gpu.read_link(device)
    return _Measured([*state.series.values(), *state.batch.values()], notes, reading, after)


@dataclass
class _SweepState:
    series: dict[str, Series]
    batch: dict[str, Series]
    where: Message | None


def _batch_series_empty(device: int, reading: LinkReading, ceiling: Ceiling | None, chunks: int,
                        chunk_bytes: int) -> dict[str, Series]:  # fmt: skip
    if not chunks:
        return {}
    many, one = _batch_labels(chunks, chunk_bytes)
    provenance = _measured_provenance(device, reading, ceiling, memory="pinned", n_chunks=chunks,
                                      chunk_bytes=chunk_bytes)  # fmt: skip
    return {"many": _series("batch-round-trips", many, "gpu", provenance),
            "one": _series("batch-one-copy", one, "gpu", provenance)}  # fmt: skip


def _batch_points(copies: Any, chunks: int, chunk_bytes: int, state: _SweepState, budget: _Budget,
                  ceiling: Ceiling | None, ctx: Context) -> Iterator[Event]:  # fmt: skip
    calls: dict[str, tuple[Callable[[], None], int]] = {
        "many": (copies.round_trips_call(chunks, chunk_bytes), 2 * chunks),
        "one": (copies.batched_call(chunks, chunk_bytes), 2),
    }
    for which, (call, copies_made) in calls.items():
        series = state.batch[which]
        state.where = series.label
        yield Progress(1.0, msg("progress.transfer.batching", series=series.label))
        samples = copies.time(call, budget.policy(), ctx.check_cancelled)
        point = _batch_point(chunks, chunk_bytes, copies_made, list(samples), ceiling)
        state.batch[which] = series.with_point(point)
        yield PartialPoint(series.name, point, series.provenance)


# ------------------------------------------------------------------ notes


def link_notes(before: LinkReading, after: LinkReading | None = None) -> list[Message]:
    """What the lab says about the link it measured: its rate and source, or that it is unknown,
    and a note when NVML caught it below its maximum (idle downshift, or still down under load)."""
    link = before.link
    if link is None:
        return [msg("note.transfer.link-unknown")]
    source = msg("transfer.source.nvml") if before.source == "nvml" else msg("transfer.source.spec")
    notes = [msg("note.transfer.link", link=link.label, source=source, number=f"{link.gb_s_per_direction:.1f}")]
    if before.downshifted:
        most = f"Gen{before.gen_max} x{before.width_max}"
        notes.append(msg("note.transfer.downshifted", now=before.current_label, most=most))
    if after is not None and after.downshifted and after.source == "nvml":
        notes.append(msg("note.transfer.still-downshifted", now=after.current_label))
    return notes


def latency_note(series: Series, kind: Message) -> Message | None:
    """The latency floor in words, from a copy series' smallest and largest clean points."""
    points = clean_points(series)
    if len(points) < 2:
        return None
    small, large = min(points, key=lambda p: p.x), max(points, key=lambda p: p.x)
    percent = large.extra.get("percent_of_peak")
    return msg("note.transfer.latency-floor", kind=kind, small=bytes_text(small.x),
               us=f"{small.extra['seconds'] * 1e6:.1f}", small_rate=f"{small.y:.2f}", large=bytes_text(large.x),
               large_rate=f"{large.y:.1f}", percent="?" if percent is None else f"{percent:.0f}%")  # fmt: skip


def batch_note(series: list[Series]) -> Message | None:
    """Round trips against one batched copy: both totals and the ratio (measured when there is a measurement)."""
    by_key = {s.key: s for s in series if s.points}
    for prefix, kind in (("batch-", "provenance.measured"), ("model-batch-", "provenance.modelled")):
        many, one = by_key.get(f"{prefix}round-trips"), by_key.get(f"{prefix}one-copy")
        if many is None or one is None or not (clean_points(many) and clean_points(one)):
            continue  # (a flagged total backs no "x times as long")
        many_s, one_s = many.points[0].extra["seconds"], one.points[0].extra["seconds"]
        facts = many.points[0].extra
        return msg("note.transfer.batching", kind=msg(kind), n=facts["n_chunks"],
                   chunk=bytes_text(facts["chunk_bytes"]), many=f"{many_s * 1e3:.2f}", one=f"{one_s * 1e3:.2f}",
                   total=bytes_text(many.points[0].x), ratio=f"{many_s / one_s:.0f}" if one_s > 0 else "?")  # fmt: skip
    return None


def _summary_notes(series: list[Series], model_link: PcieLink) -> list[Message]:
    """The latency floor (measured host-to-GPU pinned copies when there are any, else the model of
    ``model_link``) and the batching comparison."""
    by_key = {s.key: s for s in series}
    copies = [s for s in series if s.role == "gpu" and not s.key.startswith("batch")]
    measured = by_key.get("h2d-pinned") or next(iter(copies), None)
    modelled = by_key.get("model-link-pinned") or by_key.get(f"model-gen{model_link.gen}-pinned") or next(
        (s for s in series if s.role == "model" and not s.key.startswith("model-batch")), None)  # fmt: skip
    notes = []
    for source, kind in ((measured, "provenance.measured"), (modelled, "provenance.modelled")):
        note = latency_note(source, msg(kind)) if source is not None else None
        if note is not None:
            notes.append(note)
            break
    batching, both_ways = batch_note(series), both_ways_note(series)
    return [*notes, *([both_ways] if both_ways else []), *([batching] if batching else [])]


def _assumptions(links: list[PcieLink], kinds: tuple[str, ...], both_ways: PcieLink | None = None) -> list[Note]:
    """The model's assumptions for every link modelled (the shared ones once, by :func:`merge_notes`),
    and how the ``both_ways`` link shares its rate when copies run both ways at once."""
    notes = [note for link in links for kind in kinds
             for note in transfer_time(link, 1 << 20, pinned=kind == "pinned").assumptions]  # fmt: skip
    if both_ways is not None:
        notes += [note for note in transfer_time(both_ways, 1 << 20, both_ways=True).assumptions
                  if note.message.key == "model.assumption.both-ways"]  # fmt: skip
    return notes


# ------------------------------------------------------------------ run


def _model_series(params: Params, link: PcieLink | None, measured: bool) -> list[Series]:
    """Modelled copies: the GPU's own link when one was measured (and is known), else every listed generation at x16."""
    sizes = params.sizes
    if measured:
        if link is None:
            return []
        return [model_copy_series(link, kind, sizes, f"model-link-{kind}") for kind in params.chosen_kinds]
    return [model_copy_series(PcieLink(gen), kind, sizes, f"model-gen{gen}-{kind}")
            for gen in _listed_gens(params) for kind in params.chosen_kinds]  # fmt: skip


def _announce(series: list[Series]) -> Iterator[PartialPoint]:
    for s in series:
        for point in s.points:
            yield PartialPoint(s.name, point, s.provenance)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Model the copies (and, with a GPU, time them), then the keep-it-on-the-GPU demo."""
    status = cuda.cuda_status()
    yield Progress(0.0, msg("progress.transfer.model"))
    measured: _Measured | None = None
    if status.available:
        measured = yield from _measure(params, ctx)
    link = measured.before.link if measured is not None else None
    model_link = link if measured is not None and link is not None else batch_model_link(params)
    models = _model_series(params, link, measured is not None)
    if params.directions == "both" and "pinned" in params.chosen_kinds:
        models += model_both_ways_series(model_link, params.sizes)
    models += model_batch_series(model_link, params.batch_chunks, params.batch_chunk_bytes)
    yield from _announce(models)
    yield Progress(1.0, msg("progress.done"))
    series = [*(measured.series if measured else []), *models]
    gpu_notes: list[Message] = []
    if measured is not None:
        gpu_notes = [*link_notes(measured.before, measured.after), *measured.notes]
    else:
        gpu_notes = [msg("note.no-gpu", reason=status.reason_message or status.reason)]
    result = Result("transfer", params_to_dict(params), tuple(series))
    fixed = [msg("note.transfer.rate"), msg("note.transfer.pageable")]
    links = [model_link] if measured is not None else [PcieLink(gen) for gen in _listed_gens(params)]
    both_ways = model_link if any(s.key.startswith("model-both-") for s in series) else None
    headline = flagged_headline(series)
    notes = merge_notes([headline] if headline else [], gpu_notes, _summary_notes(series, model_link),
                        noisy_notes(result, "bytes"), fixed,
                        _assumptions(links, params.chosen_kinds, both_ways))  # fmt: skip
    return Result("transfer", result.params, result.series, notes)


LAB = Lab("transfer", section="memory", order=40, page="transfer", quick=("sizes=quick", "batch_chunks=256"))
