"""Host-device copies over PCIe: time = bytes / (theoretical rate x efficiency) + latency."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from gpulab.catalogue import Note, msg
from gpulab.model.estimate import ModelEstimate
from gpulab.specs import GpuSpec

__all__ = [
    "DEFAULT_COPY_LATENCY_S",
    "DEFAULT_PAGEABLE_EFFICIENCY",
    "DEFAULT_PINNED_EFFICIENCY",
    "Direction",
    "PcieLink",
    "pcie_gb_s_per_direction",
    "transfer_time",
]

Direction = Literal["h2d", "d2h"]

# Per-lane signalling rate (GT/s) and line-code efficiency of each PCIe generation, from the
# PCI Express Base Specifications. resources/gpus.toml lists the resulting x16 rates.
_PCIE_GT_PER_S = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}
_PCIE_ENCODING = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130}

DEFAULT_PINNED_EFFICIENCY = 0.85
"""Assumed share of the theoretical link rate a copy from pinned memory reaches (80-90%)."""

DEFAULT_PAGEABLE_EFFICIENCY = 0.5
"""Assumed share for pageable memory, which the driver stages through a pinned buffer."""

DEFAULT_COPY_LATENCY_S = 10e-6
"""Assumed fixed cost of starting one copy (driver call plus DMA setup)."""


def pcie_gb_s_per_direction(gen: int, lanes: int = 16) -> float:
    """Theoretical PCIe bandwidth in one direction, GB/s (Gen4 x16: about 31.5)."""
    if gen not in _PCIE_GT_PER_S:
        raise ValueError(f"unknown PCIe generation {gen!r}; known: {sorted(_PCIE_GT_PER_S)}")
    if lanes not in (1, 2, 4, 8, 16):
        raise ValueError(f"PCIe lanes must be 1, 2, 4, 8 or 16, got {lanes!r}")
    return _PCIE_GT_PER_S[gen] * _PCIE_ENCODING[gen] / 8 * lanes


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


def _transfer_assumptions(link: PcieLink, pinned: bool, efficiency: float, latency_s: float) -> tuple[Note, ...]:
    copies = "model.assumption.pinned-copies" if pinned else "model.assumption.pageable-copies"
    return tuple(Note(message) for message in (
        msg("model.assumption.host-link", link=link.label, number=f"{link.gb_s_per_direction:.2f}"),
        msg(copies, percent=f"{efficiency:.0%}"),
        msg("model.assumption.copy-latency", number=f"{latency_s * 1e6:g}"),
        msg("model.assumption.no-copy-overlap"),
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
) -> ModelEstimate:
    """Modelled time of one host-device copy of ``n_bytes`` over PCIe.

    ``link`` is a GPU spec (its PCIe generation and lanes), a :class:`PcieLink` or a
    PCIe generation number (x16). Both directions share the same theoretical rate.
    The breakdown has one part named after ``direction`` (``"h2d"`` or ``"d2h"``).
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
    seconds = n_bytes / (pcie.gb_s_per_direction * 1e9 * efficiency) + latency_s
    return ModelEstimate(
        seconds=seconds,
        breakdown={direction: seconds},
        bound="transfer-bound",
        assumptions=_transfer_assumptions(pcie, pinned, efficiency, latency_s),
        gpu_name=name,
        bandwidth_gb_s=pcie.gb_s_per_direction * efficiency,
    )
