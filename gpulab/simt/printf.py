"""Device ``printf``: C format strings, and the per-launch log of what the lanes printed.

A format string is parsed once, at compile time, into literal text and conversions
(:func:`parse_format`); each lane's record is then formatted with C's rules for ``%d %i %u
%x %X %o %c %s %f %F %e %E %g %G %p %%``, the flags ``- + 0 space #``, a width and a
precision (either may be ``*``) and the length modifiers ``hh h l ll z j t`` (``long`` is
64-bit, as in CUDA on Linux). The GPU formats the records on the host with the C library;
the emulator formats them itself, as glibc does (``(nil)`` for a null ``%p``, ``-nan`` for a
NaN whose sign bit is set).

:class:`PrintfLog` is the launch's output buffer. Like CUDA's (``cudaLimitPrintfFifoSize``,
1 MiB by default) it is circular: when the launch prints more than it holds, the oldest
records are lost and the newest kept. The emulator counts the bytes of the formatted text,
not the GPU's record layout, so the point where output starts to be lost differs from a
GPU's. The order of records is the emulator's execution order: one ``printf`` call prints
for all its active lanes at once, blocks in increasing linear id, then warps, then lanes in
lane order; calls follow each other as the lock-step emulation runs them. CUDA defines no
order between warps or blocks, so a GPU may interleave them differently.
"""

from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass

PRINTF_BUFFER_BYTES = 1 << 20  # CUDA's default printf FIFO size
MAX_PRINTF_ARGS = 32  # CUDA's limit on arguments after the format string

_SPEC = re.compile(r"%(?P<flags>[-+ 0#]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?"
                   r"(?P<length>hh|h|ll|l|j|z|t|L|q)?(?P<conv>.?)", re.S)
INTEGER_CONVERSIONS = "diuxXoc"
FLOAT_CONVERSIONS = "fFeEgG"
SUPPORTED = INTEGER_CONVERSIONS + FLOAT_CONVERSIONS + "sp%"


@dataclass(frozen=True)
class Conversion:
    """One ``%...`` of a format string; ``width``/``precision`` are -1 when given as ``*``."""

    text: str  # as written, e.g. "%-08.3lf"
    flags: str
    width: int | None
    precision: int | None
    length: str
    conv: str


class FormatError(ValueError):
    """A format string the emulator cannot print (the message names the conversion)."""


def parse_format(fmt: str) -> list[str | Conversion]:
    """Literal pieces and conversions of ``fmt``, in order (``%%`` becomes a literal ``%``)."""
    parts: list[str | Conversion] = []
    pos = 0
    for match in _SPEC.finditer(fmt):
        if match.start() > pos:
            parts.append(fmt[pos:match.start()])
        pos = match.end()
        conversion = _conversion(match)
        if conversion.conv == "%" and conversion.text == "%%":
            parts.append("%")
        else:
            parts.append(conversion)
    if pos < len(fmt):
        parts.append(fmt[pos:])
    return parts


def _conversion(match: re.Match[str]) -> Conversion:
    text, conv = match.group(0), match.group("conv")
    if conv == "":
        raise FormatError(f"the format ends in the middle of the conversion '{text}'")
    if conv not in SUPPORTED:
        raise FormatError(f"the conversion '{text}' is not supported (the emulator prints "
                          "%d %i %u %x %X %o %c %s %f %F %e %E %g %G %p and %%)")
    if conv == "%" and text != "%%":
        raise FormatError(f"'{text}' is not a valid conversion (write %% for a percent sign)")
    length = match.group("length") or ""
    if length in ("L", "q") or (length and conv in "sp") or (length not in ("", "l") and conv in FLOAT_CONVERSIONS) \
            or (length and conv == "c"):
        raise FormatError(f"the length modifier in '{text}' is not supported")
    width, precision = match.group("width"), match.group("precision")
    return Conversion(text, match.group("flags"), None if width is None else (-1 if width == "*" else int(width)),
                      None if precision is None else (-1 if precision == "*" else int(precision or 0)),
                      length, conv)


