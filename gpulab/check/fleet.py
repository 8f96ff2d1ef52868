"""Fleet mode: ``mpirun``/``srun ... gpulab check`` checks every node and reports them as one.

Under a launcher every process is a rank. The flow, all ranks together:

1. **Roster.** Every rank says its host, whether it is its node's leader and (leaders) the node's
   fastest fabric link, in one ``allgather``: rank 0 knows from the start which nodes must report.
   The ranks of one node agree (MPI's shared-memory split) that the node's first rank runs the
   checks, so two ranks of one node never measure against each other. ``--each-rank-a-node``
   makes every rank its own "node" (named ``host#rank``): for tests and single-host demos, said in
   the report's facts, and the AllReduce between ranks of one host is then never judged.
2. **Cross-node AllReduce.** The leaders time an MPI AllReduce among themselves with the
   collectives lab's own code (:func:`gpulab.cluster.rank_main.measure_mpi`, nccl-tests' busbw),
   right after the roster, while every leader is known to be alive; ``fleet.allreduce`` holds it
   against the slowest node's link (:mod:`gpulab.check.fabric`, ``[fleet.allreduce]`` in
   thresholds.toml).
3. **Checks.** Each leader checks its node; the other ranks wait, sleeping between polls (a
   spinning MPI wait would take a core from the node's CPU checks).
4. **Gather with a deadline.** Each leader sends its report to rank 0 without blocking; rank 0
   polls for them until ``--node-timeout`` seconds after the start. A node that has not reported
   by then is a ``fleet.node`` failure naming its rank and host; rank 0 still writes the report and
   then aborts the job (which also ends a rank that hangs), so the launcher exits non-zero.
5. **Exit code.** Otherwise rank 0 merges the reports (the outlier rule runs again across nodes),
   writes and prints one report, and every rank exits with its code, so the launcher's own exit
   code says whether any node failed.

A rank that *dies* (exits or is killed) is handled by the launcher first: Open MPI's ``prterun``
ends the whole job, naming the rank ("exited with non-zero status ... Process name [...,2]" or
"exiting improperly": a rank that exits 0 without MPI_Finalize), and exits non-zero itself. It
sends SIGTERM to the others about 0.2 s before SIGKILL; rank 0 uses that moment to write the
report it has, with every node not yet reported named as stopped. Either way it is never a pass:
the launcher's exit code is non-zero.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpulab.catalogue import Message, msg

from .fabric import Link, fastest_link
from .model import CheckReport, Row, Verdict
from .outliers import apply_outliers
from .registry import threshold

# How long rank 0 waits for the nodes' reports, from the start of the run (``--node-timeout``).
NODE_TIMEOUT_S = {"quick": 300.0, "full": 1200.0}
REPORT_TAG = 26  # the MPI tag of a node's report (issue 26)
POLL_S = 0.05  # how often a waiting rank looks (sleeping in between)
ALLREDUCE_SOURCE = "fleet.allreduce"
# The cross-node AllReduce: message S in bytes and the time budget of the repeats, per mode.
ALLREDUCE_BYTES = {"quick": 1 << 24, "full": 1 << 26}
ALLREDUCE_BUDGET_S = {"quick": 0.3, "full": 2.0}


@dataclass(frozen=True)
class Member:
    """One rank of the job as the roster knows it."""

    rank: int
    host: str  # the real host name
    node: str  # the node's name in the report (the host, or host#rank with --each-rank-a-node)
    leader: bool  # runs the node's checks
    link: Link | None = None  # the node's fastest fabric link (leaders only; None: unknown)


def node_name(host: str, rank: int, each_rank_a_node: bool) -> str:
    return f"{host}#{rank}" if each_rank_a_node else host


def node_leader(comm: Any) -> bool:
    """Whether this rank is its node's first (the one that runs the node's checks)."""
    from mpi4py import MPI

    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return bool(local.Get_rank() == 0)
    finally:
        local.Free()


def roster(comm: Any, each_rank_a_node: bool = False, host: str | None = None) -> list[Member]:
    """Every rank's host, leadership and (leaders) link, known to every rank."""
    host = host or socket.gethostname()
    leader = True if each_rank_a_node else node_leader(comm)
    link = fastest_link() if leader else None
    said = comm.allgather((host, leader, link.to_json() if link is not None else None))
    return [Member(rank, str(h), node_name(str(h), rank, each_rank_a_node), bool(lead), Link.from_json(found))
            for rank, (h, lead, found) in enumerate(said)]


def leaders(members: Sequence[Member]) -> list[Member]:
    return [m for m in members if m.leader]


# ------------------------------------------------------------------ the cross-node AllReduce


