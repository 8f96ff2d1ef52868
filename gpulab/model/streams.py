"""A discrete-event model of a GPU running copies and kernels from several CUDA streams.

The machine has a host thread that issues one API call every ``issue_s`` seconds, copy engines
(one per direction, or a single one both directions share), and the SMs, which concurrent
kernels share: a kernel asks for a fraction of the SMs (1.0 = all of them) and starts only when
that much is free. The rules, each the documented CUDA behaviour in its simplest form:

- operations in one stream run in the order they were issued;
- an operation on the legacy default stream (stream 0) waits for everything issued before it in
  every stream, and everything issued after it waits for it (our streams are blocking streams);
- a copy from pageable memory is staged by the host through a pinned buffer: the host waits
  until the copy has finished before it issues anything else, so such copies never overlap;
- each engine takes, among the operations ready for it, the one issued first;
- a copy in and a copy out running at once share the host link: while both run, each goes at
  its share of its one-way rate (``Machine.both_ways_share``, from the PCIe model), so a copy
  stretches while the other direction copies.

:func:`simulate` turns a program (operations in issue order) into :class:`~gpulab.timeline.TimelineOp`
records, the same format the measured timeline has. :func:`chunked_program` writes the program of
the streams lab: C chunks, each copy in, kernel, copy out, spread over S streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpulab.catalogue import Message, Note, msg
from gpulab.model.roofline import achievable_bytes_per_s
from gpulab.model.transfer import both_ways_share, transfer_time
from gpulab.specs import GpuSpec
from gpulab.timeline import TimelineOp, busy_seconds, span_seconds

__all__ = [
    "DEFAULT_STREAM",
    "ChunkCosts",
    "ChunkPlan",
    "Machine",
    "Op",
    "Setup",
    "chunked_program",
    "concurrency",
    "copy_under_kernel_seconds",
    "diagnose",
    "engine_of",
    "ideal_seconds",
    "lane_name",
    "machine_assumptions",
    "machine_for",
    "plan_chunk",
    "ran_together",
    "simulate",
    "sm_share",
]

DEFAULT_STREAM = 0
"""The legacy default stream; created streams are numbered from 1."""

KINDS = ("h2d", "kernel", "d2h")
_EPS = 1e-12


@dataclass(frozen=True)
class Op:
    """One operation of a program: a copy (``h2d``, ``d2h``) or a ``kernel``, issued to ``stream``.

    ``duration_s`` is how long it runs once started; ``sm_fraction`` the share of the SMs a kernel
    occupies while it runs; ``pageable`` marks a copy from or to pageable host memory."""

    name: str
    stream: int
    kind: str
    duration_s: float
    bytes: int = 0
    sm_fraction: float = 1.0
    pageable: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not self.duration_s >= 0:
            raise ValueError(f"{self.name}: duration must be >= 0, got {self.duration_s!r}")
        if not 0 < self.sm_fraction <= 1:
            raise ValueError(f"{self.name}: sm_fraction must be in (0, 1], got {self.sm_fraction!r}")


@dataclass(frozen=True)
class Machine:
    """``issue_s``: host time per API call; ``copy_engines``: 2 (one per direction) or 1 (shared);
    ``both_ways_share``: the share of its one-way rate a copy in and a copy out each keep while the
    other direction copies too, (in, out); (1, 1) is a host link that loses nothing."""

    issue_s: float = 5e-6
    copy_engines: int = 2
    both_ways_share: tuple[float, float] = (1.0, 1.0)

    def __post_init__(self) -> None:
        if self.copy_engines not in (1, 2):
            raise ValueError(f"copy_engines must be 1 or 2, got {self.copy_engines!r}")
        if not self.issue_s >= 0:
            raise ValueError(f"issue_s must be >= 0, got {self.issue_s!r}")
        if len(self.both_ways_share) != 2 or not all(0 < share <= 1 for share in self.both_ways_share):
            raise ValueError(f"both_ways_share must be two shares in (0, 1], got {self.both_ways_share!r}")

    def copy_rate(self, kind: str, other_direction_busy: bool) -> float:
        """The rate a ``kind`` op runs at, as a share of its own (1 unless a copy meets one the other way)."""
        if kind == "kernel" or not other_direction_busy or self.copy_engines == 1:
            return 1.0
        return self.both_ways_share[0] if kind == "h2d" else self.both_ways_share[1]


def engine_of(kind: str, machine: Machine) -> str:
    """The engine an op of ``kind`` runs on: ``h2d``, ``d2h`` (or ``copy`` with one copy engine), ``compute``."""
    if kind == "kernel":
        return "compute"
    return kind if machine.copy_engines == 2 else "copy"


def lane_name(stream: int) -> str:
    """The lane of a stream on the timeline: ``default`` or ``stream N``."""
    return "default" if stream == DEFAULT_STREAM else f"stream {stream}"


class _Run:
    """The state of one simulation: issue, start and end times, the work each running op has
    left (in seconds at its full rate) and the rate it goes at now."""

    def __init__(self, program: Sequence[Op], machine: Machine) -> None:
        self.program, self.machine = program, machine
        self.engines = [engine_of(op.kind, machine) for op in program]
        self.depends = _dependencies(program)
        self.issued: list[float | None] = [None] * len(program)
        self.start: list[float | None] = [None] * len(program)
        self.end: list[float | None] = [None] * len(program)
        self.left_s = [op.duration_s for op in program]
        self.rate = [1.0] * len(program)
        self.clock_s = 0.0  # the time up to which left_s is counted
        self.waiting = list(range(len(program)))  # not started yet, in issue order
        self.next_issue = 0
        self.host_free_s = 0.0  # when the host can make its next call
        self.host_waits_for: int | None = None  # a pageable copy the host is blocked in

    def done(self, i: int, now: float) -> bool:
        end = self.end[i]
        return end is not None and end <= now + _EPS

    def running(self) -> list[int]:
        return [j for j, start in enumerate(self.start) if start is not None and self.end[j] is None]

    def advance(self, now: float) -> None:
        """Count the work done since the last event; an op with none left ends ``now``."""
        elapsed = now - self.clock_s
        for j in self.running():
            self.left_s[j] -= elapsed * self.rate[j]
            if self.left_s[j] <= _EPS:
                self.end[j] = now
        self.clock_s = now

    def set_rates(self) -> None:
        """A copy meeting a copy the other way goes at its share of its rate; every other op at its own."""
        running = self.running()
        kinds = {self.program[j].kind for j in running}
        for j in running:
            kind = self.program[j].kind
            other = {"h2d": "d2h", "d2h": "h2d"}.get(kind)
            self.rate[j] = self.machine.copy_rate(kind, other in kinds)

    def engine_free(self, i: int, running: list[int]) -> bool:
        engine = self.engines[i]
        sharing = [j for j in running if self.engines[j] == engine]
        if engine != "compute":
            return not sharing
        return sum(self.program[j].sm_fraction for j in sharing) + self.program[i].sm_fraction <= 1 + 1e-9

    def issue(self, now: float) -> None:
        """The host makes every call it can by ``now`` (none while it waits in a pageable copy)."""
        while self.next_issue < len(self.program) and self.host_waits_for is None and self.host_free_s <= now + _EPS:
            i = self.next_issue
            self.host_free_s += self.machine.issue_s
            self.issued[i] = self.host_free_s  # the call has returned: the op is in its stream
            self.next_issue += 1
            if self.program[i].pageable:
                self.host_waits_for = i

    def start_ready(self, now: float) -> None:
        running = self.running()
        for i in list(self.waiting):
            issued = self.issued[i]
            if issued is None or issued > now + _EPS:
                break  # later ops are issued later still
            if all(self.done(j, now) for j in self.depends[i]) and self.engine_free(i, running):
                self.start[i] = now
                self.waiting.remove(i)
                if self.left_s[i] <= _EPS:
                    self.end[i] = now  # nothing to do: it ends as it starts
                else:
                    running.append(i)

    def release_host(self, now: float) -> None:
        waited = self.host_waits_for
        if waited is not None and self.done(waited, now):
            self.host_waits_for = None
            self.host_free_s = max(self.host_free_s, self.end[waited] or now)

    def next_time(self, now: float) -> float | None:
        times = [now + self.left_s[j] / self.rate[j] for j in self.running()]
        if self.next_issue < len(self.program) and self.host_waits_for is None and self.host_free_s > now + _EPS:
            times.append(self.host_free_s)
        times += [t for t in self.issued if t is not None and t > now + _EPS]
        return min(times) if times else None


def _dependencies(program: Sequence[Op]) -> list[list[int]]:
    """What each op waits for: the op before it in its stream; on the legacy default stream the
    last op of every stream before it; elsewhere also the last default-stream op before it."""
    last: dict[int, int] = {}  # stream -> its latest op so far
    depends = []
    for i, op in enumerate(program):
        if op.stream == DEFAULT_STREAM:
            depends.append(sorted(last.values()))
        else:
            depends.append(sorted({last[s] for s in (op.stream, DEFAULT_STREAM) if s in last}))
        last[op.stream] = i
    return depends


def simulate(program: Sequence[Op], machine: Machine | None = None) -> tuple[TimelineOp, ...]:
    """Run ``program`` (operations in the order the host issues them) on ``machine``; one
    :class:`TimelineOp` per operation, in program order, times from the first call (t = 0)."""
    run = _Run(program, machine or Machine())
    now = 0.0
    while True:
        run.advance(now)
        run.release_host(now)
        run.issue(now)
        run.start_ready(now)
        run.release_host(now)  # a zero-length pageable copy frees the host at once
        run.set_rates()
        following = run.next_time(now)
        if following is None:
            break
        now = following
    if any(end is None for end in run.end):
        raise RuntimeError("the stream model stalled: an operation could never start")  # a bug, not bad input
    return tuple(_timeline_op(op, run.start[i] or 0.0, run.end[i] or 0.0, run.machine)
                 for i, op in enumerate(program))  # fmt: skip


def _timeline_op(op: Op, start_s: float, end_s: float, machine: Machine) -> TimelineOp:
    """The op as it ran: from its start to its end, which a copy meeting one the other way pushes out."""
    return TimelineOp(op.name, lane_name(op.stream), engine_of(op.kind, machine), start_s, max(end_s - start_s, 0.0),
                      op.bytes, op.kind)


@dataclass(frozen=True)
class ChunkCosts:
    """One chunk's times and facts: copy in and copy out (seconds), kernel (seconds), bytes each way,
    the kernel's share of the SMs."""

    h2d_s: float
    kernel_s: float
    d2h_s: float
    bytes_in: int
    bytes_out: int
    sm_fraction: float = 1.0


