"""The C type model of the emulator: scalar types as numpy dtypes, pointers and arrays.

Integer conversions follow C on an LP64 machine (CUDA on Linux): ``int`` is 32-bit,
``long`` and ``long long`` are 64-bit. The usual arithmetic conversions, integer
promotion and wrap-around are implemented here once, so the compiler only has to ask
"what is the common type" and "convert this value to that type".

A struct type carries its :class:`StructLayout` (members, leaves, memory chunks); the two
refer to each other, so both live here. :mod:`.layout` places the members as C does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class CType:
    """A C type: a scalar (``dtype`` set), a pointer, a fixed-size array or a struct
    (``layout`` set, see :mod:`gpulab.simt.layout`; ``name`` is its tag).

    ``rank`` orders integer types for the usual arithmetic conversions (bool 0, char 1,
    short 2, int 3, long long 4); floating types have rank 10 (float) and 11 (double).
    """

    name: str
    dtype: np.dtype | None = None
    rank: int = 0
    signed: bool = True
    pointee: CType | None = None
    length: int = 0
    layout: StructLayout | None = None
    #: A function pointer's (return type, parameter types); None for every other type.
    signature: tuple[CType, tuple[CType, ...]] | None = None

    @property
    def is_pointer(self) -> bool:
        return self.name == "ptr"

    @property
    def is_array(self) -> bool:
        return self.name == "array"

    @property
    def is_struct(self) -> bool:
        return self.layout is not None

    @property
    def is_scalar(self) -> bool:
        return self.dtype is not None

    @property
    def is_float(self) -> bool:
        return self.dtype is not None and self.dtype.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.dtype is not None and self.dtype.kind in "iub"

    @property
    def size(self) -> int:
        """Size in bytes (``sizeof``)."""
        if self.is_pointer or self.signature is not None:
            return 8
        if self.is_array:
            assert self.pointee is not None
            return self.pointee.size * self.length
        if self.layout is not None:
            return self.layout.size
        if self.dtype is None:
            return 0
        return self.dtype.itemsize

    @property
    def is_function_pointer(self) -> bool:
        return self.signature is not None

    def __str__(self) -> str:
        if self.signature is not None:
            ret, params = self.signature
            return f"{ret} (*)({', '.join(str(p) for p in params)})"
        if self.is_pointer:
            return f"{self.pointee}*"
        if self.is_array:
            return f"{self.pointee}[{self.length}]"
        return self.name



# ---------------------------------------------------------------------- struct layouts
@dataclass(frozen=True)
class Member:
    """One named member of a struct at a byte offset."""

    name: str
    ctype: CType
    offset: int


@dataclass(frozen=True)
class Leaf:
    """A scalar or pointer inside a struct: ``path`` as C spells it (``pos.x``, ``v[2]``)."""

    path: str
    ctype: CType
    offset: int

    @property
    def memory_dtype(self) -> np.dtype:
        """How the leaf is stored in memory (a pointer is a 64-bit address)."""
        return self.ctype.dtype if self.ctype.dtype is not None else np.dtype(np.int64)


@dataclass(frozen=True)
class Chunk:
    """One memory access of a whole-struct load or store: ``size`` bytes at ``offset``."""

    offset: int
    size: int
    leaves: tuple[int, ...]  # indices into StructLayout.leaves


@dataclass(frozen=True)
class StructLayout:
    """Members, size and alignment of a struct type."""

    tag: str
    members: tuple[Member, ...]
    size: int
    align: int
    vector: bool = False  # one of CUDA's built-in vector types

    def member(self, name: str) -> Member | None:
        for m in self.members:
            if m.name == name:
                return m
        return None

    @cached_property
    def leaves(self) -> tuple[Leaf, ...]:
        out: list[Leaf] = []
        for m in self.members:
            out.extend(_leaves(m.name, m.ctype, m.offset))
        return tuple(out)

    @cached_property
    def chunks(self) -> tuple[Chunk, ...]:
        """The accesses of a whole-struct load or store, in memory order."""
        chunks: list[Chunk] = []
        leaves = self.leaves
        k = 0
        for start in range(0, self.size, self.align):
            inside = []
            while k < len(leaves) and leaves[k].offset < start + self.align:
                inside.append(k)
                k += 1
            if not inside:
                continue
            filled = sum(leaves[i].memory_dtype.itemsize for i in inside)
            if len(inside) > 1 and filled == self.align:
                chunks.append(Chunk(start, self.align, tuple(inside)))
            else:
                chunks.extend(Chunk(leaves[i].offset, leaves[i].memory_dtype.itemsize, (i,))
                              for i in inside)
        return tuple(chunks)


def _leaves(path: str, ctype: CType, offset: int) -> list[Leaf]:
    if ctype.layout is not None:
        return [Leaf(f"{path}.{leaf.path}", leaf.ctype, offset + leaf.offset)
                for leaf in ctype.layout.leaves]
    if ctype.is_array:
        assert ctype.pointee is not None
        step = ctype.pointee.size
        return [leaf for i in range(ctype.length)
                for leaf in _leaves(f"{path}[{i}]", ctype.pointee, offset + i * step)]
    return [Leaf(path, ctype, offset)]

def _scalar(name: str, dtype: type, rank: int, signed: bool = True) -> CType:
    return CType(name, np.dtype(dtype), rank, signed)


BOOL = _scalar("bool", np.bool_, 0, False)
CHAR = _scalar("char", np.int8, 1)
UCHAR = _scalar("unsigned char", np.uint8, 1, False)
SHORT = _scalar("short", np.int16, 2)
USHORT = _scalar("unsigned short", np.uint16, 2, False)
INT = _scalar("int", np.int32, 3)
UINT = _scalar("unsigned int", np.uint32, 3, False)
LLONG = _scalar("long long", np.int64, 4)
ULLONG = _scalar("unsigned long long", np.uint64, 4, False)
FLOAT = _scalar("float", np.float32, 10)
DOUBLE = _scalar("double", np.float64, 11)
VOID = CType("void")
#: The type of comparisons and logical operators: C ``int`` held as a numpy bool.
TRUTH = CType("int", np.dtype(np.bool_), 3, True)

_SPECIFIER_TYPES: dict[tuple[str, ...], CType] = {
    ("bool",): BOOL, ("_Bool",): BOOL,
    ("char",): CHAR, ("signed", "char"): CHAR, ("unsigned", "char"): UCHAR,
    ("short",): SHORT, ("unsigned", "short"): USHORT,
    ("int",): INT, ("signed",): INT, ("unsigned",): UINT,
    ("long",): LLONG, ("unsigned", "long"): ULLONG,
    ("long", "long"): LLONG, ("unsigned", "long", "long"): ULLONG,
    ("float",): FLOAT, ("double",): DOUBLE, ("void",): VOID,
    ("size_t",): ULLONG, ("int8_t",): CHAR, ("uint8_t",): UCHAR, ("int16_t",): SHORT,
    ("uint16_t",): USHORT, ("int32_t",): INT, ("uint32_t",): UINT, ("int64_t",): LLONG,
    ("uint64_t",): ULLONG, ("uint",): UINT, ("ushort",): USHORT, ("ulong",): ULLONG,
}

#: Typedef names the preprocessor declares so that pycparser can parse them.
TYPEDEF_PRELUDE = (
    "typedef _Bool bool; typedef unsigned long size_t; typedef signed char int8_t; "
    "typedef unsigned char uint8_t; typedef short int16_t; typedef unsigned short uint16_t; "
    "typedef int int32_t; typedef unsigned int uint32_t; typedef long long int64_t; "
    "typedef unsigned long long uint64_t; typedef long clock_t; "
    # what nvcc's host headers (sys/types.h) give every .cu file
    "typedef unsigned int uint; typedef unsigned short ushort; typedef unsigned long ulong;"
)


def type_from_specifiers(names: list[str]) -> CType | None:
    """Map pycparser's ``IdentifierType.names`` (e.g. ``['unsigned', 'long', 'long']``)."""
    words = [n for n in names if n != "int" or len(names) == 1]
    if "short" in words:
        words = ["unsigned", "short"] if "unsigned" in words else ["short"]
    words = [w for w in words if w != "signed" or len(words) == 1]
    key = tuple(sorted(words, key=lambda w: (w != "unsigned", w)))
    return _SPECIFIER_TYPES.get(key)


