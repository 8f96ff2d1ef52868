"""``simt.launch``: run one kernel of a CUDA C source on the CPU, lane by lane."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import dynshared
from .ctypes_ import CType
from .errors import KernelFault, SimtError
from .instantiate import template_launch_error
from .layout import VECTOR_TYPES, array_binding_problem, numpy_dtype, struct_argument
from .machine import Counters, Footprint, Machine
from .overloads import select_kernel
from .printf import PrintfRecord
from .symbols import Function, MemoryDecl, Program
from .trace import DEFAULT_TRACED_WARPS, RegisterTrace, TraceStep
from .translate import compile_source
from .values import Frame
from .work import work_metrics

DEFAULT_MAX_STEPS = 10**8
DEFAULT_MAX_LOOP_ITERATIONS = 10**6


@dataclass
class LaunchResult:
    """What an emulated launch produced (provenance ``emulated``: no time is claimed).

    ``args`` are the arguments as passed (arrays were updated in place); ``metrics`` has
    nvprof-style names (see the package docstring); ``trace`` maps traced global warp ids
    to their steps (``trace_truncated`` is True when a warp hit the per-warp step cap);
    ``steps`` is the number of warp-level steps (= ``inst_executed``). ``printf`` holds
    what the kernel's ``printf`` calls printed, one :class:`~gpulab.simt.printf.PrintfRecord`
    per lane and call, in the emulator's order (see :mod:`gpulab.simt.printf`);
    ``printf_lost`` counts the oldest records lost because the 1 MiB buffer was full. An
    error raised by a launch that had printed carries the records so far as its ``printf``.
    """

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: list[Any]
    metrics: dict[str, float]
    trace: dict[int, list[TraceStep]] = field(default_factory=dict)
    steps: int = 0
    lane_steps: int = 0
    provenance: str = "emulated"
    trace_truncated: bool = False
    registers: dict[int, RegisterTrace] = field(default_factory=dict)
    printf: list[PrintfRecord] = field(default_factory=list)
    printf_lost: int = 0


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def metrics_from(c: Counters) -> dict[str, float]:
    """nvprof-style metrics from raw counters."""
    return {
        "inst_executed": c.inst,
        "warp_execution_efficiency": 100.0 * _ratio(c.lane_steps, 32 * c.inst) if c.inst else 0.0,
        "branch_efficiency": 100.0 * _ratio(c.branches - c.divergent_branches, c.branches)
        if c.branches else 100.0,
        "branches": c.branches,
        "divergent_branches": c.divergent_branches,
        "gld_requests": c.gld_requests,
        "gld_transactions": c.gld_transactions,
        "gld_transactions_per_request": _ratio(c.gld_transactions, c.gld_requests),
        "gst_requests": c.gst_requests,
        "gst_transactions": c.gst_transactions,
        "gst_transactions_per_request": _ratio(c.gst_transactions, c.gst_requests),
        "shared_load_requests": c.shared_load_requests,
        "shared_load_transactions": c.shared_load_transactions,
        "shared_load_transactions_per_request": _ratio(c.shared_load_transactions,
                                                       c.shared_load_requests),
        "shared_store_requests": c.shared_store_requests,
        "shared_store_transactions": c.shared_store_transactions,
        "shared_store_transactions_per_request": _ratio(c.shared_store_transactions,
                                                        c.shared_store_requests),
        "atomic_requests": c.atomic_requests,
        "atomic_transactions": c.atomic_transactions,
        "local_load_requests": c.local_load_requests,
        "local_store_requests": c.local_store_requests,
        "constant_load_requests": c.constant_load_requests,
        "constant_load_transactions": c.constant_load_transactions,
        "barriers": c.barriers,
        "lane_steps": c.lane_steps,
    }


def _find_kernel(program: Program, name: str) -> Function:
    name = program.aliases.get(name.strip(), name.strip())
    fn = program.functions.get(name)
    if fn is None and (error := template_launch_error(program, name)) is not None:
        raise error
    if fn is None or not fn.is_kernel:
        known = ", ".join(program.kernels) or "none"
        raise SimtError(f"no __global__ function named {name!r} in the source (kernels: {known})")
    return fn


def _bind_array(mc: Machine, index: int, name: str, ptype: CType, value: Any,
                writebacks: list[tuple[np.ndarray, np.ndarray]]) -> np.int64:
    pointee = ptype.pointee
    if value is None:
        return np.int64(0)
    if not isinstance(value, np.ndarray):
        raise SimtError(f"argument {index} ({ptype} {name}): expected a numpy array, "
                        f"got {type(value).__name__}")
    if pointee is not None and pointee.is_struct:
        problem = array_binding_problem(value, pointee)
        if problem:
            raise SimtError(f"argument {index} ({ptype} {name}): {problem}")
    elif pointee is None or pointee.dtype is None or value.dtype != pointee.dtype:
        want = pointee.dtype.name if pointee is not None and pointee.dtype is not None else "?"
        raise SimtError(f"argument {index} ({ptype} {name}): expected a numpy {want} array, "
                        f"got a {value.dtype.name} array")
    inside = _view_into(value, pointee.dtype if pointee is not None and pointee.dtype is not None else value.dtype)
    if inside is not None:  # d_in + RADIUS: the whole allocation is mapped, the pointer points into it
        whole, offset = inside
        return np.int64(_mapped(mc, whole, index, name) + offset)
    flat = value.reshape(-1) if value.flags.c_contiguous and value.flags.writeable else None
    if flat is None:
        flat = np.ascontiguousarray(value).reshape(-1).copy()
        if value.flags.writeable:
            writebacks.append((value, flat))
        return np.int64(mc.add_global(name, flat, index))
    return np.int64(_mapped(mc, flat, index, name))


def _constant_data(decl: MemoryDecl, constants: Mapping[str, Any]) -> np.ndarray:
    """``decl``'s data for this launch: the host's values (``constants[name]``, as
    cudaMemcpyToSymbol copies them: the first elements, the rest as initialized), else its
    initializer, else zeros."""
    data = decl.init.copy() if decl.init is not None else np.zeros(decl.count, decl.dtype)
    if decl.name not in constants:
        return data
    values = np.asarray(constants[decl.name]).reshape(-1)
    if values.size > decl.count:
        raise SimtError(f"constants[{decl.name!r}] has {values.size} values; the __constant__ array holds "
                        f"{decl.count}", kind="constants-too-many",
                        details={"name": decl.name, "count": values.size, "holds": decl.count})
    if values.dtype != decl.dtype and not np.can_cast(values.dtype, decl.dtype, "same_kind"):
        raise SimtError(f"constants[{decl.name!r}] is {values.dtype.name}; the __constant__ data is "
                        f"{decl.dtype.name}", kind="constants-type",
                        details={"name": decl.name, "got": values.dtype.name, "want": decl.dtype.name})
    data[: values.size] = values
    return data


def _view_into(value: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, int] | None:
    """(the whole array, the byte offset) where ``value`` is a contiguous slice of a writeable,
    contiguous array of its type (``x[RADIUS:]``, the host side of ``d_in + RADIUS``); else None.
    Bounds are then checked against the whole array, as on a GPU."""
    root = value.base
    while isinstance(root, np.ndarray) and root.base is not None and isinstance(root.base, np.ndarray):
        root = root.base
    if not isinstance(root, np.ndarray) or root.dtype != dtype or not value.flags.c_contiguous:
        return None
    if not (root.flags.c_contiguous and root.flags.writeable and value.flags.writeable):
        return None
    offset = value.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset < 0 or offset + value.nbytes > root.nbytes or offset % root.itemsize:
        return None
    return root.reshape(-1), offset


def _mapped(mc: Machine, flat: np.ndarray, index: int, name: str) -> int:
    """The device address of host array ``flat``, mapped once per launch: two arguments that are
    the same array, or views into it, point into one allocation, as two device pointers would."""
    address = flat.__array_interface__["data"][0]
    for region in mc.regions:
        data = region.data
        if region.space == "global" and data.__array_interface__["data"][0] == address and data.nbytes == flat.nbytes:
            return int(region.base)
    return mc.add_global(name, flat, index)


def _bind_scalar(index: int, name: str, ptype: CType, value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.ndim > 0:
        raise SimtError(f"argument {index} ({ptype} {name}): expected a scalar, got an array")
    try:
        return np.asarray(value).astype(ptype.dtype)[()]
    except (TypeError, ValueError, OverflowError) as exc:
        raise SimtError(f"argument {index} ({ptype} {name}): cannot convert {value!r}") from exc


def _member_binder(mc: Machine, index: int, name: str,
                   writebacks: list[tuple[np.ndarray, np.ndarray]]) -> Callable[[str, CType, Any], Any]:
    def bind(path: str, ptype: CType, value: Any) -> Any:
        return _bind_array(mc, index, f"{name}.{path}", ptype, value, writebacks)
    return bind


def _bind_args(mc: Machine, fn: Function, args: Sequence[Any]) -> tuple[list[Any], list]:
    if len(args) != len(fn.params):
        raise SimtError(f"{fn.name} takes {len(fn.params)} arguments, got {len(args)}")
    slots: list[Any] = []
    writebacks: list[tuple[np.ndarray, np.ndarray]] = []
    for index, ((name, ptype), value) in enumerate(zip(fn.params, args, strict=True)):
        if ptype.is_pointer:
            slots.append(_bind_array(mc, index, name, ptype, value, writebacks))
        elif ptype.is_struct:  # by value; a pointer member binds an array like a parameter
            slots.extend(struct_argument(index, name, ptype, value,
                                         _member_binder(mc, index, name, writebacks)))
        else:
            slots.append(_bind_scalar(index, name, ptype, value))
    return slots, writebacks


def _traced_warps(mc_warps_per_block: int, trace: bool | Sequence[int] | None) -> list[int] | None:
    if trace is None or trace is False:
        return None
    if trace is True:
        return list(range(min(mc_warps_per_block, DEFAULT_TRACED_WARPS)))
    return [int(w) for w in trace]


MAX_EMULATED_MEMORY_BYTES = 1 << 30


def _check_memory_size(program: Program, mc: Machine, shared_mem: int = 0) -> None:
    need = (program.shared_bytes + shared_mem) * mc.nblocks + program.local_bytes * mc.nlanes
    if need > MAX_EMULATED_MEMORY_BYTES:
        raise SimtError(f"this launch needs {need / 2**20:.0f} MiB for shared and thread-local "
                        f"arrays; the emulator's limit is {MAX_EMULATED_MEMORY_BYTES >> 20} MiB")


def launch(source: str, kernel: str, grid: int | tuple[int, ...], block: int | tuple[int, ...],
           args: Sequence[Any], trace: bool | Sequence[int] | None = False, *,
           max_steps: int = DEFAULT_MAX_STEPS,
           max_loop_iterations: int = DEFAULT_MAX_LOOP_ITERATIONS,
           cancel: threading.Event | None = None, filename: str = "kernel.cu",
           max_seconds: float | None = None,
           progress: Callable[[int], None] | None = None,
           include_dirs: Sequence[str | os.PathLike[str]] = (), shared_mem: int = 0,
           count_flops: bool = False, fmad: bool = True,
           constants: Mapping[str, Any] | None = None) -> LaunchResult:
    """Emulate ``kernel<<<grid, block>>>(*args)`` from CUDA C ``source``.

    Arrays bind to pointer parameters (dtype must match the pointee) and are updated in
    place; scalars are converted to the parameter type. ``trace=True`` traces the warps
    of block 0 (at most 32); a sequence of global warp ids selects warps (ids outside the
    launch are ignored). ``max_steps`` bounds warp-steps, ``max_loop_iterations`` the
    iterations of any one loop run; ``cancel`` is polled at every step and loop
    back-edge. ``max_seconds`` (None: no limit) stops the launch with a ``time-budget``
    KernelFault once it has run that long; ``progress(warp_steps)`` is called every
    ``machine.PROGRESS_EVERY`` warp-steps. ``filename`` only names the source in messages; ``#include "file"`` is
    searched in ``include_dirs``, in order. Raises CompileError,
    KernelFault, Cancelled or SimtError (bad arguments or launch shape).

    ``shared_mem`` is the bytes of dynamic shared memory per block (``extern __shared__``
    arrays), as CuPy's ``RawKernel(grid, block, args, shared_mem=...)``. A template kernel
    is launched by its instance name, as CuPy's ``name_expressions``: ``"reduce<256>"``.

    ``count_flops`` runs a variant of the kernel that also counts its work (see
    :mod:`gpulab.simt.work`): ``metrics`` then has ``flop_count_sp``, ``flop_count_dp``,
    ``unique_global_load_bytes`` and ``unique_global_store_bytes``.

    ``constants`` fills ``__constant__`` data by name before the launch, as ``cudaMemcpyToSymbol``
    does (values for the first elements; the rest keep their initializer, or zeros).

    ``fmad`` (default True, as nvcc's ``-fmad=true``) fuses ``a * b + c`` into one fma rounded
    once, where nvcc would; ``fmad=False`` compiles as ``nvcc -fmad=false``.
    """
    program = compile_source(source, filename, include_dirs, instantiate=template_requests(kernel),
                             count_flops=count_flops, fmad=fmad)
    fn = _find_kernel(program, select_kernel(program, kernel, args))
    shared_mem = dynshared.check_launch(program, fn.name, shared_mem)
    mc = _new_machine(kernel, grid, block, trace, max_steps, max_loop_iterations, cancel)
    mc.progress = progress
    if max_seconds is not None:
        mc.max_seconds, mc.deadline = max_seconds, time.monotonic() + max_seconds
    mc.record_registers(program.registers)
    if count_flops:
        mc.footprint = Footprint()
    _check_memory_size(program, mc, shared_mem)
    slots, writebacks = _bind_args(mc, fn, args)
    for decl in program.memory:
        if decl.space == "constant":
            mc.add_constant(decl.name, decl.offset, _constant_data(decl, constants or {}))
            continue
        (mc.add_shared if decl.space == "shared" else mc.add_local)(
            decl.name, decl.offset, decl.dtype, decl.count)
    unknown = set(constants or {}) - {d.name for d in program.memory if d.space == "constant"}
    if unknown:
        known = ", ".join(sorted(d.name for d in program.memory if d.space == "constant")) or "none"
        raise SimtError(f"constants= names {', '.join(sorted(unknown))}, which the source does not declare "
                        f"__constant__ (it declares: {known})", kind="constants-unknown",
                        details={"names": ", ".join(sorted(unknown)), "known": known})
    dynamic = dynshared.allocate(mc, program, fn.name, shared_mem)
    try:
        _execute(mc, fn, slots)
    except SimtError as exc:
        if isinstance(exc, KernelFault):
            exc = dynshared.explain(exc, dynamic, shared_mem)
        if mc.printf.records:  # printf debugging of a faulting kernel: what it printed so far
            setattr(exc, "printf", list(mc.printf.records))  # noqa: B010
        raise exc from None
    finally:
        for original, copy in writebacks:
            original[...] = copy.reshape(original.shape)
    metrics = metrics_from(mc.counters) | (work_metrics(mc) if count_flops else {})
    return LaunchResult(kernel, mc.grid, mc.block, list(args), metrics,
                        mc.trace or {}, mc.counters.inst, mc.counters.lane_steps,
                        trace_truncated=mc.trace_truncated,
                        registers=mc.registers.result() if mc.registers is not None else {},
                        printf=list(mc.printf.records), printf_lost=mc.printf.lost)


def template_requests(kernel: str) -> tuple[str, ...]:
    """The template instance a kernel name asks the compiler for (``"reduce<256>"``)."""
    return (kernel.strip(),) if "<" in kernel else ()


def _new_machine(kernel: str, grid: Any, block: Any, trace: bool | Sequence[int] | None,
                 max_steps: int, max_loop_iterations: int,
                 cancel: threading.Event | None) -> Machine:
    try:
        mc = Machine(kernel, grid, block, max_steps=max_steps,
                     max_loop_iterations=max_loop_iterations, cancel=cancel, trace_warps=None)
    except (ValueError, TypeError) as exc:
        raise SimtError(f"bad launch configuration: {exc}") from None
    traced = _traced_warps(mc.warps_per_block, trace)
    if traced is not None:
        mc.select_traced(traced)
    return mc


def _execute(mc: Machine, fn: Function, slots: list[Any]) -> None:
    """Run the kernel body over all lanes; only SimtError (or MemoryError) escapes."""
    frame = Frame(mc, fn.nslots, is_kernel=True)
    frame.v[:len(slots)] = slots
    assert fn.body is not None
    try:
        with np.errstate(all="ignore"):
            fn.body(frame, mc.full)
    except RecursionError:
        raise KernelFault(f"{mc.kernel}: nesting too deep for the emulator", mc.kernel) from None
    except (SimtError, MemoryError):
        raise
    except Exception as exc:  # a bug in the emulator must still surface as a SimtError
        raise SimtError(f"{mc.kernel}: internal error in the emulator ({type(exc).__name__}: "
                        f"{exc}); please report this kernel") from exc


def struct_dtype(source: str, name: str, filename: str = "kernel.cu") -> np.dtype:
    """The numpy dtype with the C layout of struct ``name`` of ``source`` (or of a CUDA vector
    type such as ``float4``): a structured dtype whose arrays bind to ``name*`` parameters and
    whose scalars (``np.zeros((), dtype)[()]``) pass a struct by value."""
    ctype = VECTOR_TYPES.get(name) or compile_source(source, filename).structs.get(name)
    if ctype is None:
        raise SimtError(f"no struct named {name!r} in the source")
    return numpy_dtype(ctype)


def declared_itemsizes(source: str, kernel: str = "", filename: str = "kernel.cu",
                       include_dirs: Sequence[str | os.PathLike[str]] = ()) -> dict[str, int]:
    """Element size in bytes of every pointer parameter and array the source declares, by name:
    ``float* a`` 4, ``__shared__ double t[16][17]`` 8, ``extern __shared__ float4 s[]`` 16.

    Read from the compiled program, so it sees through macros, typedefs and templates;
    ``kernel`` names the template instance to compile (``"reduce<256>"``) as :func:`launch`
    does. Raises :class:`CompileError` for a source the emulator does not compile."""
    program = compile_source(source, filename, include_dirs, instantiate=template_requests(kernel))
    sizes: dict[str, int] = {}
    for fn in program.functions.values():
        for name, ctype in fn.params:
            if ctype.is_pointer and ctype.pointee is not None and ctype.pointee.size:
                sizes[name] = ctype.pointee.size
    sizes.update((decl.name, decl.dtype.itemsize) for decl in program.memory)
    sizes.update((name, ctype.size) for name, ctype in program.dynamic_elements.items())
    return sizes