def chunked_program(chunks: int, streams: int, costs: ChunkCosts, *, pageable: bool = False,
                    kernels_on_default: bool = False) -> list[Op]:  # fmt: skip
    """The streams lab's loop, depth first: for chunk i on stream ``1 + i % streams``: copy in,
    kernel (on the legacy default stream when ``kernels_on_default``), copy out."""
    program = []
    for i in range(chunks):
        stream = 1 + i % streams
        kernel_stream = DEFAULT_STREAM if kernels_on_default else stream
        program += [
            Op(f"H2D {i}", stream, "h2d", costs.h2d_s, costs.bytes_in, pageable=pageable),
            Op(f"kernel {i}", kernel_stream, "kernel", costs.kernel_s, sm_fraction=costs.sm_fraction),
            Op(f"D2H {i}", stream, "d2h", costs.d2h_s, costs.bytes_out, pageable=pageable),
        ]
    return program


# ---------------------------------------------------------------- one chunk on a spec-sheet GPU

THREADS_PER_BLOCK = 256
FLOP_PER_ROUND = 2  # one multiply-add per element per round of the kernel
BYTES_PER_ELEMENT = 4  # float32 in, float32 out
KERNEL_DRAM_BYTES_PER_ELEMENT = 8  # the kernel reads x and writes y once


