"""The two elementwise chains of the fusion lab, what each version of them must move, and the
emulator's exact counts of their ``.cu`` kernels.

A chain is a formula over float32 arrays (``y = (a + b) * c``; the long one
``y = ((a + b) * c - d) * 0.5``) and two ways to run it:

- *unfused*: one kernel (or one numpy ufunc pass) per operator. Every operator but the last
  writes an intermediate array that the next operator reads back.
- *fused*: one kernel (one pass) that keeps the intermediates in registers.

Hand counts, per element, 4 bytes per float32 array read or written:

================  ========  ================================  ==================  ====
chain             launches  bytes unfused                     bytes fused         FLOP
================  ========  ================================  ==================  ====
(a+b)*c           2 vs 1    add 2r+1w, mul 2r+1w: 6 x 4 = 24  3r+1w: 4 x 4 = 16   2
((a+b)*c-d)*0.5   4 vs 1    3 + 3 + 3 + 2 = 11 x 4 = 44       4r+1w: 5 x 4 = 20   4
================  ========  ================================  ==================  ====

The difference is the intermediates' round trips: each is written once and read back once,
8 bytes per element per intermediate (1 in the short chain, 3 in the long one). Reading only
"a, b, c in, y out, plus t out" would give 20 for the short chain and forget that t comes
back in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import kernels
from gpulab.kernels import Args, KernelSpec
from gpulab.lab.base import Cancelled, ExperimentError

FLOAT_BYTES = 4
BLOCK = 256
EMULATED_N = 4096
"""The size the emulator counts at: 128 whole warps, so every count is exact per element."""


@dataclass(frozen=True)
class Step:
    """One operator of the unfused chain: its catalogue kernel, how many arrays it reads (each
    step writes one array) and the numpy ufunc that does the same pass (a one-array step
    multiplies by 0.5)."""

    entry: str
    reads: int
    ufunc: str


@dataclass(frozen=True)
class Chain:
    """A formula, its inputs, its unfused steps and its fused kernel.

    ``formula`` runs on numpy and CuPy arrays alike (it is what "numpy as written" and "CuPy,
    one kernel per operator" run); ``numexpr`` and ``elementwise`` are the same formula for
    numexpr and for a ``cupy.ElementwiseKernel`` body."""

    name: str
    inputs: tuple[str, ...]
    flops_per_element: int
    steps: tuple[Step, ...]
    fused_entry: str
    formula: Callable[..., Any]
    numexpr: str
    elementwise: str

    @property
    def launches_unfused(self) -> int:
        return len(self.steps)

    @property
    def intermediates(self) -> int:
        """Arrays written by one step and read back by the next."""
        return len(self.steps) - 1

    def bytes_fused(self, n: int) -> int:
        """Each input read once, y written once."""
        return FLOAT_BYTES * n * (len(self.inputs) + 1)

    def bytes_unfused(self, n: int) -> int:
        """Every step reads its operands and writes its result."""
        return FLOAT_BYTES * n * sum(step.reads + 1 for step in self.steps)

    def round_trip_bytes(self, n: int) -> int:
        """What the unfused version moves on top: each intermediate written once and read once."""
        return self.bytes_unfused(n) - self.bytes_fused(n)

    def flop_per_byte(self, fused: bool) -> float:
        """Arithmetic intensity of one version (both do the same FLOPs)."""
        bytes_per_element = self.bytes_fused(1) if fused else self.bytes_unfused(1)
        return self.flops_per_element / bytes_per_element


def _short(a: Any, b: Any, c: Any) -> Any:
    return (a + b) * c


def _long(a: Any, b: Any, c: Any, d: Any) -> Any:
    return ((a + b) * c - d) * 0.5


SHORT = Chain("(a+b)*c", ("a", "b", "c"), 2, (Step("fusion_add", 2, "add"), Step("fusion_mul", 2, "multiply")),
              "fusion_fused", _short, "(a + b) * c", "y = (a + b) * c")  # fmt: skip
LONG = Chain("((a+b)*c-d)*0.5", ("a", "b", "c", "d"), 4,
             (Step("fusion_add", 2, "add"), Step("fusion_mul", 2, "multiply"), Step("fusion_sub", 2, "subtract"),
              Step("fusion_half", 1, "multiply")),
             "fusion_fused_long", _long, "((a + b) * c - d) * 0.5", "y = ((a + b) * c - d) * 0.5f")  # fmt: skip
CHAINS: dict[str, Chain] = {chain.name: chain for chain in (SHORT, LONG)}


def chain_named(name: str) -> Chain:
    return CHAINS[name]


# ------------------------------------------------------------- catalogue kernels


def _args_maker(inputs: int) -> Callable[[Mapping[str, int], np.random.Generator], Args]:
    """Arguments (inputs..., output, n) of a kernel reading ``inputs`` float arrays."""

    def make(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
        n = sizes["n"]
        return [*(kernels.random_f32(rng, n) for _ in range(inputs)), np.zeros(n, np.float32), np.int32(n)]

    return make


def _reference(inputs: int, formula: Callable[..., Any]) -> Callable[[Args], dict[int, np.ndarray]]:
    return lambda args: {inputs: np.asarray(formula(*args[:inputs]), dtype=np.float32)}


def _presets() -> tuple[kernels.LaunchPreset, ...]:
    return (kernels.preset_1d("tiny", 64, 64), kernels.preset_1d("small", EMULATED_N, BLOCK),
            kernels.preset_1d("large", 1 << 20, BLOCK))  # fmt: skip


def _spec(entry: str, inputs: int, formula: Callable[..., Any], atol: float = 1e-6) -> KernelSpec:
    return KernelSpec(file=f"{entry}.cu", entry=entry, presets=_presets(), make_args=_args_maker(inputs),
                      reference=_reference(inputs, formula), atol=atol)  # fmt: skip


# A GPU may contract (a + b) * c - d into one fused multiply-add (rounded once), the emulator and
# numpy round twice: near cancellation the two differ by about one float32 ulp of (a + b) * c.
KERNELS = (
    _spec("fusion_add", 2, lambda a, b: a + b),
    _spec("fusion_mul", 2, lambda t, c: t * c),
    _spec("fusion_sub", 2, lambda t, d: t - d),
    _spec("fusion_half", 1, lambda u: u * np.float32(0.5)),
    _spec("fusion_fused", 3, _short),
    _spec("fusion_fused_long", 4, _long, atol=1e-5),
)
_BY_ENTRY = {spec.entry: spec for spec in KERNELS}


def kernel_spec(entry: str) -> KernelSpec:
    return _BY_ENTRY[entry]


# ------------------------------------------------------------- emulator counts


@dataclass(frozen=True)
class EmulatedCounts:
    """What the emulator counted for one version of a chain, summed over its launches."""

    version: str  # "unfused" or "fused"
    n: int
    launches: int
    inst_executed: int  # warp instructions, all launches
    gld_requests: int
    gld_transactions: int  # 32-byte sectors read
    gst_requests: int
    gst_transactions: int  # 32-byte sectors written

    @property
    def global_bytes(self) -> int:
        """Bytes of DRAM traffic the sectors stand for (32 bytes each)."""
        return 32 * (self.gld_transactions + self.gst_transactions)

    @property
    def bytes_per_element(self) -> float:
        return self.global_bytes / self.n

    @property
    def instructions_per_thread(self) -> float:
        """Warp instructions per warp: what one thread executes, all launches together."""
        return self.inst_executed / -(-self.n // 32)

    def as_extra(self) -> dict[str, Any]:
        return {"kind": "emulated", "version": self.version, "n": self.n, "launches": self.launches,
                "inst_executed": self.inst_executed, "instructions_per_thread": self.instructions_per_thread,
                "gld_requests": self.gld_requests, "gld_transactions": self.gld_transactions,
                "gst_requests": self.gst_requests, "gst_transactions": self.gst_transactions,
                "global_bytes": self.global_bytes, "bytes_per_element": self.bytes_per_element}  # fmt: skip


def _launch(entry: str, args: list[Any], n: int, cancel: threading.Event | None) -> Mapping[str, float]:
    from gpulab import simt

    spec = kernel_spec(entry)
    grid, block = kernels.grid_1d(n, BLOCK)
    try:
        return simt.launch(spec.source, entry, grid, block, args, cancel=cancel, filename=spec.file).metrics
    except simt.Cancelled:
        raise Cancelled("cancelled") from None


def _counts(version: str, n: int, metrics: list[Mapping[str, float]]) -> EmulatedCounts:
    def total(key: str) -> int:
        return int(sum(m[key] for m in metrics))

    return EmulatedCounts(version, n, len(metrics), total("inst_executed"), total("gld_requests"),
                          total("gld_transactions"), total("gst_requests"), total("gst_transactions"))  # fmt: skip


def emulate_chain(chain: Chain, n: int = EMULATED_N, cancel: threading.Event | None = None,
                  seed: int = 0) -> tuple[EmulatedCounts, EmulatedCounts]:  # fmt: skip
    """Run the unfused steps and the fused kernel of ``chain`` in the emulator at size ``n``; both
    outputs are checked against the numpy formula. Returns (unfused, fused) counts."""
    rng = np.random.default_rng(seed)
    inputs = [kernels.random_f32(rng, n) for _ in chain.inputs]
    want = np.asarray(chain.formula(*inputs), dtype=np.float32)
    metrics, current, pending = [], inputs[0], list(inputs[1:])
    for step in chain.steps:
        operands = [current, pending.pop(0)] if step.reads == 2 else [current]
        out = np.zeros(n, np.float32)
        metrics.append(_launch(step.entry, [*operands, out, np.int32(n)], n, cancel))
        current = out
    fused = np.zeros(n, np.float32)
    fused_metrics = _launch(chain.fused_entry, [*inputs, fused, np.int32(n)], n, cancel)
    for version, got in (("unfused", current), ("fused", fused)):
        if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
            raise ExperimentError(f"the emulated {version} kernels of {chain.name} disagree with numpy")
    return _counts("unfused", n, metrics), _counts("fused", n, [fused_metrics])
