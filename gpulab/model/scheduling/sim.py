"""The discrete-event simulation: arrivals, ends, failures and repairs on a heap; after the events
of each instant one scheduling pass over the queue.

Policies (:data:`POLICIES`), each an order for the queue and a rule for who may start:

- ``fifo``: arrival order, and nothing starts past a job that does not fit (the head blocks);
- ``first-fit``: arrival order, and every job that fits starts (a big job may wait for ever);
- ``backfill``: EASY backfilling (Lifka 1995, Slurm's sched/backfill): the head job that does
  not fit gets a reservation at the earliest time enough GPUs free up (from the running jobs'
  ends, known exactly here); a later job starts now only if it ends before that time or leaves the
  reserved GPUs alone, so the head is never delayed;
- ``topology``: backfill, placing topology-aware (:func:`.cluster.place_topology`);
- ``priority``: topology-aware backfill in priority order, and a job that does not fit preempts
  running jobs of lower priority (the youngest first) when that makes room; they are requeued and
  restart from their last checkpoint.

Gang scheduling (``gang=True``, as Volcano and Kueue do for training jobs) starts a job with all of
its GPUs or not at all; without it a waiting job takes GPUs as they free up (its pods start one by
one) and holds them idle until it has all of them, and two half-placed jobs can wait on each other.

A failure takes a node down for ``repair_s`` and kills every job with GPUs on it (the whole gang);
a killed job goes back to the queue (its place by arrival, as Slurm's requeue keeps the submit
time) and restarts from its last completed checkpoint, ``restart_s`` later, losing the work since.
A job checkpoints every ``checkpoint_interval_s`` of computing, each write ``checkpoint_write_s``.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from gpulab.model.scheduling.cluster import (
    RACK_SPAN_SPEED,
    Allocation,
    ClusterSpec,
    place_anywhere,
    place_topology,
    placement_speed,
    tp_across_nodes_speed,
)
from gpulab.model.scheduling.jobs import Job

POLICIES = ("fifo", "first-fit", "backfill", "topology", "priority")
LOSS_CAUSES = ("failure", "preemption", "restart", "checkpoint", "slowdown", "held", "down", "blocked", "stranded")
"""GPU-seconds lost, by cause: work redone after a failure or a preemption, restarts, checkpoint
writes, a poor placement's slowdown, GPUs held by a half-placed job, nodes down for repair, free GPUs
a waiting job could use but the policy keeps free (the head blocks, a reservation), free GPUs no
waiting job can use (fragmentation)."""

_END, _REPAIR, _FAIL, _ARRIVE = range(4)  # at one instant: ends first, arrivals last
BACKFILL_DEPTH = 300
"""Jobs a pass looks at behind the first that does not fit (Slurm's bf_max_job_test, default 500)."""


@dataclass(frozen=True)
class Policy:
    name: str
    by_priority: bool = False
    skip: str = "none"  # "none": the head blocks; "any": whoever fits; "easy": EASY backfill
    topology: bool = False
    preempt: bool = False
    gang: bool = True


def policy(name: str, gang: bool = True) -> Policy:
    table = {"fifo": Policy("fifo"), "first-fit": Policy("first-fit", skip="any"),
             "backfill": Policy("backfill", skip="easy"), "topology": Policy("topology", skip="easy", topology=True),
             "priority": Policy("priority", by_priority=True, skip="easy", topology=True, preempt=True)}  # fmt: skip
    if name not in table:
        raise ValueError(f"unknown policy {name!r}: one of {', '.join(POLICIES)}")
    chosen = table[name]
    return Policy(chosen.name, chosen.by_priority, chosen.skip, chosen.topology, chosen.preempt, gang)


@dataclass(frozen=True)
class Config:
    cluster: ClusterSpec
    policy: Policy
    horizon_s: float
    restart_s: float = 300.0
    repair_s: float = 7200.0
    tp_split_speed: float = field(default_factory=tp_across_nodes_speed)  # assumed: see cluster.TP_COMM_SHARE
    rack_span_speed: float = RACK_SPAN_SPEED  # assumed
    depth: int = BACKFILL_DEPTH


@dataclass
class Run:
    """One start of a job: where, when, how fast, and how it ended (``done``, ``failure``,
    ``preempted``, or ``running`` at the horizon), with its progress before and after."""

    job: int
    start_s: float
    nodes: np.ndarray
    taken: np.ndarray
    speed: float
    restart_s: float
    progress0_s: float
    planned_end_s: float
    end_s: float = math.nan
    reason: str = ""
    progress1_s: float = 0.0
    checkpoints: int = 0
    serial: int = 0
    gpus: int = 0

    def __post_init__(self) -> None:
        self.gpus = int(self.taken.sum())


@dataclass
class JobState:
    first_start_s: float = math.nan
    finish_s: float = math.nan
    progress_s: float = 0.0
    runs: int = 0
    gpu_s: float = 0.0  # GPU-seconds held while running or half-placed
    wait_s: float = 0.0


@dataclass
class Outcome:
    """What a simulation gives: every run, every failure (time, node, jobs killed), the state
    after each pass (``timeline``: a row per pass), each job's totals and GPU-seconds lost by cause."""

    config: Config
    jobs: list[Job]
    runs: list[Run]
    failures: list[tuple[float, int, tuple[int, ...]]]
    timeline: np.ndarray  # columns: TIMELINE_COLUMNS
    states: list[JobState]
    lost_gpu_s: dict[str, float]


TIMELINE_COLUMNS = ("time_s", "busy", "held", "down", "blocked", "stranded", "idle", "queued_jobs", "queued_gpus")


def run_seconds(job: Job, progress_s: float, speed: float, restart_s: float) -> tuple[float, int]:
    """Wall seconds from a start to the end of ``job`` with ``progress_s`` saved, and the checkpoints on the way."""
    compute = (job.work_s - progress_s) / speed
    every = job.checkpoint_interval_s
    checkpoints = max(0, math.ceil(compute / every) - 1) if math.isfinite(every) else 0
    return restart_s + compute + checkpoints * job.checkpoint_write_s, checkpoints


class _Simulation:
    def __init__(self, config: Config, jobs: list[Job], failures: list[tuple[float, int]]) -> None:
        self.config, self.jobs = config, jobs
        spec = config.cluster
        self.free = np.full(spec.nodes, spec.gpus_per_node, dtype=np.int64)
        self.free_total = spec.gpus
        self.down = np.zeros(spec.nodes, dtype=bool)
        self.on_node: list[set[int]] = [set() for _ in range(spec.nodes)]
        self.queue: list[tuple[tuple[float, ...], int]] = []
        self.queued_sizes: Counter[int] = Counter()
        self.running: dict[int, Run] = {}
        self.holding: dict[int, list[Allocation]] = {}
        self.states = [JobState() for _ in jobs]
        self.runs: list[Run] = []
        self.failures: list[tuple[float, int, tuple[int, ...]]] = []
        self.lost = dict.fromkeys(LOSS_CAUSES, 0.0)
        self.rows: list[tuple[float, ...]] = []
        self.events: list[tuple[float, int, int, int]] = []
        self.serial = 0
        self.version = 0  # changes whenever GPUs are taken or given back: a reservation is kept until then
        self.kept: tuple[int, int, tuple[float, np.ndarray] | None] | None = None
        for job in jobs:
            self._push(job.arrival_s, _ARRIVE, job.id)
        for time_s, node in failures:
            self._push(time_s, _FAIL, node)

    # -------------------------------------------------------------- events

    def _push(self, time_s: float, kind: int, what: int) -> None:
        self.serial += 1
        heapq.heappush(self.events, (time_s, kind, self.serial, what))

    def simulate(self, tick: Callable[[float], None] | None = None) -> Outcome:
        horizon, last = self.config.horizon_s, 0.0
        self._record(0.0)
        instants = 0
        while self.events and self.events[0][0] <= horizon:
            now = self.events[0][0]
            instants += 1
            if tick is not None and instants % 512 == 0:
                tick(now / horizon)
            self._account(last, now)
            while self.events and self.events[0][0] == now:
                _t, kind, serial, what = heapq.heappop(self.events)
                if kind == _ARRIVE:
                    self._enqueue(what)
                elif kind == _END:
                    self._end(what, serial, now)
                elif kind == _FAIL:
                    self._fail(what, now)
                else:
                    self._repair(what)
            self._schedule(now)
            self._record(now)
            last = now
        self._account(last, horizon)
        self._close(horizon)
        self._record(horizon)
        return Outcome(self.config, self.jobs, self.runs, self.failures, np.array(self.rows, dtype=float),
                       self.states, self.lost)  # fmt: skip

    def _enqueue(self, job_id: int) -> None:
        job = self.jobs[job_id]
        key = (-job.priority if self.config.policy.by_priority else 0, job.arrival_s, job.id)
        bisect.insort(self.queue, (key, job_id))
        self.queued_sizes[job.gpus] += 1

    def _dequeue(self, job_id: int) -> None:
        job = self.jobs[job_id]
        key = (-job.priority if self.config.policy.by_priority else 0, job.arrival_s, job.id)
        del self.queue[bisect.bisect_left(self.queue, (key, job_id))]
        self.queued_sizes[job.gpus] -= 1
        if not self.queued_sizes[job.gpus]:
            del self.queued_sizes[job.gpus]

    def _end(self, job_id: int, serial: int, now: float) -> None:
        run = self.running.get(job_id)
        if run is None or run.serial != serial:
            return  # the run was killed before its end
        run.end_s, run.reason, run.progress1_s = now, "done", self.jobs[job_id].work_s
        self._finish_run(run, killed=False)
        self.states[job_id].finish_s = now

    def _fail(self, node: int, now: float) -> None:
        killed = tuple(sorted(self.on_node[node]))
        for job_id in killed:
            self._kill(job_id, now, "failure")
        if not self.down[node]:
            self.down[node] = True
            self.version += 1
            self.free_total -= int(self.free[node])
            self.free[node] = 0
            self._push(now + self.config.repair_s, _REPAIR, node)
        self.failures.append((now, node, killed))

    def _repair(self, node: int) -> None:
        self.down[node] = False
        self.version += 1
        self.free[node] = self.config.cluster.gpus_per_node
        self.free_total += self.config.cluster.gpus_per_node

    # -------------------------------------------------------------- runs

    def _take(self, job_id: int, allocation: Allocation) -> None:
        nodes, taken = allocation
        self.version += 1
        self.free[nodes] -= taken
        self.free_total -= int(taken.sum())
        for node in nodes.tolist():
            self.on_node[node].add(job_id)

    def _give_back(self, job_id: int, allocation: Allocation) -> None:
        nodes, taken = allocation
        self.version += 1
        self.free[nodes] += taken
        self.free_total += int(taken.sum())
        for node in nodes.tolist():
            self.on_node[node].discard(job_id)

    def _start(self, job_id: int, allocation: Allocation, now: float) -> None:
        job, state = self.jobs[job_id], self.states[job_id]
        self._dequeue(job_id)
        self._take(job_id, allocation)
        speed = placement_speed(allocation, job.tp, self.config.cluster, self.config.tp_split_speed,
                                self.config.rack_span_speed)
        restart = self.config.restart_s if state.runs else 0.0
        seconds, _checkpoints = run_seconds(job, state.progress_s, speed, restart)
        run = Run(job_id, now, allocation[0], allocation[1], speed, restart, state.progress_s, now + seconds)
        self.serial += 1
        run.serial = self.serial
        heapq.heappush(self.events, (run.planned_end_s, _END, self.serial, job_id))
        self.running[job_id] = run
        if not state.runs:
            state.first_start_s = now
        state.runs += 1

    def _kill(self, job_id: int, now: float, reason: str) -> None:
        if job_id in self.holding:  # half-placed: it lets go of what it held and waits on
            for allocation in self.holding.pop(job_id):
                self._give_back(job_id, allocation)
            return
        run = self.running[job_id]
        job = self.jobs[job_id]
        elapsed = now - run.start_s - run.restart_s
        cycle = job.checkpoint_interval_s + job.checkpoint_write_s
        _total, planned = run_seconds(job, run.progress0_s, run.speed, 0.0)
        done = min(planned, int(elapsed // cycle)) if elapsed > 0 and math.isfinite(cycle) else 0
        run.checkpoints = done
        run.progress1_s = run.progress0_s + done * job.checkpoint_interval_s * run.speed
        run.end_s, run.reason = now, reason
        gpus = float(run.taken.sum())
        lost_wall = max(0.0, elapsed) - (done * cycle if done else 0.0)  # since the last checkpoint, any write included
        self.lost["failure" if reason == "failure" else "preemption"] += lost_wall * gpus
        self._finish_run(run, killed=True)
        self.states[job_id].progress_s = run.progress1_s
        self._enqueue(job_id)

    def _finish_run(self, run: Run, killed: bool) -> None:
        job = self.jobs[run.job]
        gpus = float(run.taken.sum())
        wall = run.end_s - run.start_s
        if not killed and run.reason == "done":
            _s, run.checkpoints = run_seconds(job, run.progress0_s, run.speed, 0.0)
        self.lost["restart"] += min(wall, run.restart_s) * gpus
        self.lost["checkpoint"] += run.checkpoints * job.checkpoint_write_s * gpus
        useful = run.progress1_s - run.progress0_s
        self.lost["slowdown"] += useful * (1 / run.speed - 1) * gpus
        self.states[run.job].gpu_s += wall * gpus
        self.states[run.job].progress_s = run.progress1_s
        self._give_back(run.job, (run.nodes, run.taken))
        del self.running[run.job]
        self.runs.append(run)

    def _close(self, horizon: float) -> None:
        """Runs still going at the horizon end there (``running``), with the progress made so far."""
        for job_id in sorted(self.running):
            run = self.running[job_id]
            elapsed = max(0.0, horizon - run.start_s - run.restart_s)
            job = self.jobs[job_id]
            cycle = job.checkpoint_interval_s + job.checkpoint_write_s
            run.checkpoints = int(elapsed // cycle) if math.isfinite(cycle) else 0
            computing = elapsed - run.checkpoints * job.checkpoint_write_s
            run.progress1_s = min(job.work_s, run.progress0_s + computing * run.speed)
            run.end_s, run.reason = horizon, "running"
            self._finish_run(run, killed=True)
        for _key, job_id in self.queue:
            state = self.states[job_id]
            if math.isnan(state.first_start_s):
                state.wait_s = horizon - self.jobs[job_id].arrival_s

    # -------------------------------------------------------------- placement and the pass

    def _place(self, job: Job, free: np.ndarray) -> Allocation | None:
        if self.config.policy.topology:
            return place_topology(free, job.gpus, self.config.cluster)
        return place_anywhere(free, job.gpus)

    def _schedule(self, now: float) -> None:
        policy = self.config.policy
        reserved: tuple[float, np.ndarray] | None = None
        beside_free = self.free
        fails_at = math.inf  # the smallest job that did not fit on the free GPUs: none larger will
        fails_beside = math.inf  # the same beside the reservation
        looked = 0
        for _key, job_id in list(self.queue):
            job = self.jobs[job_id]
            if reserved is not None or policy.skip == "any":
                looked += 1
                if looked > self.config.depth or min(fails_at, fails_beside) <= 1:
                    break
            if not policy.gang and self._hold(job_id, now):
                continue
            fits = job.gpus < fails_at and job.gpus <= self.free_total
            if reserved is None:
                allocation = self._place(job, self.free) if fits else None
                if allocation is not None:
                    self._start(job_id, allocation, now)
                    continue
                fails_at = min(fails_at, job.gpus)
                if not policy.gang:
                    self._grab(job_id)
                elif policy.preempt and self._preempt_for(job, now):
                    continue
                elif policy.skip == "none":
                    break
                elif policy.skip == "easy":
                    reserved = self._reservation(job) or (math.inf, np.zeros_like(self.free))
                    beside_free = np.maximum(self.free - reserved[1], 0)
                continue
            if not fits:
                continue
            if self._backfill_before(job_id, now, reserved[0]) or job.gpus >= fails_beside:
                beside_free = np.maximum(self.free - reserved[1], 0)
                continue
            beside = self._place(job, beside_free) if job.gpus <= int(beside_free.sum()) else None
            if beside is None:
                fails_beside = job.gpus
            else:
                self._start(job_id, beside, now)
                beside_free = np.maximum(self.free - reserved[1], 0)

    def _backfill_before(self, job_id: int, now: float, shadow_s: float) -> bool:
        """Start ``job_id`` now if it ends by ``shadow_s`` where it would be placed; True when it started."""
        job, state = self.jobs[job_id], self.states[job_id]
        restart = self.config.restart_s if state.runs else 0.0
        if now + run_seconds(job, state.progress_s, 1.0, restart)[0] > shadow_s:
            return False  # too long even at full speed
        allocation = self._place(job, self.free)
        if allocation is None:
            return False
        speed = placement_speed(allocation, job.tp, self.config.cluster, self.config.tp_split_speed,
                                self.config.rack_span_speed)
        if now + run_seconds(job, state.progress_s, speed, restart)[0] > shadow_s:
            return False
        self._start(job_id, allocation, now)
        return True

    def _reservation(self, job: Job) -> tuple[float, np.ndarray] | None:
        """The head job's reservation, kept while no GPU was taken or given back since."""
        if self.kept is None or self.kept[:2] != (job.id, self.version):
            self.kept = (job.id, self.version, self._reserve(job))
        return self.kept[2]

    def _reserve(self, job: Job) -> tuple[float, np.ndarray] | None:
        """When and where the head job will fit: the running jobs' ends in time order, added to the
        free GPUs until it does (the first such end, found by bisection: fitting only gets easier as
        GPUs come back). Nodes down for repair are left out: a reservation never counts on them."""
        runs = sorted(self.running.values(), key=lambda run: run.planned_end_s)
        if not runs:
            return None
        sizes = np.array([run.nodes.size for run in runs])
        owner = np.repeat(np.arange(len(runs)), sizes)
        nodes = np.concatenate([run.nodes for run in runs])
        taken = np.concatenate([run.taken for run in runs])
        freed = np.cumsum([run.gpus for run in runs])
        low = int(np.searchsorted(self.free_total + freed, job.gpus))  # fewer GPUs than needed before this end
        high = len(runs) - 1
        if low > high:
            return None

        def free_after(k: int) -> np.ndarray:
            upto = owner <= k
            return self.free + np.bincount(nodes[upto], weights=taken[upto], minlength=self.free.size).astype(np.int64)

        if self._place(job, free_after(high)) is None:
            return None
        while low < high:
            middle = (low + high) // 2
            if self._place(job, free_after(middle)) is None:
                low = middle + 1
            else:
                high = middle
        allocation = self._place(job, free_after(low))
        assert allocation is not None
        counts = np.zeros_like(self.free)
        counts[allocation[0]] = allocation[1]
        return runs[low].planned_end_s, counts

    def _preempt_for(self, job: Job, now: float) -> bool:
        """Preempt running jobs of lower priority (the youngest first) if that lets ``job`` start now."""
        victims = sorted((run for run in self.running.values() if self.jobs[run.job].priority < job.priority),
                         key=lambda run: (self.jobs[run.job].priority, -run.start_s))  # fmt: skip
        free, chosen = self.free.copy(), []
        for run in victims:
            free[run.nodes] += run.taken
            chosen.append(run.job)
            if self._place(job, free) is not None:
                for victim in chosen:
                    self._kill(victim, now, "preempted")
                allocation = self._place(job, self.free)
                if allocation is not None:
                    self._start(job.id, allocation, now)
                return True
        return False

    # -------------------------------------------------------------- without gang scheduling

    def _hold(self, job_id: int, now: float) -> bool:
        """A half-placed job takes more free GPUs; it starts once it holds them all. True when it
        was half-placed (whatever happened now)."""
        if job_id not in self.holding:
            return False
        self._grab(job_id)
        held = self.holding.get(job_id, [])
        if sum(int(t.sum()) for _n, t in held) >= self.jobs[job_id].gpus:
            del self.holding[job_id]
            per_node = np.zeros_like(self.free)
            for nodes, taken in held:
                np.add.at(per_node, nodes, taken)
                self._give_back(job_id, (nodes, taken))
            merged = np.flatnonzero(per_node)
            self._start(job_id, (merged, per_node[merged]), now)
        return True

    def _grab(self, job_id: int) -> None:
        held = self.holding.setdefault(job_id, [])
        wanted = self.jobs[job_id].gpus - sum(int(t.sum()) for _n, t in held)
        take = min(wanted, self.free_total)
        if take > 0:
            allocation = place_anywhere(self.free, take)
            if allocation is not None:
                self._take(job_id, allocation)
                held.append(allocation)
        if not held:
            del self.holding[job_id]

    # -------------------------------------------------------------- accounting

    def _fits_any(self) -> bool:
        """Whether the smallest waiting job fits on the free GPUs now (none larger does if it does not)."""
        if not self.queued_sizes:
            return False
        smallest = min(self.queued_sizes)
        if smallest > self.free_total:
            return False
        if self.config.policy.topology:
            return place_topology(self.free, smallest, self.config.cluster) is not None
        return True

    def _record(self, now: float) -> None:
        spec = self.config.cluster
        held = sum(int(t.sum()) for allocations in self.holding.values() for _n, t in allocations)
        down = int(self.down.sum()) * spec.gpus_per_node
        busy = spec.gpus - self.free_total - held - down
        idle = self.free_total
        blocked = stranded = 0
        if self.queue:
            if self._fits_any():
                blocked = idle
            else:
                stranded = idle
            idle = 0
        queued_gpus = sum(size * count for size, count in self.queued_sizes.items())
        self.rows.append((now, busy, held, down, blocked, stranded, idle, len(self.queue), queued_gpus))

    def _account(self, start: float, end: float) -> None:
        if not self.rows or end <= start:
            return
        _t, _busy, held, down, blocked, stranded, _idle, _q, _g = self.rows[-1]
        span = end - start
        self.lost["held"] += held * span
        self.lost["down"] += down * span
        self.lost["blocked"] += blocked * span
        self.lost["stranded"] += stranded * span


def simulate(config: Config, jobs: Sequence[Job], failures: Sequence[tuple[float, int]] = (),
             tick: Callable[[float], None] | None = None) -> Outcome:  # fmt: skip
    """Run ``jobs`` (their ids 0..n-1 in order) on ``config.cluster`` under ``config.policy``, the
    ``failures`` ((time, node) pairs) striking as given, up to ``config.horizon_s``; ``tick`` is called
    now and then with the share of the horizon simulated (it may raise to stop)."""
    if any(job.id != i for i, job in enumerate(jobs)):
        raise ValueError("job ids must be 0, 1, ... in the list's order")
    outcome = _Simulation(config, list(jobs), sorted(failures)).simulate(tick)
    for job, state in zip(outcome.jobs, outcome.states, strict=True):
        if not math.isnan(state.first_start_s):
            state.wait_s = state.first_start_s - job.arrival_s
    return outcome


def failure_times(spec: ClusterSpec, failures_per_gpu_year: float, horizon_s: float,
                  seed: int) -> list[tuple[float, int]]:  # fmt: skip
    """Failures striking the cluster at random (Poisson, ``failures_per_gpu_year`` per GPU), each on a
    node drawn uniformly; seeded. The rate is the scaling lab's per-GPU rate (Llama 3's by default)."""
    rate_per_s = spec.gpus * failures_per_gpu_year / (365.25 * 86400)
    if rate_per_s <= 0:
        return []
    rng = np.random.default_rng([seed, 1])
    expected = rate_per_s * horizon_s
    count = int(rng.poisson(expected))
    times = np.sort(rng.uniform(0, horizon_s, count))
    nodes = rng.integers(0, spec.nodes, count)
    return [(float(t), int(n)) for t, n in zip(times, nodes, strict=True)]