def pointer_to(t: CType) -> CType:
    """The type ``t*``."""
    return CType("ptr", pointee=t)


def function_pointer(ret: CType, params: tuple[CType, ...]) -> CType:
    """The type ``ret (*)(params...)``: held as a 64-bit number naming the function."""
    return CType("fnptr", signature=(ret, params))


def array_of(t: CType, length: int) -> CType:
    """The type ``t[length]``."""
    return CType("array", pointee=t, length=length)


def as_value_type(t: CType) -> CType:
    """TRUTH is stored as bool but behaves as ``int`` in arithmetic."""
    return INT if t is TRUTH else t


def promote(t: CType) -> CType:
    """C integer promotion: anything narrower than ``int`` becomes ``int``."""
    t = as_value_type(t)
    if t.is_integer and t.rank < INT.rank:
        return INT
    return t


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions of C for two scalar operand types."""
    a, b = promote(a), promote(b)
    if a.is_float or b.is_float:
        return a if a.rank >= b.rank else b
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.rank >= signed.rank:
        return unsigned
    if signed.dtype is not None and unsigned.dtype is not None \
            and signed.dtype.itemsize > unsigned.dtype.itemsize:
        return signed
    return ULLONG


_INT_LIMITS = {k: (np.iinfo(k).min, np.iinfo(k).max) for k in
               (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)}


def convert(value, src: CType, dst: CType):
    """Convert a numpy value (array or scalar) of C type ``src`` to C type ``dst``.

    Integer to integer wraps modulo 2^n; floating to integer truncates toward zero and
    saturates like the GPU's ``cvt.rzi`` (NaN becomes 0); anything to bool is ``!= 0``.
    """
    if dst.dtype is None:
        raise TypeError(f"cannot convert to {dst}")
    if src.dtype == dst.dtype:
        return value
    if dst.dtype.kind == "b":
        return value != 0
    if src.is_float and dst.is_integer:
        lo, hi = _INT_LIMITS[dst.dtype.type]
        v = np.nan_to_num(np.trunc(value), nan=0.0)
        v = np.clip(v, float(lo), float(hi))
        big = v >= float(hi)
        out = np.asarray(v).astype(dst.dtype)
        if np.any(big):
            out = np.where(big, dst.dtype.type(hi), out)
        return out if isinstance(value, np.ndarray) else dst.dtype.type(out)
    if isinstance(value, np.ndarray):
        return value.astype(dst.dtype)
    return np.asarray(value).astype(dst.dtype)[()]


def parse_int_literal(text: str) -> tuple[int, CType]:
    """Value and C type of an integer constant (decimal, hex, octal, binary; u/l suffixes)."""
    body = text.rstrip("uUlL")
    suffix = text[len(body):].lower()
    if body.lower().startswith("0x"):
        value, decimal = int(body[2:], 16), False
    elif body.lower().startswith("0b"):
        value, decimal = int(body[2:], 2), False
    elif len(body) > 1 and body.startswith("0"):
        value, decimal = int(body[1:], 8), False
    else:
        value, decimal = int(body), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    candidates: list[CType] = []
    if longs == 0:
        candidates += [UINT] if unsigned else ([INT] if decimal else [INT, UINT])
    candidates += [ULLONG] if unsigned else ([LLONG] if decimal else [LLONG, ULLONG])
    for t in candidates:
        lo, hi = _INT_LIMITS[t.dtype.type]  # type: ignore[union-attr]
        if lo <= value <= hi:
            return value, t
    return value & 0xFFFFFFFFFFFFFFFF, ULLONG


def parse_float_literal(text: str) -> tuple[float, CType]:
    """Value and C type of a floating constant (``f`` suffix means float)."""
    t = text.lower()
    if t.endswith("f"):
        return float(np.float32(float.fromhex(t[:-1]) if "0x" in t else t[:-1])), FLOAT
    return (float.fromhex(t.rstrip("l")) if "0x" in t else float(t.rstrip("l"))), DOUBLE


def parse_char_literal(text: str) -> int:
    """Value of a character constant such as ``'a'`` or ``'\\n'``."""
    inner = text[1:-1]
    if inner.startswith("\\"):
        escapes = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7,
                   "b": 8, "f": 12, "v": 11}
        if inner[1] == "x":
            return int(inner[2:], 16)
        if inner[1:].isdigit():
            return int(inner[1:], 8)
        return escapes[inner[1]]
    return ord(inner)


NUMPY_TO_CTYPE = {t.dtype: t for t in (BOOL, CHAR, UCHAR, SHORT, USHORT, INT, UINT, LLONG, ULLONG,
                                       FLOAT, DOUBLE)}
