"""Lane-vectorized execution state of one launch: lanes, masks, memory, counters, trace.

Every thread of the launch is one lane of flat numpy arrays. Each block is padded to a
whole number of warps, so global lane ``l`` is in warp ``l // 32`` (the global warp id)
and in block ``l // lanes_per_block``; padding lanes are never active. Memory is a set of
regions at virtual byte addresses: global buffers (256-byte aligned, like cudaMalloc,
separated by unmapped guard gaps so a stray index faults instead of reading a
neighbour), per-block ``__shared__`` arrays and per-lane local arrays.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import metrics as mx
from .ctypes_ import CType
from .errors import Cancelled, KernelFault
from .printf import PrintfLog
from .registers import RegisterRecorder, RegisterTable
from .trace import MAX_STEPS_PER_WARP, TraceStep

GLOBAL_BASE = 0x7F00_0000_0000
SHARED_BASE = 0x0100_0000
LOCAL_BASE = 0x0200_0000_0000
CONSTANT_BASE = 0x7E00_0000_0000  # __constant__ data, 64 KiB at most
CONSTANT_BYTES = 64 * 1024
GUARD_BYTES = 1 << 20
MAX_LANES = 1 << 24
PROGRESS_EVERY = 1 << 11  # warp-steps between progress reports (a traced run does ~10^4 a second)


@dataclass(frozen=True)
class Site:
    """Where a step happens in the original source (1-based line and columns)."""

    line: int
    col_start: int
    col_end: int


@dataclass
class Region:
    """One addressable allocation."""

    name: str
    space: str  # "global", "shared" or "local"
    base: int
    nbytes: int
    data: np.ndarray  # 1-D for global, (rows, elements) for shared/local
    arg_index: int | None = None
    views: dict[np.dtype, np.ndarray] = field(default_factory=dict)

    @property
    def end(self) -> int:
        return self.base + self.nbytes

    def flat_view(self, dtype: np.dtype) -> np.ndarray:
        """The region's storage as a flat array of ``dtype`` (cached)."""
        view = self.views.get(dtype)
        if view is None:
            view = self.data.reshape(self.data.shape[0], -1).view(dtype).reshape(-1) \
                if self.data.ndim == 2 else self.data.view(dtype)
            self.views[dtype] = view
        return view

    def describe(self) -> str:
        if self.arg_index is not None:
            return f"'{self.name}' (argument {self.arg_index})"
        return f"'{self.name}'"


class Mask:
    """An execution mask over all lanes, with cached counts."""

    __slots__ = ("_idx", "_warp_any", "bits", "count")

    def __init__(self, bits: np.ndarray, count: int | None = None) -> None:
        self.bits = bits
        self.count = int(np.count_nonzero(bits)) if count is None else count
        self._idx: np.ndarray | None = None
        self._warp_any: np.ndarray | None = None

    @property
    def idx(self) -> np.ndarray:
        """Sorted indices of the active lanes."""
        if self._idx is None:
            self._idx = np.flatnonzero(self.bits)
        return self._idx

    @property
    def warp_any(self) -> np.ndarray:
        """Per warp: does it have an active lane."""
        if self._warp_any is None:
            self._warp_any = warp_any(self.bits)
        return self._warp_any

    @property
    def warps(self) -> int:
        """Number of warps with at least one active lane."""
        return int(np.count_nonzero(self.warp_any))

    def where(self, cond: np.ndarray | np.bool_ | bool) -> Mask:
        """Lanes of this mask for which ``cond`` holds."""
        if np.ndim(cond) == 0:
            return self if cond else Mask(np.zeros_like(self.bits), 0)
        return Mask(self.bits & cond)

    def where_not(self, cond: np.ndarray | np.bool_ | bool) -> Mask:
        """Lanes of this mask for which ``cond`` does not hold."""
        if np.ndim(cond) == 0:
            return Mask(np.zeros_like(self.bits), 0) if cond else self
        return Mask(self.bits & ~cond)

    def union(self, other: Mask) -> Mask:
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        return Mask(self.bits | other.bits)


