"""Work counting for the roofline: floating-point operations and the global bytes a launch touches.

Off unless asked for: ``launch(..., count_flops=True)`` compiles a separate variant of the
source (cached apart from the plain one) in which every floating-point ``+ - * /`` and
``fma`` adds the number of its active lanes to a counter; the plain variant has no such
code, so an ordinary launch runs exactly as fast as before. The launch then also records
which bytes of each global buffer its loads and stores touched.

What counts as a FLOP (as nvprof's ``flop_count_sp``/``flop_count_dp`` count them):

- ``a + b``, ``a - b``, ``a * b`` (also in ``+=`` and friends) on ``float`` or ``double``: 1
  per active lane;
- ``a / b``: 1 per lane (a GPU computes it with a reciprocal and a few FMAs, which nvprof
  would count one by one; here a division is one operation, as people count it);
- ``fmaf``/``fma`` and ``__fmaf_r?``: 2; ``__fadd_r?``, ``__fmul_r?``, ``__fdiv_r?``,
  ``__fdividef``: 1;
- not counted: comparisons, conversions, negation, ``++``/``--``, and the math library
  (``sqrtf``, ``expf``, ...), which nvprof does not count either. Expressions folded at
  compile time (``2.0f * 3.0f``) cost nothing, as on a GPU.

A ``sum += a * b`` is 2 FLOP whether the GPU fuses it into one FMA or not.

Bytes (:class:`~.machine.Footprint`, which the machine fills): the distinct bytes of global
memory the launch's loads read and its stores wrote (an atomic both reads and writes). That is
the traffic an ideal cache would leave for DRAM: every byte moved once, however often it is
used. The emulated 32-byte sector traffic (``gld_transactions`` and ``gst_transactions``) is
the other extreme: no reuse at all between instructions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .values import CExpr, Frame

if TYPE_CHECKING:
    from .ctypes_ import CType
    from .machine import Machine, Mask

FLOPS_PER_BUILTIN: dict[str, int] = {"fmaf": 2, "fma": 2, "__fdividef": 1}
for _suffix in ("rn", "rz", "ru", "rd"):
    FLOPS_PER_BUILTIN.update({f"__fmaf_{_suffix}": 2, f"__fadd_{_suffix}": 1, f"__fmul_{_suffix}": 1,
                              f"__fdiv_{_suffix}": 1})
FLOP_OPERATORS = frozenset("+-*/")


class FlopCounting:
    """Compiler mixin: with ``count_flops`` set, floating-point arithmetic counts its lanes."""

    count_flops = False

    def flop_counted(self, e: CExpr, ctype: CType, flops_per_lane: int = 1) -> CExpr:
        """``e`` made to add ``flops_per_lane`` per active lane to the launch's FLOP count when it
        runs; unchanged when not counting, for a non-float type, or for a compile-time constant.
        The counting expression has a side effect, so it is not pure: it is never evaluated for
        lanes that would not run it (a ternary's other side, a short-circuited ``&&``)."""
        if not self.count_flops or e.const is not None or not ctype.is_float:
            return e
        ev = e.ev
        double = ctype.size == 8

        def counted(fr: Frame, m: Mask) -> Any:
            counters = fr.mc.counters
            if double:
                counters.flops_dp += m.count * flops_per_lane
            else:
                counters.flops_sp += m.count * flops_per_lane
            return ev(fr, m)
        return CExpr(e.ctype, counted, False)

    def flop_counted_builtin(self, name: str, e: CExpr) -> CExpr:
        """A builtin call's expression, counted when it is arithmetic (``fmaf`` is 2 FLOP)."""
        per_lane = FLOPS_PER_BUILTIN.get(name)
        return e if per_lane is None else self.flop_counted(e, e.ctype, per_lane)


def work_metrics(mc: Machine) -> dict[str, float]:
    """The counted work of a launch (``count_flops=True``), as metric names."""
    footprint = mc.footprint
    c = mc.counters
    return {
        "flop_count_sp": c.flops_sp,
        "flop_count_dp": c.flops_dp,
        "unique_global_load_bytes": footprint.read_bytes() if footprint is not None else 0,
        "unique_global_store_bytes": footprint.written_bytes() if footprint is not None else 0,
    }
