"""Message sizes, algorithm bandwidth and bus bandwidth of the six collectives, as nccl-tests defines them.

nccl-tests (github.com/NVIDIA/nccl-tests, ``src/*.cu``, the ``*GetBw`` functions) reports two rates
for a collective that took ``t`` seconds on ``n`` ranks:

* algbw = S / t, where S is the message: the buffer one rank holds. For AllReduce, Broadcast
  and Reduce it is the ``count`` elements every rank passes; for AllGather and ReduceScatter it
  is the *whole* buffer of ``n`` chunks (AllGather's output, ReduceScatter's input); for AlltoAll
  the n chunks a rank sends.
* busbw = algbw × a factor that makes the figure comparable with the speed of the slowest link,
  whatever the collective and ``n``: the factor is the share of S that must cross a rank's
  link in the best algorithm. AllReduce 2(n−1)/n (a reduce-scatter then an all-gather);
  AllGather, ReduceScatter and AlltoAll (n−1)/n (every rank lacks all chunks but its own);
  Broadcast and Reduce 1 (the whole message passes every link of a pipeline once).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "COLLECTIVES",
    "ELEMENT_BYTES",
    "Layout",
    "algbw_gb_s",
    "bus_factor",
    "busbw_gb_s",
    "display_name",
    "layout",
]

# Registry names, in the order the lab shows them.
COLLECTIVES = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall")
_DISPLAY = {"allreduce": "AllReduce", "allgather": "AllGather", "reducescatter": "ReduceScatter",
            "broadcast": "Broadcast", "reduce": "Reduce", "alltoall": "AlltoAll"}  # fmt: skip
# Collectives whose message S is n chunks of ``count`` elements (nccl-tests multiplies by nranks).
_CHUNKED = frozenset({"allgather", "reducescatter", "alltoall"})
ELEMENT_BYTES = 4  # float32, summed


def display_name(collective: str) -> str:
    """'allreduce' -> 'AllReduce' (the names stay in Latin letters in every language)."""
    return _DISPLAY[collective]


def bus_factor(collective: str, ranks: int) -> float:
    """busbw / algbw for ``collective`` on ``ranks`` ranks (nccl-tests' factors)."""
    if collective not in _DISPLAY:
        raise ValueError(f"no collective {collective!r} (known: {', '.join(COLLECTIVES)})")
    if ranks < 1:
        raise ValueError(f"ranks must be at least 1, got {ranks}")
    if collective == "allreduce":
        return 2.0 * (ranks - 1) / ranks
    if collective in _CHUNKED:
        return (ranks - 1) / ranks
    return 1.0


@dataclass(frozen=True)
class Layout:
    """What one call moves: ``count`` elements per rank (per chunk for the chunked collectives),
    each rank's send and receive buffer lengths in elements, and S, the message in bytes."""

    collective: str
    ranks: int
    count: int
    send_elements: int
    recv_elements: int
    message_bytes: int


def layout(collective: str, message_bytes: int, ranks: int) -> Layout:
    """The buffers of ``collective`` for a message of about ``message_bytes`` (S) on ``ranks`` ranks.

    S is rounded down to whole float32 elements (whole chunks of n for the chunked collectives),
    and up to one element (chunk) at least, so the returned ``message_bytes`` is what was moved."""
    bus_factor(collective, ranks)  # checks both
    chunks = ranks if collective in _CHUNKED else 1
    count = max(1, int(message_bytes) // (ELEMENT_BYTES * chunks))
    whole = count * chunks
    send, recv = {
        "allreduce": (count, count),
        "allgather": (count, whole),
        "reducescatter": (whole, count),
        "broadcast": (count, count),
        "reduce": (count, count),
        "alltoall": (whole, whole),
    }[collective]
    return Layout(collective, ranks, count, send, recv, whole * ELEMENT_BYTES)


def algbw_gb_s(message_bytes: float, seconds: float) -> float:
    """S / t in GB/s (10^9 bytes per second, as nccl-tests prints)."""
    return message_bytes / seconds / 1e9 if seconds > 0 else 0.0


def busbw_gb_s(collective: str, message_bytes: float, seconds: float, ranks: int) -> float:
    """algbw × :func:`bus_factor`."""
    return algbw_gb_s(message_bytes, seconds) * bus_factor(collective, ranks)