def warp_any(bits: np.ndarray) -> np.ndarray:
    """Per-warp OR of a lane bool array whose length is a multiple of 32."""
    w = bits.view(np.uint64).reshape(-1, 4)
    return (w[:, 0] | w[:, 1] | w[:, 2] | w[:, 3]) != 0


def _dims(value: int | tuple[int, ...] | list[int], what: str) -> tuple[int, int, int]:
    if isinstance(value, (int, np.integer)):
        value = (int(value),)
    dims = tuple(int(v) for v in value) + (1,) * (3 - len(value))
    if len(dims) != 3 or any(d < 1 for d in dims):
        raise ValueError(f"{what} must be a positive int or a tuple of up to 3 positive ints")
    return dims[0], dims[1], dims[2]


@dataclass
class Counters:
    """Raw counts accumulated while running; see ``api.LaunchResult.metrics``."""

    inst: int = 0
    lane_steps: int = 0
    branches: int = 0
    divergent_branches: int = 0
    gld_requests: int = 0
    gld_transactions: int = 0
    gst_requests: int = 0
    gst_transactions: int = 0
    shared_load_requests: int = 0
    shared_load_transactions: int = 0
    shared_store_requests: int = 0
    shared_store_transactions: int = 0
    local_load_requests: int = 0
    local_store_requests: int = 0
    constant_load_requests: int = 0  # warp loads from __constant__ memory
    constant_load_transactions: int = 0  # ... one per distinct address in the warp (the cache serialises them)
    atomic_requests: int = 0
    atomic_transactions: int = 0
    barriers: int = 0
    flops_sp: int = 0  # counted only by a launch with count_flops (see work.py)
    flops_dp: int = 0


class Footprint:
    """Which bytes of each global buffer a launch has read and written (one flag per byte)."""

    def __init__(self) -> None:
        self.read: dict[int, np.ndarray] = {}
        self.written: dict[int, np.ndarray] = {}

    def touch(self, region: Region, kind: str, addresses: np.ndarray, itemsize: int) -> None:
        """Mark the bytes of one access; an atomic (``kind="atomic"``) reads and writes them."""
        offsets = addresses - region.base
        if itemsize > 1:
            offsets = (offsets[:, None] + np.arange(itemsize, dtype=np.int64)).ravel()
        tables = (self.read, self.written) if kind == "atomic" else \
            ((self.read,) if kind == "load" else (self.written,))
        for table in tables:
            flags = table.get(region.base)
            if flags is None:
                flags = table[region.base] = np.zeros(region.nbytes, dtype=bool)
            flags[offsets] = True

    def read_bytes(self) -> int:
        return sum(int(np.count_nonzero(flags)) for flags in self.read.values())

    def written_bytes(self) -> int:
        return sum(int(np.count_nonzero(flags)) for flags in self.written.values())