def measure_allreduce(comm: Any, members: Sequence[Member], mode: str) -> dict[str, Any] | None:
    """The leaders' AllReduce point (collectives lab's fields) on every leader; None elsewhere and
    with fewer than two nodes. Every rank calls it (the leaders' communicator is split from all)."""
    from mpi4py import MPI

    from gpulab.cluster import busbw
    from gpulab.cluster.rank_main import measure_mpi

    me = members[comm.Get_rank()]
    heads = leaders(members)
    sub = comm.Split(0 if me.leader else MPI.UNDEFINED, comm.Get_rank())
    if sub == MPI.COMM_NULL:
        return None
    try:
        if len(heads) < 2:
            return None
        plan = busbw.layout("allreduce", ALLREDUCE_BYTES.get(mode, ALLREDUCE_BYTES["quick"]), len(heads))
        return measure_mpi(sub, plan, ALLREDUCE_BUDGET_S.get(mode, ALLREDUCE_BUDGET_S["quick"]))
    finally:
        sub.Free()


def allreduce_row(point: Mapping[str, Any] | None, members: Sequence[Member], each_rank_a_node: bool) -> Row:
    """``fleet.allreduce``: the leaders' busbw against the slowest node's link (see the module)."""
    heads = leaders(members)
    first = heads[0] if heads else members[0]
    facts: dict[str, Any] = {"nodes": [m.node for m in heads], "each_rank_a_node": each_rank_a_node,
                             "links": {m.node: m.link.to_json() if m.link else None for m in heads}}
    where: dict[str, Any] = {"device": "fabric", "host": first.node, "rank": first.rank}
    if point is None or len(heads) < 2:
        return Row("fleet.allreduce", Verdict.SKIP, msg("check.fleet.allreduce.one-node"), facts=facts, **where)
    value = round(float(point["busbw_gb_s"]), 3)
    facts.update({k: point[k] for k in ("message_bytes", "seconds", "algbw_gb_s", "busbw_iqr", "repeats", "wrong")
                  if k in point})
    common: dict[str, Any] = {"value": value, "unit": "GB/s", "facts": facts, **where}
    size = f"{int(point.get('message_bytes', 0)) / 2**20:g} MiB"
    if int(point.get("wrong", 0)):
        return Row("fleet.allreduce", Verdict.FAIL, msg("check.fleet.allreduce.wrong", wrong=point["wrong"]),
                   msg("check.fleet.allreduce.action-wrong"), **common)
    if len({m.host for m in heads}) < 2:
        return Row("fleet.allreduce", Verdict.SKIP, msg("check.fleet.allreduce.one-host", value=f"{value:.3g}",
                                                        nodes=len(heads), size=size), **common)
    unknown = [m.node for m in heads if m.link is None]
    if unknown:
        return Row("fleet.allreduce", Verdict.SKIP, msg("check.fleet.allreduce.unknown-fabric", value=f"{value:.3g}",
                                                        nodes=", ".join(unknown)), **common)
    slowest = min(heads, key=lambda m: m.link.gbit_s if m.link else 0.0)
    link = slowest.link
    assert link is not None
    share = float(threshold(ALLREDUCE_SOURCE)["warn_below_share_of_link"])
    limit = round(share * link.gb_s, 3)
    fields = {"value": f"{value:.3g}", "share": f"{value / link.gb_s:.0%}", "rate": f"{link.gbit_s:g}",
              "kind": link.kind, "link": link.name, "node": slowest.node, "nodes": len(heads), "size": size}
    judged = {**common, "threshold": limit, "comparison": ">=", "source": ALLREDUCE_SOURCE}
    if value >= limit:
        return Row("fleet.allreduce", Verdict.PASS, msg("check.fleet.allreduce.ok", **fields), **judged)
    return Row("fleet.allreduce", Verdict.WARN, msg("check.fleet.allreduce.slow", **fields),
               msg("check.fleet.allreduce.action-slow"), **judged)


# ------------------------------------------------------------------ gathering the nodes' reports


class LauncherStopped(BaseException):
    """The launcher sent SIGTERM (it ends the job when a rank died). A BaseException, so that no
    check's ``except Exception`` turns it into a row."""


@contextlib.contextmanager
def stopped_by_launcher() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`LauncherStopped` (then the old handler is back)."""

    def stop(signum: int, frame: Any) -> None:
        raise LauncherStopped()

    try:
        before = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: no handler, the launcher's signal ends us as usual
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def wait_for(request: Any, sleep: Callable[[float], None] = time.sleep) -> None:
    """Wait for a non-blocking MPI request, sleeping between tests (no core spun)."""
    while not request.Test():
        sleep(POLL_S)


def send_report(comm: Any, report: CheckReport) -> None:
    """A leader's report to rank 0, without blocking in a spinning MPI call."""
    wait_for(comm.isend(report.to_json(), dest=0, tag=REPORT_TAG))


