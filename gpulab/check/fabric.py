"""Which fabric joins the nodes, and how fast its fastest link is: the reference of ``fleet.allreduce``.

Read from sysfs, as the kernel publishes it (no tool to install, nothing to run as root):

- InfiniBand and RoCE adapters: ``/sys/class/infiniband/<hca>/ports/<port>/rate`` (``"400 Gb/sec
  (4X NDR)"``) for each port whose ``state`` is ``ACTIVE``; ``link_layer`` says ``InfiniBand`` or
  ``Ethernet`` (RoCE).
- Otherwise the network interfaces: ``/sys/class/net/<if>/speed`` in Mb/s for each interface that
  is up and sits on a device (``lo``, bridges, veth and tunnels have no ``device`` entry). A
  virtual NIC reports -1 (a VM's virtio): unknown, so the fabric is unknown.

A node's fabric is its fastest active link: one rank per node drives the cross-node AllReduce
over one adapter, so that adapter's line rate is what it can reach (a node with eight adapters
shares them among eight GPUs' ranks, not one).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Link:
    """One active link: ``kind`` infiniband, roce or ethernet, its name, its line rate in Gb/s."""

    kind: str
    name: str
    gbit_s: float

    @property
    def gb_s(self) -> float:
        """The line rate in GB/s (10^9 bytes per second, as busbw is printed)."""
        return self.gbit_s / 8.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Link | None:
        if not isinstance(data, dict):
            return None
        return cls(str(data["kind"]), str(data["name"]), float(data["gbit_s"]))


_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*Gb/sec")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:  # EINVAL for a down interface's speed, EACCES, gone meanwhile
        return None


def infiniband_links(root: Path) -> list[Link]:
    """Every ACTIVE port of every InfiniBand/RoCE adapter under ``root`` (``/sys/class/infiniband``)."""
    links = []
    for port in sorted(root.glob("*/ports/*")):
        state, rate = _read(port / "state") or "", _read(port / "rate") or ""
        found = _RATE.match(rate)
        if "ACTIVE" not in state.upper() or found is None:
            continue
        layer = (_read(port / "link_layer") or "InfiniBand").lower()
        kind = "roce" if layer == "ethernet" else "infiniband"
        links.append(Link(kind, f"{port.parent.parent.name}/{port.name}", float(found.group(1))))
    return links


def ethernet_links(root: Path) -> list[Link]:
    """Every physical interface under ``root`` (``/sys/class/net``) that is up with a known speed."""
    links = []
    for interface in sorted(root.iterdir()) if root.is_dir() else []:
        if not (interface / "device").exists() or _read(interface / "operstate") != "up":
            continue
        speed = _read(interface / "speed") or ""
        if speed.lstrip("-").isdigit() and int(speed) > 0:
            links.append(Link("ethernet", interface.name, int(speed) / 1000.0))
    return links


def fastest_link(sys_root: Path | str = "/sys") -> Link | None:
    """This node's fastest active link, InfiniBand/RoCE first; None when none is known."""
    root = Path(sys_root)
    for links in (infiniband_links(root / "class" / "infiniband"), ethernet_links(root / "class" / "net")):
        if links:
            return max(links, key=lambda link: link.gbit_s)
    return None
