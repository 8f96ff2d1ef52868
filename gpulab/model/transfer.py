"""Host-device copies over PCIe: time = bytes / (theoretical rate x efficiency x share) + latency.

``share`` is 1 for a copy that has the link to itself; while a copy in the other direction runs
at the same time, each direction keeps the share of its one-way rate that hosts measured with
copies both ways at once (:data:`BOTH_WAYS_SHARE`): the link is full duplex, but the host's side
of it (root complex, memory) is not, and host-to-GPU copies lose the most."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from gpulab.catalogue import Note, msg
from gpulab.model.estimate import ModelEstimate
from gpulab.specs import GpuSpec, shipped_specs

__all__ = [
    "BOTH_WAYS_SHARE",
    "DEFAULT_COPY_LATENCY_S",
    "DEFAULT_PAGEABLE_EFFICIENCY",
    "DEFAULT_PINNED_EFFICIENCY",
    "PCIE_LANES",
    "Direction",
    "PcieLink",
    "both_ways_share",
    "pcie_gb_s_per_direction",
    "transfer_time",
]

Direction = Literal["h2d", "d2h"]

PCIE_LANES = (1, 2, 4, 8, 16)
"""Lane counts a PCIe link trains to (PCI Express Base Specification)."""

DEFAULT_PINNED_EFFICIENCY = 0.85
"""Share of the theoretical link rate a copy from pinned memory reaches. Measured: 25-26 GB/s of
31.5 on Gen4 x16 (82%; NVIDIA/nvbandwidth#11, cuda-samples bandwidthTest on a DGX A100), 56.3 of
63 on Gen5 x16 (89%; nvbandwidth on RTX 5090, tinygrad/open-gpu-kernel-modules#29)."""

DEFAULT_PAGEABLE_EFFICIENCY = 0.33
"""Share for pageable memory, which the driver stages through a pinned buffer: 10.0 GB/s host to
GPU and 10.8 back of 31.5 on a DGX A100 (bandwidthTest, 32 MB; gengwg/gpu nvda_gpu_benchmark.md).
Pageable copies depend on the host's own memory copy: another A100 host there measured 3.3/8.5."""

DEFAULT_COPY_LATENCY_S = 10e-6
"""Assumed fixed cost of starting one copy (driver call plus DMA setup). Not published on its own;
1 MB copies (where it is a fifth of the time) are checked in resources/validation/transfer.toml."""

BOTH_WAYS_SHARE: dict[int, dict[str, float]] = {
    4: {"h2d": 0.47, "d2h": 0.94},
    5: {"h2d": 0.90, "d2h": 0.90},
}
"""Share of its one-way rate each direction keeps while a copy in the other direction runs, by
PCIe generation. Gen4 x16 (nvbandwidth's *_bidirectional_memcpy_ce tests): host to GPU 12-13 GB/s
and GPU to host ~24 GB/s against 25-26 one way on A100 hosts (NVIDIA/nvbandwidth#11; #53 reports
~11 and ~25), 11-16 GB/s host to GPU on RTX 4090 hosts (#15): 12/25.5 and 24/25.5. Gen5 x16:
50.9 GB/s host to GPU both ways against 56.3 one way on RTX 5090 (tinygrad/open-gpu-kernel-modules#29),
101 GB/s both directions together against 56 one way with busGrind (NVIDIA/cuda-samples#357): about
0.9 each. Older generations are assumed to share like Gen4."""


def both_ways_share(gen: int, direction: Direction) -> float:
    """The share of its one-way rate a ``direction`` copy keeps over PCIe ``gen`` while the other
    direction copies too (see :data:`BOTH_WAYS_SHARE`; generations before 4 as Gen4)."""
    if direction not in ("h2d", "d2h"):
        raise ValueError(f"direction must be 'h2d' or 'd2h', got {direction!r}")
    _check_generation(gen)
    return BOTH_WAYS_SHARE[max(4, min(gen, max(BOTH_WAYS_SHARE)))][direction]


def _check_generation(gen: int) -> None:
    known = shipped_specs().pcie_x16_gb_s_per_direction
    if gen not in known:
        raise ValueError(f"unknown PCIe generation {gen!r}; known: {sorted(known)}")


def pcie_gb_s_per_direction(gen: int, lanes: int = 16) -> float:
    """Theoretical PCIe bandwidth in one direction, GB/s (Gen4 x16: 31.5), from the spec table's
    ``[pcie]`` rates (:func:`gpulab.specs.shipped_specs`), the one source of them."""
    _check_generation(gen)
    if lanes not in PCIE_LANES:
        raise ValueError(f"PCIe lanes must be 1, 2, 4, 8 or 16, got {lanes!r}")
    return shipped_specs().pcie_gb_s_per_direction(gen, lanes)


@dataclass(frozen=True)
class PcieLink:
    """A PCIe link between host and GPU."""

    gen: int
    lanes: int = 16

    @property
    def gb_s_per_direction(self) -> float:
        """Theoretical bandwidth in one direction, GB/s."""
        return pcie_gb_s_per_direction(self.gen, self.lanes)

    @property
    def label(self) -> str:
        """``"PCIe Gen4 x16"``."""
        return f"PCIe Gen{self.gen} x{self.lanes}"


def _as_link(link: GpuSpec | PcieLink | int) -> tuple[PcieLink, str]:
    if isinstance(link, GpuSpec):
        return PcieLink(link.pcie_gen, link.pcie_lanes), link.name
    if isinstance(link, PcieLink):
        return link, link.label
    if isinstance(link, int) and not isinstance(link, bool):
        pcie = PcieLink(link)
        return pcie, pcie.label
    raise TypeError(f"expected a GpuSpec, PcieLink or PCIe generation, got {link!r}")


def _transfer_assumptions(link: PcieLink, pinned: bool, efficiency: float, latency_s: float,
                          both_ways: bool) -> tuple[Note, ...]:  # fmt: skip
    copies = "model.assumption.pinned-copies" if pinned else "model.assumption.pageable-copies"
    if both_ways:
        sharing = msg("model.assumption.both-ways", link=link.label, h2d=f"{both_ways_share(link.gen, 'h2d'):.0%}",
                      d2h=f"{both_ways_share(link.gen, 'd2h'):.0%}")
    else:
        sharing = msg("model.assumption.no-copy-overlap")
    return tuple(Note(message) for message in (
        msg("model.assumption.host-link", link=link.label, number=f"{link.gb_s_per_direction:.2f}"),
        msg(copies, percent=f"{efficiency:.0%}"),
        msg("model.assumption.copy-latency", number=f"{latency_s * 1e6:g}"),
        sharing,
    ))


def transfer_time(
    link: GpuSpec | PcieLink | int,
    n_bytes: float,
    *,
    pinned: bool = True,
    direction: Direction = "h2d",
    pinned_efficiency: float = DEFAULT_PINNED_EFFICIENCY,
    pageable_efficiency: float = DEFAULT_PAGEABLE_EFFICIENCY,
    latency_s: float = DEFAULT_COPY_LATENCY_S,
    both_ways: bool = False,
) -> ModelEstimate:
    """Modelled time of one host-device copy of ``n_bytes`` over PCIe.

    ``link`` is a GPU spec (its PCIe generation and lanes), a :class:`PcieLink` or a
    PCIe generation number (x16). Both directions share the same theoretical rate; with
    ``both_ways`` a copy in the other direction runs all the while, and this one keeps only
    :func:`both_ways_share` of its rate. The breakdown has one part named after ``direction``
    (``"h2d"`` or ``"d2h"``).
    """
    if direction not in ("h2d", "d2h"):
        raise ValueError(f"direction must be 'h2d' or 'd2h', got {direction!r}")
    if not n_bytes >= 0 or math.isinf(n_bytes):
        raise ValueError(f"n_bytes must be a finite number >= 0, got {n_bytes!r}")
    if not latency_s >= 0 or math.isinf(latency_s):
        raise ValueError(f"latency_s must be a finite number >= 0, got {latency_s!r}")
    efficiency = pinned_efficiency if pinned else pageable_efficiency
    if not 0 < efficiency <= 1:
        raise ValueError(f"copy efficiency must be in (0, 1], got {efficiency!r}")
    pcie, name = _as_link(link)
    rate_gb_s = pcie.gb_s_per_direction * efficiency * (both_ways_share(pcie.gen, direction) if both_ways else 1.0)
    seconds = n_bytes / (rate_gb_s * 1e9) + latency_s
    return ModelEstimate(
        seconds=seconds,
        breakdown={direction: seconds},
        bound="transfer-bound",
        assumptions=_transfer_assumptions(pcie, pinned, efficiency, latency_s, both_ways),
        gpu_name=name,
        bandwidth_gb_s=rate_gb_s,
    )
