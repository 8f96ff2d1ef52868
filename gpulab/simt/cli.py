"""``gpulab emulate FILE.cu --kernel NAME --grid G --block B --arg ...``

Runs one kernel in the SIMT emulator and prints its metrics (provenance: emulated).

Arguments, one ``--arg`` per kernel parameter, in order:

* arrays: ``DTYPE[COUNT]=INIT`` with DTYPE one of float32, float64, int32, uint32, int64,
  uint64, int8, uint8, bool (or the C names float, double, int, unsigned, char ...), and
  INIT one of ``random`` (floats uniform in [0, 1), integers in [0, 100); seed 0),
  ``zeros``, ``ones``, ``arange`` or a number (every element). Example:
  ``--arg float32[4096]=random``.
* a pointer into an array, as the host's ``d_in + RADIUS``: ``DTYPE[COUNT]=INIT@OFFSET`` makes
  the COUNT-element array and passes a pointer to its element OFFSET (0 <= OFFSET < COUNT); the
  kernel may read before that element, and bounds are those of the whole array. Example, a 1-D
  stencil with RADIUS 2 over 1024 outputs: ``--arg float32[1028]=random@2``.
* a second pointer into an earlier argument's array: ``@N+OFFSET`` (or ``@N`` for its start)
  points to element OFFSET of the array that the N-th ``--arg`` made (counting from 1, as the
  error messages do), so two parameters share one allocation: ``--arg int32[64]=arange --arg @1+32``.
* scalars: ``TYPE=VALUE`` (``int=4096``, ``float=0.5``) or just ``VALUE``; the value is
  converted to the parameter's C type.

Grid and block: ``256``, ``16,16`` or ``16x16x1``.

``#include "file"`` is searched in the kernel file's folder, then in each ``--include-dir``.
What the kernel's ``printf`` calls print comes first, one line per lane and call tagged
``[block (x,y,z) thread (x,y,z)]``, in the emulator's order (see ``gpulab.simt.printf``).
``--shared-mem BYTES`` gives each block that many bytes of dynamic shared memory
(``extern __shared__`` arrays). A template kernel is named with its template arguments:
``--kernel 'reduce<256>'``. An overloaded kernel is named plainly (``--kernel scale``); the
overload is the one the ``--arg`` types select (array dtypes; an integer or a decimal number).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .api import DEFAULT_MAX_STEPS, launch, template_requests
from .argcheck import ArgumentError, range_text, value_problem
from .errors import SimtError
from .overloads import select_kernel
from .translate import compile_source

DEFAULT_TIME_LIMIT_S = 60.0  # a runaway kernel stops within a minute

_DTYPES = {
    "float32": np.float32, "float": np.float32, "float64": np.float64, "double": np.float64,
    "int32": np.int32, "int": np.int32, "uint32": np.uint32, "unsigned": np.uint32,
    "uint": np.uint32, "int64": np.int64, "longlong": np.int64, "uint64": np.uint64,
    "int8": np.int8, "char": np.int8, "uint8": np.uint8, "uchar": np.uint8, "bool": np.bool_,
}
_ARRAY = re.compile(r"^(\w+)\[(\d+)\](?:=([^@]+))?(?:@(.*))?$")
_REFERENCE = re.compile(r"^@\s*(\S*?)\s*(?:([+-])\s*(\S*))?$")


def parse_dims(text: str) -> tuple[int, ...]:
    """``"16,16"``, ``"16x16"`` or ``"256"`` -> tuple of ints."""
    parts = [p for p in re.split(r"[,x×]", text.strip()) if p]
    if not parts or len(parts) > 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected up to 3 positive integers, got {text!r}")
    return tuple(int(p) for p in parts)


def _fill(dtype: type, count: int, init: str, rng: np.random.Generator, text: str) -> np.ndarray:
    if init == "random":
        if np.dtype(dtype).kind == "f":
            return rng.random(count).astype(dtype)
        return rng.integers(0, 100, count).astype(dtype)
    if init == "zeros":
        return np.zeros(count, dtype=dtype)
    if init == "ones":
        return np.ones(count, dtype=dtype)
    if init == "arange":
        if np.dtype(dtype).kind in "iu" and count - 1 > np.iinfo(dtype).max:
            raise SimtError(f"--arg {text!r}: arange up to {count - 1} does not fit "
                            f"{np.dtype(dtype).name} ({range_text(dtype)})")
        return np.arange(count).astype(dtype)
    value = _number(init)
    if value is None:
        raise SimtError(f"--arg {text!r}: unknown array initializer {init!r} (random, zeros, ones, "
                        "arange or a number)")
    problem = value_problem(value, dtype)
    if problem:
        raise SimtError(f"--arg {text!r}: {problem}")
    return np.full(count, value, dtype=dtype)


def _number(text: str) -> int | float | None:
    """An integer (decimal, 0x.., 0o.., 0b..) or a floating-point number; None if neither."""
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def available_memory() -> int:
    """Bytes of memory this process may still take (psutil's 'available')."""
    import psutil

    return int(psutil.virtual_memory().available)


def _size_text(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} PiB"


def parse_arg(text: str, rng: np.random.Generator, earlier: list[Any] | None = None) -> Any:
    """One ``--arg`` value: an array spec (a view into it with ``@OFFSET``), a pointer into an
    earlier argument's array (``@N+OFFSET``, ``earlier`` holding the values parsed so far) or a
    scalar. Sizes are checked against the memory available (at most half of it per array) and
    values against the element type."""
    stripped = text.strip()
    if stripped.startswith("@"):
        return _reference(text, stripped, earlier or [])
    m = _ARRAY.match(stripped)
    if m:
        dtype = _DTYPES.get(m.group(1).lower())
        if dtype is None:
            raise SimtError(f"unknown dtype {m.group(1)!r} in --arg {text!r} "
                            f"(one of {', '.join(sorted(_DTYPES))})")
        count = int(m.group(2))
        if count < 1:
            raise SimtError(f"--arg {text!r}: an array needs at least 1 element")
        offset = _offset(text, m.group(4), count) if m.group(4) is not None else 0
        nbytes = count * np.dtype(dtype).itemsize
        allowed = available_memory() // 2
        if nbytes > allowed:
            raise SimtError(f"--arg {text!r}: {count} elements need {_size_text(nbytes)}, more than "
                            f"half of the {_size_text(allowed * 2)} of memory available")
        array = _fill(dtype, count, (m.group(3) or "zeros").strip(), rng, text)
        return array[offset:] if offset else array
    value = text.split("=", 1)[1] if "=" in text else text
    number = _number(value.strip())
    if number is None:
        raise SimtError(f"cannot read --arg {text!r}: expected DTYPE[N]=INIT, DTYPE[N]=INIT@OFFSET, "
                        "@N+OFFSET or a number")
    return number


def parse_args(texts: list[str], rng: np.random.Generator) -> list[Any]:
    """Every ``--arg`` in order; ``@N+OFFSET`` may point into the array of an earlier one."""
    values: list[Any] = []
    for text in texts:
        values.append(parse_arg(text, rng, values))
    return values


def _offset(text: str, written: str, count: int) -> int:
    """The element offset after ``@`` (or after ``@N+``): a whole number below ``count``."""
    value = _number(written.strip())
    if not isinstance(value, int):
        raise SimtError(f"--arg {text!r}: the offset after '@' must be a whole number of elements, "
                        f"got {written.strip()!r}")
    if value < 0:
        raise SimtError(f"--arg {text!r}: the offset {value} is negative; a pointer before the array's "
                        "first element cannot be passed")
    if value >= count:
        raise SimtError(f"--arg {text!r}: the offset {value} is past the end of the {count}-element array "
                        f"(0 to {count - 1})")
    return value


def whole_array(value: Any) -> np.ndarray | None:
    """The array a parsed ``--arg`` points into (itself, or the array its view is of); None for a scalar."""
    if not isinstance(value, np.ndarray):
        return None
    return value.base if isinstance(value.base, np.ndarray) else value


def _reference(text: str, stripped: str, earlier: list[Any]) -> np.ndarray:
    """``@N+OFFSET``: element OFFSET of the array the N-th (from 1) earlier ``--arg`` made."""
    m = _REFERENCE.match(stripped)
    index = _number(m.group(1)) if m else None
    if m is None or not isinstance(index, int) or (m.group(2) and not m.group(3)):
        raise SimtError(f"--arg {text!r}: write @N+OFFSET, a pointer to element OFFSET of the array "
                        "of the N-th --arg (counting from 1), e.g. @1+4")
    here = len(earlier) + 1
    if not 1 <= index < here:
        raise SimtError(f"--arg {text!r}: --arg {index} is not an earlier argument (this is --arg {here}); "
                        "@N points into the array of an --arg before it")
    whole = whole_array(earlier[index - 1])
    if whole is None:
        raise SimtError(f"--arg {text!r}: --arg {index} is a scalar, not an array to point into")
    written = (m.group(2) + m.group(3)) if m.group(2) else "0"
    offset = _offset(text, written.replace("+", "", 1), whole.size)
    return whole[offset:]


def _bytes(text: str) -> int:
    """A byte count for ``--shared-mem``: a whole number, 0 or more."""
    value = _number(text.strip())
    if not isinstance(value, int) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of bytes (0 or more), got {text!r}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``emulate`` subcommand."""
    p = subparsers.add_parser("emulate", help="run a CUDA C kernel in the SIMT emulator",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="CUDA C source file (.cu)")
    p.add_argument("--kernel", required=True,
                   help="name of the __global__ function (a template with its arguments: 'k<float>')")
    p.add_argument("--grid", type=parse_dims, required=True, help="grid size, e.g. 256 or 16,16")
    p.add_argument("--block", type=parse_dims, required=True, help="block size, e.g. 256 or 16,16")
    p.add_argument("--shared-mem", type=_bytes, default=0, metavar="BYTES",
                   help="dynamic shared memory per block in bytes (extern __shared__ arrays)")
    p.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="a kernel argument, one per parameter in order: float32[4096]=random, int=4096; "
                        "a pointer into an array: float32[1028]=random@2 (element 2 of 1028); a second "
                        "pointer into the array of an earlier --arg: @1+4 (element 4 of --arg 1's array)")
    p.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS,
                   help="step budget in warp-steps")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT_S, metavar="SECONDS",
                   help="stop a launch that runs longer, naming the loop it was in "
                        f"(default {DEFAULT_TIME_LIMIT_S:g}; 0: no limit)")
    p.add_argument("--trace", type=int, action="append", metavar="WARP",
                   help="print the trace of this global warp id")
    p.add_argument("--json", action="store_true", help="print metrics as JSON")
    p.add_argument("--const", action="append", default=[], metavar="NAME=VALUES",
                   help="fill __constant__ data NAME before the launch, as cudaMemcpyToSymbol does: "
                        "comma-separated numbers for its first elements (repeatable)")
    p.add_argument("--fmad", choices=("true", "false"), default="true",
                   help="fuse a*b+c into one fused multiply-add rounded once, as nvcc does by default "
                        "(false: as nvcc -fmad=false; explicit fmaf/fma calls stay fused)")
    p.add_argument("--include-dir", action="append", default=[], metavar="DIR",
                   help='a folder to search for #include "file" (repeatable); the kernel '
                        "file's own folder is always searched first")
    p.set_defaults(func=run)


def _print_trace(warp: int, steps: list, out: Any) -> None:
    print(f"\ntrace of warp {warp} ({len(steps)} steps)", file=out)
    for s in steps:
        extra = ""
        if s.space == "global":
            extra = f" {s.space} {s.buffer} sectors={len(s.sectors)}"
        elif s.space:
            extra = f" {s.space} {s.buffer} wavefronts={s.bank_conflict_degree}"
        print(f"  line {s.line:4d}:{s.col_start:<3d} {s.kind:7s} mask={s.active_mask:08x}{extra}",
              file=out)


def print_printf(records: list, lost: int, out: Any) -> None:
    """The kernel's printf output, one line per lane and call, tagged with the thread."""
    if lost:
        print(f"(the oldest {lost} printf records were lost: the 1 MiB printf buffer was full, "
              "as it would be on a GPU)", file=out)
    for record in records:
        print(record.tagged(), file=out)
    if records:
        print(file=out)


def include_dirs(args: argparse.Namespace) -> list[str]:
    """Where ``#include "file"`` is searched: the kernel file's folder, then each --include-dir."""
    return [os.path.dirname(os.path.abspath(args.file)), *args.include_dir]


def check_scalars(source: str, filename: str, kernel: str, kernel_args: list[Any],
                  dirs: list[str] | None = None) -> None:
    """Refuse a scalar ``--arg`` its parameter's C type cannot hold (``int=4294967296``, ``inf``
    for an int) instead of letting it wrap on the way in; raises ArgumentError naming the
    parameter. (The Python API keeps C's conversions for values a program passes.)"""
    program = compile_source(source, filename, dirs or (), instantiate=template_requests(kernel))
    try:
        kernel = select_kernel(program, kernel, kernel_args)  # an overloaded kernel: by the --arg types
    except SimtError:
        return  # launch says what is wrong
    fn = program.functions.get(program.aliases.get(kernel.strip(), kernel.strip()))
    if fn is None or len(fn.params) != len(kernel_args):
        return  # launch says what is wrong
    for index, ((name, ptype), value) in enumerate(zip(fn.params, kernel_args, strict=True)):
        if ptype.is_pointer or ptype.dtype is None or isinstance(value, np.ndarray):
            continue
        problem = value_problem(value, ptype.dtype, str(ptype))
        if problem:
            raise ArgumentError(f"--arg {index + 1} ({ptype} {name}): {problem}")


MAX_SOURCE_BYTES = 4 * 1024 * 1024


class SourceError(SimtError):
    """A kernel file cannot be read as a source: too big, or not UTF-8 text."""


def _not_regular(mode: int) -> str:
    """What a file that is not a regular file is ("" for a regular file)."""
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    return "" if stat.S_ISREG(mode) else next((w for test, w in kinds if test(mode)), "not a file")


def read_source(path: str, limit: int = MAX_SOURCE_BYTES) -> str:
    """The text of a kernel file, read as UTF-8, at most ``limit`` bytes (so a stray data file
    is refused with its size instead of filling memory). Anything but a regular file (a FIFO
    would block, ``/dev/zero`` never end) is refused before it is opened. OSError passes through."""
    kind = _not_regular(os.stat(path).st_mode)
    if kind:
        raise SourceError(f"{path} is {kind}, not a regular file; the emulator reads a kernel from "
                          "a regular file")
    with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:  # swapped after stat
        data = handle.read(limit + 1)
    if len(data) > limit:
        try:
            size = _size_text(os.stat(path).st_size) if os.path.isfile(path) else "endless"
        except OSError:
            size = "unknown size"
        raise SourceError(f"{path} is too big for a kernel source ({size}; the limit is "
                          f"{_size_text(limit)})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
                          "save it as UTF-8") from None


def parse_const(spec: str) -> tuple[str, list[float]]:
    """``--const weights=0.25,0.5,0.25`` -> ("weights", [0.25, 0.5, 0.25]); ArgumentError naming
    what is wrong (the data's own type and size are checked at the launch)."""
    name, equals, values = spec.partition("=")
    if not equals or not name.strip().isidentifier():
        raise ArgumentError(f"--const {spec!r}: write NAME=VALUES, e.g. --const weights=0.25,0.5,0.25")
    try:
        numbers = [float(v) if any(c in v for c in ".eEn") else int(v, 0) for v in values.split(",") if v.strip()]
    except ValueError:
        raise ArgumentError(f"--const {spec!r}: the values must be numbers separated by commas") from None
    if not numbers:
        raise ArgumentError(f"--const {spec!r}: no values after '='")
    return name.strip(), numbers


def run(args: argparse.Namespace) -> int:
    """Handler of ``gpulab emulate``; returns the exit code."""
    out = sys.stdout
    try:
        source = read_source(args.file)
        rng = np.random.default_rng(0)
        kernel_args = parse_args(args.arg, rng)
        constants = dict(parse_const(c) for c in args.const)
    except OSError as exc:
        print(f"gpulab emulate: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except SimtError as exc:  # a usage error: the file or an --arg
        print(f"gpulab emulate: {exc}", file=sys.stderr)
        return 2
    if args.max_steps < 1:
        print(f"gpulab emulate: --max-steps must be at least 1, got {args.max_steps}", file=sys.stderr)
        return 2
    try:
        check_scalars(source, Path(args.file).name, args.kernel, kernel_args, include_dirs(args))
        result = launch(source, args.kernel, args.grid, args.block, kernel_args,
                        trace=args.trace or False, max_steps=args.max_steps,
                        filename=Path(args.file).name, include_dirs=include_dirs(args),
                        shared_mem=args.shared_mem, fmad=args.fmad == "true", constants=constants,
                        max_seconds=args.time_limit if args.time_limit > 0 else None)
    except ArgumentError as exc:
        print(f"gpulab emulate: {exc}", file=sys.stderr)
        return 2
    except SimtError as exc:
        print_printf(getattr(exc, "printf", []), 0, out)  # what it printed before the fault
        print(f"gpulab emulate: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except MemoryError:
        print("gpulab emulate: out of memory while emulating (try a smaller grid or smaller arrays)",
              file=sys.stderr)
        return 1
    if args.json:
        json.dump({"kernel": result.kernel, "grid": result.grid, "block": result.block,
                   "provenance": result.provenance, "metrics": result.metrics,
                   "printf": [dataclasses.asdict(r) for r in result.printf],
                   "printf_lost": result.printf_lost}, out, indent=2)
        print(file=out)
    else:
        print_printf(result.printf, result.printf_lost, out)
        print(f"{result.kernel}<<<{result.grid}, {result.block}>>>  (emulated)", file=out)
        width = max(len(k) for k in result.metrics)
        for key, value in result.metrics.items():
            text = f"{value:.2f}" if isinstance(value, float) else f"{value}"
            print(f"  {key:<{width}}  {text:>14}", file=out)
    for warp, steps in sorted(result.trace.items()):
        _print_trace(warp, steps, out)
    return 0