@dataclass
class Collector:
    """Rank 0's view of the nodes' reports: which arrived, which are still expected."""

    members: Sequence[Member]
    documents: dict[int, dict[str, Any]] = field(default_factory=dict)  # leader rank -> report document

    def add(self, rank: int, document: dict[str, Any]) -> None:
        self.documents[rank] = document

    def missing(self) -> list[Member]:
        return [m for m in leaders(self.members) if m.rank not in self.documents]

    def wait(self, comm: Any, deadline: float, clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep) -> None:
        """Receive reports as they arrive (probing, never blocking) until all came or ``deadline``."""
        while True:
            for member in self.missing():
                if member.rank != comm.Get_rank() and comm.Iprobe(source=member.rank, tag=REPORT_TAG):
                    self.add(member.rank, comm.recv(source=member.rank, tag=REPORT_TAG))
            if not self.missing() or clock() >= deadline:
                return
            sleep(POLL_S)


def missing_row(member: Member, why: Message) -> Row:
    """``fleet.node``: a node whose report did not arrive, named by rank and host."""
    return Row("fleet.node", Verdict.FAIL, msg("check.fleet.node.missing", rank=member.rank, host=member.node, why=why),
               msg("check.fleet.node.action", host=member.host), device="report", host=member.node, rank=member.rank,
               facts={"host": member.host})


def share_exit_code(comm: Any, code: int | None) -> int:
    """Rank 0's exit code to every rank (a non-blocking broadcast, waited for while sleeping)."""
    import numpy as np

    buffer = np.array([code or 0], dtype=np.int32)
    wait_for(comm.Ibcast(buffer, root=0))
    return int(buffer[0])


# ------------------------------------------------------------------ one report


def merge(reports: Sequence[Mapping[str, Any] | None], extra_rows: Sequence[Row] = (), mode: str = "quick",
          require_gpu: bool = False) -> CheckReport:
    """One report from the nodes' report documents (in rank order) and the fleet's own rows.

    The outlier rule runs again over all nodes' rows: a GPU far behind its siblings on other
    nodes fails too."""
    from .run import versions

    parts = [CheckReport.from_json(r) for r in reports if r]
    machines = {str(p.machine.get("host", f"rank{i}")): dict(p.machine) for i, p in enumerate(parts)}
    rows = apply_outliers([row for p in parts for row in p.rows]) + list(extra_rows)
    if not parts:  # nobody reported (rank 0 itself was stopped): the fleet's rows alone
        return CheckReport(rows, mode, {"nodes": {}}, versions(), time.strftime("%Y-%m-%dT%H:%M:%S%z"), 0.0,
                           require_gpu)
    first = parts[0]
    return CheckReport(rows, first.mode, {"nodes": machines}, dict(first.versions), first.started,
                       max(p.seconds for p in parts), first.require_gpu)


def fleet_report(collector: Collector, point: Mapping[str, Any] | None, why: Message, each_rank_a_node: bool,
                 mode: str = "quick", require_gpu: bool = False) -> CheckReport:
    """The merged report: every node's rows, ``fleet.allreduce``, a ``fleet.node`` failure for each node
    that did not report (``why`` says how it was given up on), and the fleet's facts."""
    members = collector.members
    extra = [allreduce_row(point, members, each_rank_a_node)] + [missing_row(m, why) for m in collector.missing()]
    report = merge([collector.documents[r] for r in sorted(collector.documents)], extra, mode, require_gpu)
    report.machine = {**report.machine, "fleet": {
        "ranks": len(members), "nodes": len(leaders(members)), "reported": len(collector.documents),
        "hosts": sorted({m.host for m in members}), "each_rank_a_node": each_rank_a_node}}
    return report


# ------------------------------------------------------------------ for tests only

TEST_FAULT_VARIABLE = "GPULAB_CHECK_TEST_FAULT"


def injected_fault_for_tests(rank: int) -> None:
    """A test hook, not a feature: with ``GPULAB_CHECK_TEST_FAULT=exit:R`` rank R exits (status 3)
    and with ``hang:R`` it hangs, after its checks and before its report is sent. The fleet tests
    use it to show that a rank that dies or hangs is named and never a pass."""
    what, _, which = os.environ.get(TEST_FAULT_VARIABLE, "").partition(":")
    if not which.isdigit() or int(which) != rank or what not in ("exit", "hang"):
        return
    print(f"gpulab check: rank {rank}: injected fault ({what}) for a test", flush=True)
    if what == "exit":
        os._exit(3)
    time.sleep(3600)
