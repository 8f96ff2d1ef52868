"""Where NVRTC puts its fused multiply-adds, to hold the emulator's contraction against it.

nvcc and NVRTC fuse ``a * b + c`` into one ``fma.rn`` by default (``-fmad=true``); the emulator
fuses where it reads the same rule in the source (:meth:`~.compiler.Compiler.sum_contracted`).
This compiles a kernel to PTX with line information (no GPU needed) and lists the source lines
of the main file that hold an ``fma.rn.f32`` or ``fma.rn.f64``, beside the lines the emulator's
compiled program fused (:attr:`~.symbols.Program.fused_lines`). Lines of the math library's
own code (``expf`` is a few fmas in CUDA's headers) are in other files and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_FMA = re.compile(r"^\s*fma\.rn\.f(32|64)\b")


def ptx_fma_lines(ptx: str, source_name: str) -> tuple[int, ...]:
    """The lines of ``source_name`` (as NVRTC was given it) that PTX ``ptx`` puts an fma on."""
    files = {int(m.group(1)): m.group(2) for m in map(_FILE.match, ptx.splitlines()) if m}
    main = {index for index, path in files.items() if path.endswith(source_name)}
    lines, where = set(), None
    for text in ptx.splitlines():
        loc = _LOC.match(text)
        if loc:
            where = (int(loc.group(1)), int(loc.group(2)))
        elif _FMA.match(text) and where is not None and where[0] in main:
            lines.add(where[1])
    return tuple(sorted(lines))


@dataclass(frozen=True)
class Comparison:
    """The fused lines NVRTC and the emulator each found, and where they part."""

    nvrtc: tuple[int, ...]
    emulator: tuple[int, ...]
    library: tuple[int, ...] = ()  # lines calling expf & co., whose own fmas NVRTC inlines there

    @property
    def only_nvrtc(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.nvrtc) - set(self.emulator) - set(self.library)))

    @property
    def only_emulator(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.emulator) - set(self.nvrtc)))

    @property
    def agrees(self) -> bool:
        return not self.only_nvrtc and not self.only_emulator
