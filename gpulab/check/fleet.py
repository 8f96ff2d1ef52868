"""Fleet mode: ``mpirun``/``srun ... gpulab check`` checks every node and reports them as one.

Under a launcher every process is a rank. The ranks of one node agree (MPI's shared-memory
split) that the node's first rank runs the checks, so two ranks of one node never measure
against each other; every other rank only joins the gather. Rank 0 gathers the nodes' reports
(MPI, as the collectives lab gathers its ranks) and merges them into one report whose rows name
their host and rank; every rank then exits with the merged exit code, so the launcher's own exit
code says whether any node failed. A rank that dies takes the job down with the launcher's
error, which is never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import CheckReport


def merge(reports: list[Mapping[str, Any]]) -> CheckReport:
    """One report from the nodes' report documents (in rank order)."""
    parts = [CheckReport.from_json(r) for r in reports if r]
    if not parts:
        raise ValueError("no node reported")
    first = parts[0]
    machines = {str(p.machine.get("host", f"rank{i}")): dict(p.machine) for i, p in enumerate(parts)}
    return CheckReport([row for p in parts for row in p.rows], first.mode, {"nodes": machines},
                       dict(first.versions), first.started, max(p.seconds for p in parts), first.require_gpu)


def node_leader(comm: Any) -> bool:
    """Whether this rank is its node's first (the one that runs the node's checks)."""
    from mpi4py import MPI

    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return bool(local.Get_rank() == 0)
    finally:
        local.Free()


def gather(comm: Any, report: CheckReport | None) -> CheckReport | None:
    """Rank 0 gets the merged report (other ranks None)."""
    documents = comm.gather(report.to_json() if report is not None else None, root=0)
    return merge(documents) if comm.Get_rank() == 0 else None