class Machine:
    """State of one launch; the compiled kernel drives it."""

    def __init__(self, kernel: str, grid: object, block: object, *, max_steps: int,
                 max_loop_iterations: int, cancel: threading.Event | None,
                 trace_warps: list[int] | None, max_seconds: float | None = None,
                 progress: Callable[[int], None] | None = None) -> None:
        self.kernel = kernel
        self.grid = _dims(grid, "grid")  # type: ignore[arg-type]
        self.block = _dims(block, "block")  # type: ignore[arg-type]
        self.threads_per_block = self.block[0] * self.block[1] * self.block[2]
        if self.threads_per_block > 1024:
            raise ValueError(f"a block has at most 1024 threads, not {self.threads_per_block}")
        self.nblocks = self.grid[0] * self.grid[1] * self.grid[2]
        self.lanes_per_block = -(-self.threads_per_block // 32) * 32
        self.warps_per_block = self.lanes_per_block // 32
        self.nlanes = self.nblocks * self.lanes_per_block
        if self.nlanes > MAX_LANES:
            raise ValueError(f"launch too large for the emulator: {self.nlanes} thread slots "
                             f"(limit {MAX_LANES})")
        self.nwarps = self.nlanes // 32
        self.max_steps = max_steps
        self.call_depth = 0
        self.memo: dict[object, tuple[np.ndarray, np.ndarray]] = {}
        self.max_loop_iterations = max_loop_iterations
        self.cancel = cancel
        self.max_seconds = max_seconds
        self.deadline = None if max_seconds is None else time.monotonic() + max_seconds
        self.progress = progress
        self.next_report = PROGRESS_EVERY
        self.loop_line: int | None = None  # the loop that last went round (named by a budget stop)
        self.counters = Counters()
        self.printf = PrintfLog()  # what the lanes' printf calls printed
        self.footprint: Footprint | None = None  # global bytes touched, with count_flops (see work.py)
        self.regions: list[Region] = []
        self._bases = np.zeros(0, dtype=np.int64)
        self._next_global = GLOBAL_BASE
        self._build_lanes()
        self.exited = np.zeros(self.nlanes, dtype=bool)
        self.full = Mask(self.valid.copy(), self.nblocks * self.threads_per_block)
        self.empty = Mask(np.zeros(self.nlanes, dtype=bool), 0)
        self.live_count = self.full.count
        self.trace: dict[int, list[TraceStep]] | None = None
        self.trace_truncated = False
        self.registers: RegisterRecorder | None = None
        self.seq = 0
        self._exited_masks: dict[int, int] = {}
        self._traced: np.ndarray | None = None
        if trace_warps is not None:
            self.select_traced(trace_warps)

    def select_traced(self, warps: list[int]) -> None:
        """Record full traces for these global warp ids (others: metrics only)."""
        chosen = sorted({w for w in warps if 0 <= w < self.nwarps})
        self.trace = {w: [] for w in chosen}
        self._traced = np.array(chosen, dtype=np.int64)

    def record_registers(self, table: RegisterTable) -> None:
        """Also record the traced warps' register values (see :class:`trace.RegisterTrace`)."""
        if self._traced is not None:
            self.registers = RegisterRecorder(table, self._traced)

    def exit_lanes(self, bits: np.ndarray) -> None:
        """The lanes in ``bits`` return from the kernel."""
        self.exited |= bits
        self.live_count = self.full.count - int(np.count_nonzero(self.exited))
        self._exited_masks.clear()

    def _build_lanes(self) -> None:
        """Which lane slots hold real threads; other per-lane arrays are built on demand."""
        t = np.arange(self.lanes_per_block, dtype=np.int64)
        self.valid = np.tile(t < self.threads_per_block, self.nblocks)
        self._lane_arrays: dict[str, np.ndarray] = {}

    def _per_lane(self, key: str, build: Callable[[], np.ndarray]) -> np.ndarray:
        arr = self._lane_arrays.get(key)
        if arr is None:
            arr = build()
            self._lane_arrays[key] = arr
        return arr

    def thread_index(self, axis: int) -> np.ndarray:
        """``threadIdx.{x,y,z}`` of every lane (uint32)."""
        bx, by, _ = self.block

        def build() -> np.ndarray:
            t = np.arange(self.lanes_per_block, dtype=np.int64)
            coord = (t % bx, (t // bx) % by, t // (bx * by))[axis]
            return np.tile(coord.astype(np.uint32), self.nblocks)
        return self._per_lane(f"tid{axis}", build)

    def block_index(self, axis: int) -> np.ndarray:
        """``blockIdx.{x,y,z}`` of every lane (uint32)."""
        gx, gy, _ = self.grid

        def build() -> np.ndarray:
            b = np.arange(self.nblocks, dtype=np.int64)
            coord = (b % gx, (b // gx) % gy, b // (gx * gy))[axis]
            return np.repeat(coord.astype(np.uint32), self.lanes_per_block)
        return self._per_lane(f"bid{axis}", build)

    @property
    def lane_block(self) -> np.ndarray:
        """Block linear id of every lane (int64)."""
        return self._per_lane("block", lambda: np.repeat(
            np.arange(self.nblocks, dtype=np.int64), self.lanes_per_block))

    @property
    def lane_in_warp(self) -> np.ndarray:
        """Lane number within its warp, 0..31 (int64)."""
        return self._per_lane("lane", lambda: np.tile(np.arange(32, dtype=np.int64),
                                                      self.nlanes // 32))

    # ----------------------------------------------------------------- memory layout
    def add_global(self, name: str, array: np.ndarray, arg_index: int) -> int:
        """Map a (contiguous, 1-D) array as a global buffer; return its device address."""
        base = self._next_global
        nbytes = array.nbytes
        self._next_global = base + _align(nbytes, 256) + _align(max(GUARD_BYTES, nbytes), 256)
        self._add_region(Region(name, "global", base, nbytes, array, arg_index))
        return base

    def add_shared(self, name: str, offset: int, dtype: np.dtype, count: int,
                   nbytes: int | None = None) -> None:
        """Allocate a ``__shared__`` array of ``count`` elements at window ``offset``
        (``nbytes``: the addressable size when less than the storage, for dynamic shared)."""
        data = np.zeros((self.nblocks, count), dtype=dtype)
        size = data[0].nbytes if nbytes is None else nbytes
        self._add_region(Region(name, "shared", SHARED_BASE + offset, size, data))

    def add_constant(self, name: str, offset: int, data: np.ndarray) -> None:
        """Map ``__constant__`` data (1-D, filled already) at its compiled offset."""
        self._add_region(Region(name, "constant", CONSTANT_BASE + offset, data.nbytes, data))

    def add_local(self, name: str, offset: int, dtype: np.dtype, count: int) -> None:
        """Allocate a thread-local array of ``count`` elements at local ``offset``."""
        data = np.zeros((self.nlanes, count), dtype=dtype)
        self._add_region(Region(name, "local", LOCAL_BASE + offset, data[0].nbytes, data))

    def _add_region(self, region: Region) -> None:
        self.regions.append(region)
        self.regions.sort(key=lambda r: r.base)
        self._bases = np.array([r.base for r in self.regions], dtype=np.int64)

    # ----------------------------------------------------------------- stepping
    def step(self, m: Mask, site: Site, kind: str = "stmt") -> None:
        """Count one warp-level step for every warp with an active lane."""
        self._tick(m, site)
        if self._traced is not None:
            self._trace_plain(m, site, kind)

    def _tick(self, m: Mask, site: Site) -> None:
        c = self.counters
        c.inst += m.warps
        c.lane_steps += m.count
        if c.inst > self.max_steps:
            line = self.loop_line or site.line
            raise KernelFault(f"{self.kernel}: line {line}: step budget of "
                              f"{self.max_steps} warp-steps exceeded (possible infinite loop "
                              f"at line {line})", self.kernel, line, kind="step-budget",
                              details={"budget": self.max_steps, "loop_line": line})
        self._poll(site)
        if self.progress is not None and c.inst >= self.next_report:
            self.next_report = c.inst + PROGRESS_EVERY
            self.progress(c.inst)

    def _poll(self, site: Site) -> None:
        """Cancellation and the time limit, at every step and loop back-edge."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled(f"{self.kernel}: launch cancelled at line {site.line}", line=site.line)
        if self.deadline is not None and time.monotonic() > self.deadline:
            line = self.loop_line or site.line
            raise KernelFault(f"{self.kernel}: line {line}: time limit of {self.max_seconds:g} s "
                              f"exceeded after {self.counters.inst} warp-steps (possible infinite "
                              f"loop at line {line})", self.kernel, line, kind="time-budget",
                              details={"seconds": self.max_seconds, "loop_line": line,
                                       "steps": self.counters.inst})

    def branch(self, m: Mask, taken: np.ndarray | np.bool_ | bool, site: Site) -> None:
        """Count a branch evaluation; divergent when a warp's active lanes disagree."""
        self._tick(m, site)
        c = self.counters
        warps = m.warps
        c.branches += warps
        if np.ndim(taken) == 0 or warps == 0:
            if self._traced is not None:
                self._trace_plain(m, site, "branch", m.bits if taken else None)
            return
        t = m.bits & taken
        f = m.bits & ~taken
        if np.any(t) and np.any(f):
            c.divergent_branches += int(np.count_nonzero(warp_any(t) & warp_any(f)))
        if self._traced is not None:
            self._trace_plain(m, site, "branch", t)

    def loop_iteration(self, iterations: int, site: Site) -> None:
        """Called at each loop back-edge: cancellation and the per-loop iteration cap."""
        self.loop_line = site.line
        if iterations > self.max_loop_iterations:
            raise KernelFault(f"{self.kernel}: line {site.line}: loop ran more than "
                              f"{self.max_loop_iterations} iterations (possible infinite "
                              f"loop at line {site.line})", self.kernel, site.line, kind="loop-budget",
                              details={"iterations": self.max_loop_iterations})
        self._poll(site)

    def barrier(self, m: Mask, site: Site) -> None:
        """``__syncthreads``: every live thread of a block that reaches it must be here."""
        self.counters.barriers += 1
        if m.count == self.full.count:
            return
        shape = (self.nblocks, self.lanes_per_block)
        here = np.count_nonzero(m.bits.reshape(shape), axis=1)
        live = np.count_nonzero((self.valid & ~self.exited).reshape(shape), axis=1)
        bad = np.flatnonzero((here > 0) & (here != live))
        if len(bad):
            b = int(bad[0])
            missing = np.flatnonzero((self.valid & ~self.exited & ~m.bits).reshape(shape)[b])
            raise KernelFault(
                f"{self.kernel}: line {site.line}: divergent barrier: __syncthreads() reached "
                f"by {here[b]} of the {live[b]} live threads of block {self.block_coords(b)} "
                f"(thread {self.thread_coords(int(missing[0]))} did not arrive)",
                self.kernel, site.line,
                lanes=tuple(int(b * self.lanes_per_block + t) for t in missing[:32]),
                kind="divergent-barrier")

    # ----------------------------------------------------------------- naming lanes
    def block_coords(self, b: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return (b % gx, (b // gx) % gy, b // (gx * gy))

    def thread_coords(self, t: int) -> tuple[int, int, int]:
        bx, by, _ = self.block
        return (t % bx, (t // bx) % by, t // (bx * by))

    def describe_lane(self, lane: int) -> str:
        b, t = divmod(lane, self.lanes_per_block)
        return f"thread (block {_fmt(self.block_coords(b))}, thread {_fmt(self.thread_coords(t))})"

    def check_divisor(self, divisor: Any, m: Mask, site: Site, word: str) -> None:
        """Fault when an active lane divides an integer by zero (the result is undefined)."""
        if isinstance(divisor, np.ndarray) and divisor.ndim:
            zero = divisor == 0
            if not zero.any():
                return
            bad = np.flatnonzero(zero & m.bits)  # values are per lane; only active lanes count
            if not len(bad):
                return
        elif divisor != 0 or not m.count:
            return
        else:
            bad = m.idx
        lane = int(bad[0])
        more = f" [+{len(bad) - 1} more lanes]" if len(bad) > 1 else ""
        raise KernelFault(f"{self.kernel}: line {site.line}: integer {word} by zero by "
                          f"{self.describe_lane(lane)}{more} (the result is undefined on a GPU)",
                          self.kernel, site.line, lanes=tuple(int(x) for x in bad[:64]),
                          kind="division-by-zero")

    # ----------------------------------------------------------------- memory access
    def _lane_addresses(self, addr: np.ndarray | np.integer, m: Mask) -> np.ndarray:
        if isinstance(addr, np.ndarray):
            if m.count == self.nlanes:
                return addr.astype(np.int64, copy=False)
            return addr[m.idx].astype(np.int64, copy=False)
        return np.full(m.count, int(addr), dtype=np.int64)

    def _fault(self, what: str, site: Site, lanes: np.ndarray, addrs: np.ndarray,
               size: int, message: str, region: Region | None) -> KernelFault:
        lane = int(lanes[0])
        more = f" [+{len(lanes) - 1} more lanes]" if len(lanes) > 1 else ""
        buf = region.describe() if region else "memory"
        text = (f"{self.kernel}: line {site.line}: {what} {buf} by "
                f"{self.describe_lane(lane)}{more}: address {int(addrs[0]):#x} {message}")
        return KernelFault(text, self.kernel, site.line, region.name if region else None,
                           tuple(int(x) for x in lanes[:64]), int(addrs[0]), kind="memory")

    def _explain_bad(self, a: int, size: int) -> tuple[Region | None, str]:
        best: tuple[int, Region, str] | None = None
        for r in self.regions:
            if a < r.base:
                d, text = r.base - a, f"is {r.base - a} bytes before the start of"
            elif a >= r.end:
                d = a - r.end + size
                text = "is just past the end of" if a == r.end else f"is {a - r.end} bytes past the end of"
            elif a + size > r.end:
                d = a + size - r.end
                text = f"straddles the end ({a + size - r.end} of its {size} bytes lie beyond it) of"
            else:
                continue
            if best is None or d < best[0]:
                best = (d, r, text)
        if best is None or best[0] > 1 << 32:
            return None, "is not inside any buffer" + (" (null pointer)" if a == 0 else "")
        return best[1], f"{best[2]} a {best[1].nbytes}-byte buffer"

    def _resolve(self, a: np.ndarray, lanes: np.ndarray, size: int, what: str,
                 site: Site) -> list[tuple[Region, np.ndarray | range]]:
        """Split the active lanes by region; fault on out-of-bounds or misaligned lanes."""
        lo, hi = int(a.min()), int(a.max())
        k = int(np.searchsorted(self._bases, lo, side="right")) - 1
        if k >= 0 and hi + size <= self.regions[k].end:
            # every lane (a range costs nothing to make; callers test len(sel) == len(a))
            groups: list[tuple[Region, np.ndarray | range]] = [(self.regions[k], range(len(a)))]
        else:
            groups = list(self._resolve_many(a, lanes, size, what, site))
        if size > 1 and int(np.bitwise_or.reduce(a)) & (size - 1):
            bad = np.flatnonzero(a & (size - 1))
            if len(bad):
                region = groups[0][0] if groups else None
                raise self._fault(f"misaligned {size}-byte {what}", site, lanes[bad], a[bad],
                                  size, "is not aligned", region)
        return groups

    def _resolve_many(self, a: np.ndarray, lanes: np.ndarray, size: int, what: str,
                      site: Site) -> list[tuple[Region, np.ndarray]]:
        ks = np.searchsorted(self._bases, a, side="right") - 1
        ends = np.array([r.end for r in self.regions], dtype=np.int64)
        ok = (ks >= 0) & (a + size <= ends[np.maximum(ks, 0)]) if len(self.regions) \
            else np.zeros(len(a), dtype=bool)
        bad = np.flatnonzero(~ok)
        if len(bad):
            region, message = self._explain_bad(int(a[bad[0]]), size)
            space = f"{region.space} " if region is not None else ""
            raise self._fault(f"out-of-bounds {space}{what}", site, lanes[bad], a[bad], size,
                              message, region)
        return [(self.regions[int(k)], np.flatnonzero(ks == k)) for k in np.unique(ks)]

    def _element_index(self, region: Region, a: np.ndarray, lanes: np.ndarray,
                       dtype: np.dtype) -> np.ndarray:
        shift = dtype.itemsize.bit_length() - 1
        if region.space in ("global", "constant"):  # one copy for every thread
            e = a - region.base
            e >>= shift
            return e
        # flat index = row * row_elems + (a - base) / size = (a >> shift) + first[row]
        first = region.views.get(("rows", dtype))  # type: ignore[call-overload]
        if first is None:
            row_elems = region.data.shape[1] * region.data.itemsize // dtype.itemsize
            rows = self.lane_block if region.space == "shared" \
                else np.arange(self.nlanes, dtype=np.int64)
            first = rows * row_elems - (region.base >> shift)
            region.views[("rows", dtype)] = first  # type: ignore[index]
        e = a >> shift
        e += first if len(lanes) == self.nlanes else first[lanes]
        return e

    def load(self, addr: np.ndarray | np.integer, m: Mask, ctype: CType, site: Site) -> np.ndarray:
        """Per-lane load of ``ctype`` values at byte addresses ``addr`` for active lanes."""
        dtype = ctype.dtype
        assert dtype is not None
        out_full = m.count == self.nlanes
        out = None if out_full else np.zeros(self.nlanes, dtype=dtype)
        if m.count == 0:
            return out  # type: ignore[return-value]
        lanes = m.idx
        a = self._lane_addresses(addr, m)
        for region, sel in self._resolve(a, lanes, dtype.itemsize, "load from", site):
            la, aa = (lanes, a) if len(sel) == len(a) else (lanes[sel], a[sel])
            self._count(region, "load", la, aa, dtype.itemsize, site)
            vals = region.flat_view(dtype)[self._element_index(region, aa, la, dtype)]
            if out_full and len(sel) == len(a):
                return vals
            if out is None:
                out = np.zeros(self.nlanes, dtype=dtype)
            out[la] = vals
        return out  # type: ignore[return-value]

    def store(self, addr: np.ndarray | np.integer, value: np.ndarray | np.generic, m: Mask,
              ctype: CType, site: Site) -> None:
        """Per-lane store; when several lanes write one address the highest lane id wins."""
        dtype = ctype.dtype
        assert dtype is not None
        if m.count == 0:
            return
        lanes = m.idx
        a = self._lane_addresses(addr, m)
        for region, sel in self._resolve(a, lanes, dtype.itemsize, "store to", site):
            la, aa = (lanes, a) if len(sel) == len(a) else (lanes[sel], a[sel])
            if region.space == "constant":  # reached through a pointer cast: the hardware refuses it too
                raise KernelFault(f"{self.kernel}: line {site.line}: store to __constant__ '{region.name}' by "
                                  f"{self.describe_lane(int(la[0]))}: constant memory is read-only in a kernel "
                                  "(the host fills it before the launch)", self.kernel, site.line,
                                  buffer=region.name, lanes=tuple(int(x) for x in la[:64]),
                                  kind="constant-store")  # fmt: skip
            self._count(region, "store", la, aa, dtype.itemsize, site)
            flat = region.flat_view(dtype)
            e = self._element_index(region, aa, la, dtype)
            if isinstance(value, np.ndarray):
                flat[e] = value if len(la) == self.nlanes else value[la]
            else:
                flat[e] = value

    def resolve_for_atomic(self, addr: np.ndarray | np.integer, m: Mask, ctype: CType,
                           site: Site) -> list[tuple[Region, np.ndarray, np.ndarray]]:
        """(region, active lanes, flat element index) groups for an atomic operation."""
        dtype = ctype.dtype
        assert dtype is not None
        lanes = m.idx
        a = self._lane_addresses(addr, m)
        groups = []
        for region, sel in self._resolve(a, lanes, dtype.itemsize, "atomic on", site):
            la, aa = (lanes, a) if len(sel) == len(a) else (lanes[sel], a[sel])
            rq, tx = mx.global_transactions(la, aa)
            self.counters.atomic_requests += rq
            self.counters.atomic_transactions += tx
            if self.footprint is not None:
                self.footprint.touch(region, "atomic", aa, dtype.itemsize)
            self._trace_memory(region, "atomic", la, aa, dtype.itemsize, site)
            groups.append((region, la, self._element_index(region, aa, la, dtype)))
        return groups

    # ----------------------------------------------------------------- metrics
    def _count(self, region: Region, kind: str, lanes: np.ndarray, a: np.ndarray,
               itemsize: int, site: Site) -> None:
        c = self.counters
        if region.space == "global":
            rq, tx = mx.global_transactions(lanes, a)
            if self.footprint is not None:
                self.footprint.touch(region, kind, a, itemsize)
            if kind == "load":
                c.gld_requests += rq
                c.gld_transactions += tx
            else:
                c.gst_requests += rq
                c.gst_transactions += tx
        elif region.space == "shared":
            rq, tx = mx.shared_transactions(lanes, a, itemsize)
            if kind == "load":
                c.shared_load_requests += rq
                c.shared_load_transactions += tx
            else:
                c.shared_store_requests += rq
                c.shared_store_transactions += tx
        elif region.space == "constant":
            # The constant cache broadcasts one address to a warp and serialises distinct ones.
            warps = lanes // 32
            c.constant_load_requests += len(np.unique(warps))
            c.constant_load_transactions += len(np.unique(warps * (CONSTANT_BYTES + 1) + (a - region.base)))
        elif kind == "load":
            c.local_load_requests += len(mx.warp_rows(lanes)[1])
        else:
            c.local_store_requests += len(mx.warp_rows(lanes)[1])
        if self._traced is not None:
            self._trace_memory(region, kind, lanes, a, itemsize, site)

    # ----------------------------------------------------------------- tracing
    def _warp_mask(self, bits: np.ndarray, w: int) -> int:
        chunk = np.packbits(bits[w * 32:(w + 1) * 32], bitorder="little")
        return int.from_bytes(chunk.tobytes(), "little")

    def _append(self, w: int, step: TraceStep) -> None:
        assert self.trace is not None
        steps = self.trace[w]
        if len(steps) < MAX_STEPS_PER_WARP:
            steps.append(step)
        else:
            self.trace_truncated = True

    def _exited_mask(self, w: int) -> int:
        mask = self._exited_masks.get(w)
        if mask is None:
            mask = self._exited_masks[w] = self._warp_mask(self.exited, w)
        return mask

    def _trace_plain(self, m: Mask, site: Site, kind: str,
                     taken: np.ndarray | None = None) -> None:
        assert self._traced is not None
        self.seq += 1
        for w in self._traced[m.warp_any[self._traced]].tolist():
            taken_mask = None
            if kind == "branch":
                taken_mask = self._warp_mask(taken, w) if taken is not None else 0
            self._append(w, TraceStep(site.line, site.col_start, site.col_end, kind,
                                      self._warp_mask(m.bits, w), taken_mask=taken_mask,
                                      seq=self.seq, exited_mask=self._exited_mask(w)))

    def _trace_memory(self, region: Region, kind: str, lanes: np.ndarray, a: np.ndarray,
                      itemsize: int, site: Site) -> None:
        if self._traced is None:
            return
        warps = lanes >> 5
        self.seq += 1
        for w in self._traced.tolist():
            lo, hi = np.searchsorted(warps, [w, w + 1])
            if lo == hi:
                continue
            self._append(int(w), self._memory_step(region, kind, lanes[lo:hi], a[lo:hi],
                                                   itemsize, site))

    def _memory_step(self, region: Region, kind: str, lanes: np.ndarray, a: np.ndarray,
                     itemsize: int, site: Site) -> TraceStep:
        per_lane: list[int | None] = [None] * 32
        mask = 0
        for lane, addr in zip((lanes & 31).tolist(), a.tolist(), strict=True):
            per_lane[lane] = addr
            mask |= 1 << lane
        degree = 0
        sectors: tuple[int, ...] = ()
        lines: tuple[int, ...] = ()
        if region.space == "shared":
            degree = int(mx.shared_wavefronts_per_warp(lanes, a, itemsize)[0])
        else:
            sectors = tuple(sorted({x >> 5 for x in a.tolist()}))
            lines = tuple(sorted({x >> 7 for x in a.tolist()}))
        w = int(lanes[0]) >> 5
        return TraceStep(site.line, site.col_start, site.col_end, kind, mask, tuple(per_lane),
                         sectors, lines, degree, region.space, region.name, seq=self.seq,
                         itemsize=itemsize, exited_mask=self._exited_mask(w))


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


def _fmt(t: tuple[int, int, int]) -> str:
    return f"({t[0]},{t[1]},{t[2]})"