# ------------------------------------------------------------------ formatting one value
def format_value(c: Conversion, value: int | float | str, width: int | None, precision: int | None) -> str:
    """``value`` (already of the conversion's C type: wrapped int, double or str) as C prints it."""
    flags = c.flags
    if width is not None and width < 0:  # a negative * width means '-' and its magnitude
        flags, width = flags + "-", -width
    if precision is not None and precision < 0:  # a negative * precision is as if omitted
        precision = None
    if c.conv in FLOAT_CONVERSIONS:
        body = _format_float(c.conv, flags, precision, float(value))
        return _pad(body, flags, width, numeric=math.isfinite(float(value)))
    if c.conv == "s":
        text = str(value) if precision is None else str(value)[:precision]
        return _pad(text, flags.replace("0", ""), width, numeric=False)
    if c.conv == "c":
        return _pad(chr(int(value) & 0xFF), flags.replace("0", ""), width, numeric=False)
    if c.conv == "p":
        if int(value) == 0:
            return _pad("(nil)", flags.replace("0", ""), width, numeric=False)
        sign = "+" if "+" in flags else " " if " " in flags else ""  # glibc signs pointers too
        return _pad(sign + _format_int("x", flags + "#", precision, int(value)), flags, width,
                    numeric=precision is None)
    return _pad(_format_int(c.conv, flags, precision, int(value)), flags, width, numeric=precision is None)


def _format_int(conv: str, flags: str, precision: int | None, value: int) -> str:
    """Sign, prefix and digits of an integer conversion (padding comes later)."""
    magnitude = abs(value)
    digits = {"x": f"{magnitude:x}", "X": f"{magnitude:X}", "o": f"{magnitude:o}"}.get(conv, str(magnitude))
    if precision is not None:
        digits = "" if precision == 0 and magnitude == 0 else digits.rjust(precision, "0")
    prefix = ""
    if "#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and magnitude != 0:
            prefix = "0" + conv
    if conv in "di":
        prefix = "-" if value < 0 else "+" if "+" in flags else " " if " " in flags else ""
    return prefix + digits


def _format_float(conv: str, flags: str, precision: int | None, value: float) -> str:
    """A floating conversion without its width (Python's % follows C for finite values)."""
    if not math.isfinite(value):
        negative = math.copysign(1.0, value) < 0
        word = "nan" if math.isnan(value) else "inf"
        word = word.upper() if conv in "FEG" else word
        sign = "-" if negative else "+" if "+" in flags else " " if " " in flags else ""
        return sign + word
    spec = "%" + "".join(f for f in "+ #" if f in flags) + ("" if precision is None else f".{precision}") + conv
    return spec % value


def _pad(body: str, flags: str, width: int | None, numeric: bool) -> str:
    """``body`` padded to ``width``: left-justified with '-', zero-filled after the sign/prefix with '0'."""
    if width is None or len(body) >= width:
        return body
    if "-" in flags:
        return body.ljust(width)
    if "0" in flags and numeric:
        head = len(body) - len(body.lstrip("+- "))
        if body[head:head + 2] in ("0x", "0X"):
            head += 2
        return body[:head] + "0" * (width - len(body)) + body[head:]
    return body.rjust(width)


# ------------------------------------------------------------------ the per-launch log
@dataclass(frozen=True)
class PrintfRecord:
    """What one lane printed with one ``printf`` call.

    ``block`` and ``thread`` are blockIdx and threadIdx, ``warp`` the global warp id (as in
    ``LaunchResult.trace``), ``lane`` the lane in its warp, ``line`` the call's source line.
    """

    block: tuple[int, int, int]
    thread: tuple[int, int, int]
    warp: int
    lane: int
    line: int
    text: str

    @property
    def tag(self) -> str:
        """``[block (x,y,z) thread (x,y,z)]``, the prefix ``gpulab emulate`` prints."""
        b, t = self.block, self.thread
        return f"[block ({b[0]},{b[1]},{b[2]}) thread ({t[0]},{t[1]},{t[2]})]"

    def tagged(self) -> str:
        """The record as one tagged line (one trailing newline of the text dropped)."""
        text = self.text[:-1] if self.text.endswith("\n") else self.text
        return f"{self.tag} {text}"


class PrintfLog:
    """A launch's printf buffer: the newest records that fit in ``capacity_bytes``."""

    def __init__(self, capacity_bytes: int = PRINTF_BUFFER_BYTES) -> None:
        self.capacity_bytes = capacity_bytes
        self.records: deque[PrintfRecord] = deque()
        self.bytes = 0
        self.lost = 0  # records overwritten because the buffer was full

    def add(self, record: PrintfRecord) -> None:
        size = len(record.text.encode("utf-8", "replace"))
        self.records.append(record)
        self.bytes += size
        while self.bytes > self.capacity_bytes and self.records:
            old = self.records.popleft()
            self.bytes -= len(old.text.encode("utf-8", "replace"))
            self.lost += 1
