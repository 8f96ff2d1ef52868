"""The node × device view of a report, shared by the text report and the HTML page.

Rows are the nodes (hosts, or ``host#rank`` with ``--each-rank-a-node``), columns the devices
(``report`` when a node's report did not arrive, ``host``, ``cpu``, ``gpu``, ``gpu0``, ``gpu1``, ...), and each
cell holds the worst verdict of the rows there, marked when one of them is an outlier (a device
far behind its siblings, :mod:`gpulab.check.outliers`). The fleet's own row (the cross-node
AllReduce) belongs to no node's cell. Also the thresholds' sources, numbered in order of use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpulab.catalogue import msg, render

from .model import Row, Verdict, worst
from .outliers import SOURCE as OUTLIER_SOURCE
from .registry import threshold

FLEET_CHECKS = frozenset({"fleet.allreduce"})  # rows about the fleet, in no node's cell
_FIRST = ("report", "host", "cpu", "gpu")


@dataclass
class Cell:
    rows: list[Row] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        return worst(row.verdict for row in self.rows)

    @property
    def outlier(self) -> bool:
        return any(is_outlier(row) for row in self.rows)


@dataclass
class NodeTable:
    nodes: list[str]
    devices: list[str]
    cells: dict[tuple[str, str], Cell]

    def cell(self, node: str, device: str) -> Cell | None:
        return self.cells.get((node, device))


def is_outlier(row: Row) -> bool:
    return row.source == OUTLIER_SOURCE and row.verdict is Verdict.FAIL


def _device_key(device: str) -> tuple[int, int, str]:
    if device in _FIRST:
        return (_FIRST.index(device), 0, "")
    numbered = re.fullmatch(r"gpu(\d+)", device)
    if numbered:
        return (len(_FIRST), int(numbered.group(1)), "")
    return (len(_FIRST) + 1, 0, device)


def node_table(rows: Sequence[Row]) -> NodeTable:
    """The node × device table of ``rows`` (nodes in order of first appearance)."""
    nodes: list[str] = []
    cells: dict[tuple[str, str], Cell] = {}
    for row in rows:
        if row.check in FLEET_CHECKS:
            continue
        if row.host not in nodes:
            nodes.append(row.host)
        cells.setdefault((row.host, row.device), Cell()).rows.append(row)
    devices = sorted({device for _node, device in cells}, key=_device_key)
    return NodeTable(nodes, devices, cells)


def outliers(rows: Sequence[Row]) -> list[Row]:
    return [row for row in rows if is_outlier(row)]


def outlier_text(row: Row, lang: str = "en") -> str:
    """``n2 gpu3 GPU memory bandwidth: <its reason>``, in ``lang``."""
    title = row.title(lang)
    return render(msg("check.report.outlier-line", where=f"{row.host} {row.device}", title=title,
                      reason=row.reason), lang)


def source_text(key: str) -> str:
    """The citation beside a threshold (empty when the row names none or the entry has none)."""
    if not key:
        return ""
    try:
        return str(threshold(key).get("source", ""))
    except KeyError:
        return ""


def source_numbers(rows: Sequence[Row]) -> dict[str, int]:
    """Each threshold source the rows name, numbered from 1 in order of first use (only those with a
    citation)."""
    numbers: dict[str, int] = {}
    for row in rows:
        if row.source and row.source not in numbers and source_text(row.source):
            numbers[row.source] = len(numbers) + 1
    return numbers


def is_fleet(machine: object) -> bool:
    """Whether a report's machine facts are a fleet's (merged from nodes)."""
    return isinstance(machine, dict) and "nodes" in machine