@dataclass(frozen=True)
class ChunkPlan:
    """What one chunk costs on a modelled GPU, pinned and pageable, and the kernel's rounds per element."""

    pinned: ChunkCosts
    pageable: ChunkCosts
    rounds: int
    elements: int
    assumptions: tuple[Note, ...]


def sm_share(elements: int, sm_count: int, threads_per_sm: int) -> float:
    """The share of the SMs a one-thread-per-element launch of 256-thread blocks fills (at most 1),
    on SMs that each hold ``threads_per_sm`` threads (the spec table's ``max_threads_per_sm``)."""
    if sm_count < 1 or threads_per_sm < 1:
        raise ValueError(f"sm_count and threads_per_sm must be at least 1, got {sm_count!r} and {threads_per_sm!r}")
    blocks = -(-elements // THREADS_PER_BLOCK)
    return min(1.0, blocks * THREADS_PER_BLOCK / (sm_count * threads_per_sm))


def plan_chunk(spec: GpuSpec, chunk_bytes: int, kernel_to_copy: float) -> ChunkPlan:
    """Copy times from the PCIe model; a kernel given as many rounds of work as make it last
    ``kernel_to_copy`` times the pinned copy in (it cannot be shorter than reading and writing the
    chunk once from DRAM). A kernel too small to fill the GPU runs at its share of the SMs' rates."""
    elements = max(1, chunk_bytes // BYTES_PER_ELEMENT)
    n_bytes = elements * BYTES_PER_ELEMENT
    copies = {(pinned, way): transfer_time(spec, n_bytes, pinned=pinned, direction=way)
              for pinned in (True, False) for way in ("h2d", "d2h")}  # fmt: skip
    share = sm_share(elements, spec.sm_count, spec.max_threads_per_sm)
    flop_rate = (spec.peak_flops("fp32") or 0.0) * share
    if flop_rate <= 0:
        raise ValueError(f"{spec.name} has no fp32 rate in the spec table")
    memory_s = KERNEL_DRAM_BYTES_PER_ELEMENT * elements / (achievable_bytes_per_s(spec) * share)
    rounds = max(0, round(kernel_to_copy * copies[True, "h2d"].seconds * flop_rate / (FLOP_PER_ROUND * elements)))
    kernel_s = max(FLOP_PER_ROUND * rounds * elements / flop_rate, memory_s)

    def costs(pinned: bool) -> ChunkCosts:
        return ChunkCosts(copies[pinned, "h2d"].seconds, kernel_s, copies[pinned, "d2h"].seconds, n_bytes, n_bytes,
                          share)

    link = [note for pinned in (True, False) for note in copies[pinned, "h2d"].assumptions
            if note.message.key != "model.assumption.no-copy-overlap"]  # this lab is about overlapping them
    kernel = Note(msg("streams.assumption.kernel", rounds=rounds, peak=f"{spec.peak_tflops['fp32']:g}",
                      bandwidth=f"{achievable_bytes_per_s(spec) / 1e9:.0f}", percent=f"{share:.0%}"))
    return ChunkPlan(costs(True), costs(False), rounds, elements, tuple(dict.fromkeys([*link, kernel])))


def machine_for(spec: GpuSpec, copy_engines: int = 2) -> Machine:
    """The machine of ``spec``: its copy engines, and the share of their rates a copy in and a copy
    out keep while both run over its PCIe link (:func:`gpulab.model.transfer.both_ways_share`)."""
    shares = (both_ways_share(spec.pcie_gen, "h2d"), both_ways_share(spec.pcie_gen, "d2h"))
    return Machine(copy_engines=copy_engines, both_ways_share=shares)


def machine_assumptions(machine: Machine, spec: GpuSpec | None = None) -> tuple[Note, ...]:
    """The rules of :func:`simulate`, one sentence each, for a result's notes (``spec``: the GPU whose
    SMs share the kernels)."""
    engines = "streams.assumption.two-copy-engines"
    if machine.copy_engines == 1:
        engines = "streams.assumption.one-copy-engine"
    messages = [msg("streams.assumption.issue", number=f"{machine.issue_s * 1e6:g}"), msg(engines)]
    if machine.copy_engines == 2 and machine.both_ways_share != (1.0, 1.0):
        h2d, d2h = machine.both_ways_share
        messages.append(msg("streams.assumption.both-ways", h2d=f"{h2d:.0%}", d2h=f"{d2h:.0%}"))
    if spec is not None:
        messages.append(msg("streams.assumption.sm-share", threads=spec.max_threads_per_sm, gpu=spec.name))
    messages += [msg("streams.assumption.pageable"), msg("streams.assumption.legacy-stream")]
    return tuple(Note(message) for message in messages)


# ---------------------------------------------------------------- diagnosis

SMALL_STAGE_S = 20e-6
"""A chunk whose longest stage is shorter than this is dominated by fixed per-call costs (5-10 us each)."""

PACE_SHARE = 0.8
"""The kernels set the pace when the SMs are busy for at least this share of the timeline."""

TOGETHER_SHARE = 0.01
"""Two ops ran together when they shared more than this share of the shorter one's time: a measured
timeline's CUDA events put touching ops a few microseconds over each other, which is no overlap."""

COPY_KINDS = frozenset({"h2d", "d2h"})


@dataclass(frozen=True)
class Setup:
    """What a configuration did, for :func:`diagnose`: streams used, pageable host memory, kernels on
    the legacy default stream, copy engines, the kernel's share of the SMs, the host's time per call."""

    streams: int
    pageable: bool = False
    kernels_on_default: bool = False
    copy_engines: int = 2
    kernel_sm_share: float = 1.0
    issue_s: float = 5e-6


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def stage_seconds(ops: Sequence[TimelineOp]) -> dict[str, float]:
    """Median duration of each kind of op (one chunk's stages)."""
    kinds = dict.fromkeys(op.kind for op in ops)
    return {kind: _median([op.duration_s for op in ops if op.kind == kind]) for kind in kinds}


def ideal_seconds(ops: Sequence[TimelineOp]) -> float:
    """The shortest a pipeline of these ops could take: for the busiest engine, its busy time plus
    one chunk's stages on the other engines (filling and draining the pipeline)."""
    stages = stage_seconds(ops)
    engine_of_kind = {op.kind: op.engine for op in ops}
    return max((busy_seconds(ops, engine) + sum(t for kind, t in stages.items() if engine_of_kind[kind] != engine)
                for engine in {op.engine for op in ops}), default=0.0)  # fmt: skip


def ran_together(a: TimelineOp, b: TimelineOp) -> bool:
    """Whether ``a`` and ``b`` ran at the same time: they shared more than :data:`TOGETHER_SHARE` of
    the shorter one's time."""
    shared = min(a.end_s, b.end_s) - max(a.start_s, b.start_s)
    return shared > TOGETHER_SHARE * min(a.duration_s, b.duration_s) and shared > 0


def _group(kind: str) -> str:
    return "copy" if kind in COPY_KINDS else "kernel"


def concurrency(ops: Sequence[TimelineOp]) -> frozenset[str]:
    """What ran at the same time in ``ops``: ``"copy+kernel"`` (a copy while a kernel ran), ``"in+out"``
    (a copy in beside a copy out), ``"kernel+kernel"`` (kernels side by side), each found at least once."""
    found: set[str] = set()
    for i, a in enumerate(ops):
        for b in ops[i + 1:]:
            if not ran_together(a, b):
                continue
            groups = {_group(a.kind), _group(b.kind)}
            if groups == {"copy", "kernel"}:
                found.add("copy+kernel")
            elif groups == {"kernel"}:
                found.add("kernel+kernel")
            elif a.kind != b.kind:
                found.add("in+out")
    return frozenset(found)


def copy_under_kernel_seconds(ops: Sequence[TimelineOp]) -> float:
    """How long at least one copy and at least one kernel were running at once."""
    edges = sorted((time_s, step, _group(op.kind)) for op in ops if op.duration_s > 0
                   for time_s, step in ((op.start_s, 1), (op.end_s, -1)))  # fmt: skip
    running = {"copy": 0, "kernel": 0}
    together, previous = 0.0, None
    for time_s, step, group in edges:  # ends sort before starts at one instant (-1 < 1)
        if previous is not None and running["copy"] > 0 and running["kernel"] > 0:
            together += time_s - previous
        running[group] += step
        previous = time_s
    return together


def diagnose(setup: Setup, ops: Sequence[TimelineOp], baseline_s: float | None = None,
             unclaimed: bool = False) -> list[Message]:
    """What the schedule did, from which ops actually ran at the same time: copies running while
    kernels ran is the overlap streams are for (one message); one chunk, which has nothing to
    overlap with (one message); else what did run together, if anything, and what stopped the rest
    (one message per cause found); then what limits the timeline either way: chunks so small that
    fixed per-call costs rule, the SMs filled by every kernel, one copy engine for both directions.
    ``baseline_s``: the one-stream time, for the speedup ("?" when unknown); ``unclaimed``: no
    speed-up is stated at all, as when measured timings were flagged noisy."""
    span = span_seconds(ops)
    if span <= 0:
        return []
    limits = _limits(setup, ops, span)
    together = concurrency(ops)
    if "copy+kernel" in together:
        percent = f"{copy_under_kernel_seconds(ops) / span:.0%}"
        if unclaimed:
            return [msg("streams.diagnosis.overlapping-unclaimed", percent=percent), *limits]
        speedup = f"{baseline_s / span:.1f}" if baseline_s else "?"
        return [msg("streams.diagnosis.overlapping", percent=percent, speedup=speedup), *limits]
    if sum(1 for op in ops if op.kind == "kernel") <= 1:  # one chunk: its steps wait for each other, whatever the setup
        return [msg("streams.diagnosis.one-chunk"), *limits]
    found = [msg("streams.diagnosis.copies-only")] if "in+out" in together else []
    if "kernel+kernel" in together:
        found.append(msg("streams.diagnosis.kernels-only"))
    if not found:
        found.append(msg("streams.diagnosis.serial"))
    causes = _causes(setup)
    return found + (causes or ([] if limits else [msg("streams.diagnosis.unexplained")])) + limits


def _causes(setup: Setup) -> list[Message]:
    """Why no copy ran under a kernel: each setting that forbids it."""
    causes = []
    if setup.streams <= 1:
        causes.append(msg("streams.diagnosis.one-stream"))
    if setup.pageable:
        causes.append(msg("streams.diagnosis.pageable"))
    if setup.kernels_on_default:
        causes.append(msg("streams.diagnosis.default-stream"))
    return causes


def _limits(setup: Setup, ops: Sequence[TimelineOp], span: float) -> list[Message]:
    found = []
    longest = max(stage_seconds(ops).values(), default=0.0)
    if longest < max(SMALL_STAGE_S, 3 * setup.issue_s):
        found.append(msg("streams.diagnosis.small-chunks", number=f"{longest * 1e6:.0f}"))
    if setup.streams <= 1:
        return found
    if setup.kernel_sm_share >= 1 and busy_seconds(ops, "compute") >= PACE_SHARE * span:
        found.append(msg("streams.diagnosis.kernel-fills-gpu"))
    if setup.copy_engines == 1 and {"h2d", "d2h"} <= {op.kind for op in ops} \
            and busy_seconds(ops, "copy") >= PACE_SHARE * span:  # fmt: skip
        found.append(msg("streams.diagnosis.one-copy-engine"))
    return found
