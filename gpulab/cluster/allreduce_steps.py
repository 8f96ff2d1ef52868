"""Ring and tree AllReduce, executed step by step on real float32 data.

Every rank holds a vector of the same length; AllReduce leaves the element-wise sum of all of
them on every rank. The vector is cut into ``n`` chunks (one per rank, as :func:`numpy.array_split`
cuts it). Two algorithms are played here, exactly, on numpy arrays:

- **ring**: ranks 0 … n−1 in a circle, each sending only to its right neighbour. First
  reduce-scatter (n−1 steps: in step s rank r sends chunk (r − s) mod n, which its neighbour adds
  to its own copy), after which rank r holds the full sum of chunk (r + 1) mod n; then all-gather
  (n−1 steps: the finished chunks travel once round the ring and overwrite). In every one of the
  2(n−1) steps every rank sends S/n bytes, so each rank sends 2(n−1)/n·S in all: the busbw factor.
- **tree**: a binary tree with rank 0 at the root and rank i's children 2i+1 and 2i+2. The whole
  vector goes up level by level, each parent adding what its children send (reduce), then the sum
  comes down level by level (broadcast): 2·⌊log₂ n⌋ steps, each message S bytes. This tree is not
  pipelined; NCCL's tree is two binary trees (a double binary tree) fed with small pipelined chunks.

A :class:`Step` records which chunks moved on which link (with the values sent) and every rank's
buffer afterwards, with a bit mask per chunk of the ranks whose data it already sums. The link
model at the end turns counted bytes into times: every rank has one port of B bytes/s each way,
and a step lasts as long as its busiest port needs (no latency), so a ring takes 2(n−1)/n·S/B.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

ALGORITHMS = ("ring", "tree")
PHASES = ("start", "reduce-scatter", "all-gather", "reduce", "broadcast")
ADDING_PHASES = ("reduce-scatter", "reduce")  # the receiver adds; in the others it overwrites
BYTES_PER_VALUE = 4  # float32


@dataclass(frozen=True)
class Transfer:
    """One message: ``src`` sends ``chunks`` (their ``values``, ``bytes`` in all) to ``dst``."""

    src: int
    dst: int
    chunks: tuple[int, ...]
    bytes: int
    values: np.ndarray


@dataclass(frozen=True)
class Step:
    """The state after one step (``index`` 1, 2 …; 0 is the start, before anything moved).

    ``buffers[r]`` is rank r's whole vector after the step; ``contributors[r][c]`` the bit mask of
    the ranks whose data chunk c of rank r sums (bit k set: rank k's values are in it)."""

    index: int
    phase: str
    transfers: tuple[Transfer, ...]
    buffers: tuple[np.ndarray, ...]
    contributors: tuple[tuple[int, ...], ...]

    @property
    def ranks(self) -> int:
        return len(self.buffers)


def chunk_bounds(elements: int, chunks: int) -> list[tuple[int, int]]:
    """(start, stop) of each chunk when ``elements`` values are cut into ``chunks`` (as array_split)."""
    base, extra = divmod(elements, chunks)
    bounds, start = [], 0
    for c in range(chunks):
        stop = start + base + (1 if c < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def contributor_count(mask: int) -> int:
    """How many ranks' data a chunk sums: the set bits of its mask."""
    return bin(mask).count("1")


def _frozen(array: np.ndarray) -> np.ndarray:
    copy = np.array(array, dtype=np.float32, copy=True)
    copy.flags.writeable = False
    return copy


class _Ranks:
    """Every rank's buffer and chunk masks while an algorithm runs."""

    def __init__(self, data: np.ndarray) -> None:
        data = np.asarray(data, dtype=np.float32)
        if data.ndim != 2 or data.shape[0] < 2 or data.shape[1] < data.shape[0]:
            raise ValueError(f"data must be (ranks >= 2, elements >= ranks), got shape {data.shape}")
        self.n = data.shape[0]
        self.buffers = [row.copy() for row in data]
        self.bounds = chunk_bounds(data.shape[1], self.n)
        self.masks = [[1 << r] * self.n for r in range(self.n)]

    def send(self, src: int, dst: int, chunks: Sequence[int], add: bool) -> Transfer:
        """Move ``chunks`` from src to dst (dst adds them or overwrites with them)."""
        values = np.concatenate([self.buffers[src][slice(*self.bounds[c])] for c in chunks])
        offset = 0
        for c in chunks:
            start, stop = self.bounds[c]
            part = values[offset : offset + stop - start]
            offset += stop - start
            if add:
                self.buffers[dst][start:stop] += part
                self.masks[dst][c] |= self.masks[src][c]
            else:
                self.buffers[dst][start:stop] = part
                self.masks[dst][c] = self.masks[src][c]
        return Transfer(src, dst, tuple(chunks), values.size * BYTES_PER_VALUE, _frozen(values))

    def step(self, index: int, phase: str, transfers: list[Transfer]) -> Step:
        return Step(index, phase, tuple(transfers), tuple(_frozen(b) for b in self.buffers),
                    tuple(tuple(m) for m in self.masks))  # fmt: skip


def start_state(data: np.ndarray) -> Step:
    """Step 0: each rank holds its own vector; every chunk sums one rank's data."""
    return _Ranks(data).step(0, "start", [])


def ring_steps(data: np.ndarray) -> Iterator[Step]:
    """Ring AllReduce on ``data`` (one row per rank): n−1 reduce-scatter steps, then n−1 all-gather steps.

    All sends of a step read the buffers as they were before the step (they happen at once), which
    holds here because in a step no rank receives a chunk that it also sends."""
    ranks = _Ranks(data)
    n = ranks.n
    for s in range(n - 1):
        sends = [ranks.send(r, (r + 1) % n, [(r - s) % n], add=True) for r in range(n)]
        yield ranks.step(s + 1, "reduce-scatter", sends)
    for s in range(n - 1):
        sends = [ranks.send(r, (r + 1) % n, [(r + 1 - s) % n], add=False) for r in range(n)]
        yield ranks.step(n + s, "all-gather", sends)


def tree_parent(rank: int) -> int | None:
    return None if rank == 0 else (rank - 1) // 2


def tree_level(rank: int) -> int:
    """Rank 0 is level 0; ranks 1-2 level 1; 3-6 level 2 …"""
    return (rank + 1).bit_length() - 1


def tree_depth(n: int) -> int:
    """The deepest level of an n-rank tree: ⌊log₂ n⌋."""
    return tree_level(n - 1)


def tree_steps(data: np.ndarray) -> Iterator[Step]:
    """Binary-tree AllReduce: each level sends its whole vector to its parent, deepest level first
    (the parent adds), then the root's sum goes down a level per step (the child overwrites)."""
    ranks = _Ranks(data)
    n, depth = ranks.n, tree_depth(ranks.n)
    everything = list(range(n))
    index = 0
    for level in range(depth, 0, -1):
        senders = [r for r in range(n) if tree_level(r) == level]
        index += 1
        sends = [ranks.send(r, tree_parent(r) or 0, everything, add=True) for r in senders]
        yield ranks.step(index, "reduce", sends)
    for level in range(1, depth + 1):
        receivers = [r for r in range(n) if tree_level(r) == level]
        index += 1
        sends = [ranks.send(tree_parent(r) or 0, r, everything, add=False) for r in receivers]
        yield ranks.step(index, "broadcast", sends)


def steps(algorithm: str, data: np.ndarray) -> list[Step]:
    """The start state and every step of ``algorithm`` ("ring" or "tree") on ``data``."""
    runners = {"ring": ring_steps, "tree": tree_steps}
    if algorithm not in runners:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    return [start_state(data), *runners[algorithm](data)]


def step_count(algorithm: str, n: int) -> int:
    """Steps after the start: 2(n−1) for the ring, 2·⌊log₂ n⌋ for the tree."""
    return 2 * (n - 1) if algorithm == "ring" else 2 * tree_depth(n)


# ---------------------------------------------------------------- bytes on links and ports


def link_bytes(step: Step) -> dict[tuple[int, int], int]:
    """Bytes on each directed link (src, dst) in this step."""
    out: dict[tuple[int, int], int] = {}
    for t in step.transfers:
        out[(t.src, t.dst)] = out.get((t.src, t.dst), 0) + t.bytes
    return out


def total_link_bytes(run: Sequence[Step]) -> dict[tuple[int, int], int]:
    """Bytes each directed link carried over the whole run."""
    out: dict[tuple[int, int], int] = {}
    for step in run:
        for link, count in link_bytes(step).items():
            out[link] = out.get(link, 0) + count
    return out


def port_bytes(step: Step) -> tuple[list[int], list[int]]:
    """(bytes each rank sends, bytes each rank receives) in this step."""
    sent, received = [0] * step.ranks, [0] * step.ranks
    for t in step.transfers:
        sent[t.src] += t.bytes
        received[t.dst] += t.bytes
    return sent, received


def busiest_port_bytes(step: Step) -> int:
    """What the busiest port moves in one direction this step: it sets the step's length."""
    sent, received = port_bytes(step)
    return max([*sent, *received, 0])


def bytes_sent_per_rank(run: Sequence[Step]) -> list[int]:
    """Bytes each rank sent over the whole run."""
    totals = [0] * run[0].ranks
    for step in run:
        for rank, count in enumerate(port_bytes(step)[0]):
            totals[rank] += count
    return totals


# ---------------------------------------------------------------- the link model and the yardsticks


def busbw_factor(n: int) -> float:
    """2(n−1)/n: busbw = algbw × this for AllReduce (the nccl-tests definition)."""
    return 2.0 * (n - 1) / n


def model_seconds(run: Sequence[Step], link_bytes_per_s: float) -> float:
    """The run's time under the link model: each step lasts its busiest port's bytes ÷ B."""
    return sum(busiest_port_bytes(step) for step in run) / link_bytes_per_s


def ring_seconds(message_bytes: float, n: int, link_bytes_per_s: float) -> float:
    """The hand formula for a ring: t = 2(n−1)/n · S / B."""
    return busbw_factor(n) * message_bytes / link_bytes_per_s


def algbw(message_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth: the message size over the time, S / t."""
    return message_bytes / seconds


def busbw(algbw_value: float, n: int) -> float:
    """Bus bandwidth: algbw × 2(n−1)/n, what each link carries per second in a ring."""
    return algbw_value * busbw_factor(n)


# ---------------------------------------------------------------- checking the answer


@dataclass(frozen=True)
class Verification:
    """Did every rank end with the plain sum? ``max_abs_error`` against the float64 sum, within
    ``bound`` (float32 rounding of n additions in another order); ``ranks_agree``: all ranks hold
    the very same bits."""

    max_abs_error: float
    bound: float
    ranks_agree: bool

    @property
    def ok(self) -> bool:
        return self.ranks_agree and self.max_abs_error <= self.bound


def verify(data: np.ndarray, final: Step) -> Verification:
    """Compare every rank's final buffer with the plain sum of the rows of ``data``."""
    data = np.asarray(data, dtype=np.float32)
    exact = data.astype(np.float64).sum(axis=0)
    errors = [float(np.max(np.abs(b.astype(np.float64) - exact))) for b in final.buffers]
    n = data.shape[0]
    bound = float(n * np.finfo(np.float32).eps * np.max(np.abs(data.astype(np.float64)).sum(axis=0)))
    agree = all(np.array_equal(final.buffers[0], b) for b in final.buffers[1:])
    return Verification(max(errors), bound, agree)


# ---------------------------------------------------------------- JSON form (a result point's extra)


def step_to_json(step: Step) -> dict[str, Any]:
    """A step as plain data: what a saved result keeps, so it reopens with its animation."""
    return {
        "index": step.index,
        "phase": step.phase,
        "transfers": [{"src": t.src, "dst": t.dst, "chunks": list(t.chunks), "bytes": t.bytes,
                       "values": [float(v) for v in t.values]} for t in step.transfers],
        "buffers": [[float(v) for v in b] for b in step.buffers],
        "contributors": [list(m) for m in step.contributors],
    }  # fmt: skip


def step_from_json(data: Mapping[str, Any]) -> Step:
    """A step from :func:`step_to_json`'s form; ValueError when a field is missing or malformed."""
    try:
        transfers = tuple(Transfer(int(t["src"]), int(t["dst"]), tuple(int(c) for c in t["chunks"]),
                                   int(t["bytes"]), _frozen(np.asarray(t["values"], dtype=np.float32)))
                          for t in data["transfers"])  # fmt: skip
        buffers = tuple(_frozen(np.asarray(b, dtype=np.float32)) for b in data["buffers"])
        masks = tuple(tuple(int(m) for m in row) for row in data["contributors"])
        phase = str(data["phase"])
        index = int(data["index"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a step record: {exc}") from None
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(PHASES)}, got {phase!r}")
    return Step(index, phase, transfers, buffers, masks)
