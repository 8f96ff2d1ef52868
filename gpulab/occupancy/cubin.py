"""A kernel's resource use read out of the cubin NVRTC compiles: registers, static shared memory, stack.

No GPU and no ``cuobjdump``: a cubin is an ELF file. Per kernel it holds

* ``.nv.info`` (the whole module) with one ``EIATTR_REGCOUNT`` record per function: the symbol's
  index and the registers per thread ptxas allocated, and ``EIATTR_FRAME_SIZE`` (local memory per
  thread, bytes), ``EIATTR_MAX_STACK_SIZE``;
* ``.nv.shared.<kernel>``, a NOBITS section as long as the kernel's static ``__shared__`` data.

The records are ``format, attribute`` bytes and then either a 16-bit value (formats 1-3) or a
16-bit length and that many bytes (format 4, ``EIFMT_SVAL``). :func:`kernel_resources` returns what
``cudaFuncGetAttributes`` would report as ``numRegs``, ``sharedSizeBytes`` and ``localSizeBytes``;
the tests compare it with ptxas's own ``-v`` report from the same compile.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F
EIATTR_MAX_STACK_SIZE = 0x23
_SVAL = 0x04
_RESERVED_SYMBOL = ".nv.reservedSmem"
RESERVED_SHARED_BYTES = 1024
_ELF_MAGIC = b"\x7fELF"


class CubinError(ValueError):
    """Not a 64-bit little-endian ELF cubin, or no kernel of that name in it."""


@dataclass(frozen=True)
class KernelResources:
    """What one kernel needs per thread and per block, from its cubin."""

    name: str
    registers: int
    shared_bytes: int  # static __shared__ bytes (dynamic shared memory is the launch's)
    local_bytes: int  # local memory (stack frame) per thread
    arch: str = ""


@dataclass(frozen=True)
class _Section:
    name: str
    kind: int
    offset: int
    size: int
    info: int


def _sections(data: bytes) -> list[_Section]:
    if data[:4] != _ELF_MAGIC or data[4] != 2 or data[5] != 1:
        raise CubinError("not a 64-bit little-endian ELF file (a cubin)")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = raw[shstrndx][4]

    def name(offset: int) -> str:
        end = data.index(b"\x00", names_at + offset)
        return data[names_at + offset:end].decode()

    return [_Section(name(r[0]), r[1], r[4], r[5], r[7]) for r in raw]


def _symbols(data: bytes, sections: list[_Section]) -> dict[int, str]:
    """Symbol index -> name, from ``.symtab`` and the string table it links to (``.strtab``)."""
    table = next((s for s in sections if s.name == ".symtab"), None)
    strings = next((s for s in sections if s.name == ".strtab"), None)
    if table is None or strings is None:
        return {}
    found = {}
    for index in range(table.size // 24):
        name_offset, = struct.unpack_from("<I", data, table.offset + index * 24)
        end = data.index(b"\x00", strings.offset + name_offset)
        found[index] = data[strings.offset + name_offset:end].decode()
    return found


def _records(data: bytes, section: _Section) -> list[tuple[int, bytes]]:
    """(attribute, payload) of every record of an ``.nv.info`` section."""
    records = []
    at, end = section.offset, section.offset + section.size
    while at + 4 <= end:
        fmt, attribute, value = struct.unpack_from("<BBH", data, at)
        if fmt == _SVAL:
            records.append((attribute, data[at + 4:at + 4 + value]))
            at += 4 + value
        else:
            records.append((attribute, struct.pack("<H", value)))
            at += 4
    return records


def _per_symbol(records: list[tuple[int, bytes]], attribute: int) -> dict[int, int]:
    return {struct.unpack_from("<I", p)[0]: struct.unpack_from("<I", p, 4)[0]
            for a, p in records if a == attribute and len(p) >= 8}  # fmt: skip


def kernels(cubin: bytes) -> tuple[str, ...]:
    """The kernels (``.text.<name>`` sections) of a cubin."""
    return tuple(s.name.removeprefix(".text.") for s in _sections(cubin) if s.name.startswith(".text."))


def kernel_resources(cubin: bytes, kernel: str, arch: str = "") -> KernelResources:
    """Registers per thread, static shared bytes and local bytes per thread of ``kernel`` (its
    mangled name for C++ kernels, the plain one for ``extern "C"``)."""
    sections = _sections(cubin)
    symbols = {name: index for index, name in _symbols(cubin, sections).items()}
    if kernel not in symbols:
        raise CubinError(f"no kernel {kernel!r} in the cubin (it has: {', '.join(kernels(cubin)) or 'none'})")
    records = [r for s in sections if s.name == ".nv.info" for r in _records(cubin, s)]
    index = symbols[kernel]
    registers = _per_symbol(records, EIATTR_REGCOUNT).get(index)
    if registers is None:  # older layout: the register count sits in the top byte of .text's sh_info
        text = next(s for s in sections if s.name == f".text.{kernel}")
        registers = text.info >> 24
    shared = next((s.size for s in sections if s.name == f".nv.shared.{kernel}"), 0)
    if any(name.startswith(_RESERVED_SYMBOL) for name in symbols) and shared >= RESERVED_SHARED_BYTES:
        # sm_90 cubins lay the driver's reserved 1 KiB at the start of the kernel's shared
        # section (symbol .nv.reservedSmem.offset0); it is not the kernel's own __shared__ data
        # (ptxas -v and cudaFuncGetAttributes leave it out, the occupancy rules add it per block).
        shared -= RESERVED_SHARED_BYTES
    local = _per_symbol(records, EIATTR_FRAME_SIZE).get(index, 0)
    return KernelResources(kernel, registers, shared, local, arch)


_PTXAS_USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")
_PTXAS_FUNCTION = re.compile(r"Compiling entry function '([^']+)'")
_PTXAS_STACK = re.compile(r"(\d+) bytes stack frame")


def ptxas_report(log: str) -> dict[str, tuple[int, int]]:
    """Kernel -> (registers, static shared bytes) as ptxas's ``-v`` report in an NVRTC log says."""
    report: dict[str, tuple[int, int]] = {}
    current = None
    for line in log.splitlines():
        function = _PTXAS_FUNCTION.search(line)
        if function:
            current = function.group(1)
            continue
        used = _PTXAS_USED.search(line)
        if used and current is not None:
            report[current] = (int(used.group(1)), int(used.group(2) or 0))
    return report


def compile_resources(source: str, kernel: str, arch: str = "sm_80", *,
                      options: tuple[str, ...] = ("-std=c++17",),
                      name_expressions: tuple[str, ...] = ()) -> tuple[KernelResources, str]:
    """Compile ``source`` with NVRTC for ``arch`` (ptxas's ``-v`` report on) and read ``kernel``'s
    resources from the cubin; returns them with the compiler's log."""
    from gpulab import nvrtc

    headers, pre = nvrtc.nvcc_environment()
    cubin, log = nvrtc.compile_cubin(source, f"{kernel}.cu", arch, (*options, *pre, "--ptxas-options=-v"),
                                     name_expressions=name_expressions, headers=headers)  # fmt: skip
    return kernel_resources(cubin, kernel, arch), log
