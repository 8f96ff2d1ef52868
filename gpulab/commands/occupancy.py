"""``gpulab occupancy ARCH --threads N --registers R --shared BYTES [--kernel NAME] [--json -]``.

Resident blocks and warps per SM, the occupancy and the limit that binds, by the CUDA occupancy
rules (:mod:`gpulab.occupancy`). ARCH is ``sm_75``, ``sm_80``, ``8.6``, ... or a spec-table GPU id
(``h100-sxm``). ``--kernel`` takes a lab kernel's registers and static shared memory from NVRTC's
compile for ARCH (``--shared`` then adds dynamic shared memory). Bad input: exit 2 and one line
naming the problem.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from gpulab.catalogue import msg, render
from gpulab.occupancy import Occupancy, OccupancyError, occupancy, resolve_arch
from gpulab.occupancy.cubin import KernelResources
from gpulab.occupancy.limits import UnknownArch
from gpulab.output import emit_json, output_problem

PROG = "gpulab occupancy"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("occupancy", help="resident blocks and warps per SM, and the binding limit")
    parser.add_argument("arch", help="sm_75, sm_80, sm_86, sm_89, sm_90, sm_120, ... or a spec-table GPU id")
    parser.add_argument("--threads", type=int, required=True, help="threads per block")
    parser.add_argument("--registers", type=int, help="registers per thread (default: from --kernel)")
    parser.add_argument("--shared", default="0", help="shared memory per block in bytes (or 48K, 48KiB); "
                                                      "with --kernel, the dynamic part")
    parser.add_argument("--carveout", type=int, metavar="KIB", help="the SM's shared memory capacity in KiB")
    parser.add_argument("--kernel", help="a lab kernel: registers and static shared memory from NVRTC's compile")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the text (default en)")
    parser.add_argument("--json", metavar="OUT", help="write the result as JSON (- for standard output)")
    parser.set_defaults(func=run_occupancy)


class _BadInput(ValueError):
    pass


def parse_bytes(text: str) -> int:
    """``4096``, ``48K``, ``48KiB``, ``1M`` -> bytes; :class:`ValueError` otherwise."""
    found = re.fullmatch(r"\s*(\d+)\s*(k|kb|kib|m|mb|mib)?\s*", text.lower())
    if found is None:
        raise ValueError(text)
    scale = {None: 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20}
    return int(found.group(1)) * scale[found.group(2)]


def _fail(problem: str) -> int:
    print(f"{PROG}: {problem}", file=sys.stderr)
    return 2


def run_occupancy(args: argparse.Namespace) -> int:
    if args.json and args.json != "-" and (problem := output_problem(args.json)):
        return _fail(f"--json {args.json}: {problem}")
    try:
        arch = resolve_arch(args.arch)
        shared = parse_bytes(args.shared)
    except UnknownArch as exc:
        return _fail(str(exc))
    except ValueError:
        return _fail(f"--shared {args.shared!r} is not a byte count (e.g. 4096, 48K)")
    kernel_note = None
    registers = args.registers
    if args.kernel:
        try:
            resources = _kernel_resources(args.kernel, arch)
        except _BadInput as exc:
            return _fail(str(exc))
        registers = resources.registers if registers is None else registers
        shared += resources.shared_bytes
        kernel_note = {"kernel": args.kernel, "registers": resources.registers,
                       "static_shared_bytes": resources.shared_bytes, "local_bytes": resources.local_bytes}
    if registers is None:
        return _fail("--registers is needed (or --kernel NAME to read them from the compiled kernel)")
    try:
        result = occupancy(arch, args.threads, registers, shared, args.carveout)
    except OccupancyError as exc:
        return _fail(f"--{exc.field}: {exc}")
    data = {**result.as_dict(), **({"compiled": kernel_note} if kernel_note else {})}
    if args.json:
        return emit_json(data, args.json, PROG)
    _print(result, kernel_note, args.lang)
    return 0


def _kernel_resources(name: str, arch: str) -> KernelResources:
    from gpulab.lab.declare import kernel as catalogue_kernel
    from gpulab.occupancy import cubin

    try:
        spec = catalogue_kernel(name)
    except Exception as exc:  # CatalogueError names the known kernels
        raise _BadInput(f"--kernel: {exc}") from None
    try:
        resources, _log = cubin.compile_resources(spec.source, spec.entry, arch)
    except Exception as exc:  # NVRTC missing, or the kernel does not compile for this arch
        raise _BadInput(f"--kernel {name}: cannot compile for {arch}: {exc}") from None
    return resources


def _print(result: Occupancy, kernel_note: dict[str, Any] | None, lang: str) -> None:
    say = lambda key, **fields: print(render(msg(key, **fields), lang))  # noqa: E731
    if kernel_note:
        say("occupancy.cli.compiled", kernel=kernel_note["kernel"], arch=result.arch,
            registers=kernel_note["registers"], shared=kernel_note["static_shared_bytes"])
    say("occupancy.cli.input", arch=result.arch, threads=result.threads, registers=result.registers,
        shared=result.shared_bytes)
    say("occupancy.cli.result", blocks=result.blocks_per_sm, warps=result.warps_per_sm,
        max_warps=result.max_warps_per_sm, percent=f"{100 * result.occupancy:.1f}")
    names = ", ".join(render(msg(f"occupancy.limit.{name}"), lang) for name in result.limiters)
    say("occupancy.cli.limiter", limits=names)
    for name, blocks in result.limits.items():
        count = "-" if blocks >= 1 << 30 else str(blocks)
        say("occupancy.cli.by-limit", limit=render(msg(f"occupancy.limit.{name}"), lang), blocks=count)
    if result.rules_extrapolated:
        say("occupancy.cli.extrapolated", arch=result.arch)
