"""C layout of aggregates: user structs and CUDA's built-in vector types (``float4``, ``int2``, ...).

A struct's members are placed as a C compiler places them: each at the next offset that is
a multiple of its alignment, the whole padded to a multiple of the largest alignment. The
built-in vector types carry the alignments of CUDA's ``vector_types.h`` (``float2`` 8,
``float4`` 16, ``float3`` 12 bytes at 4, ``double2`` 16, ``double4`` 32 bytes at 16), which is
what lets a ``float4`` load be one 16-byte access per lane.

In registers a struct value is a tuple with one entry per *leaf* (scalar or pointer member,
nested structs and member arrays flattened in memory order); in memory it is read and written
in *chunks*, one access per chunk, the way the GPU does it: a chunk is an aligned block of the
struct's alignment that its leaves fill exactly (``float4``: one 16-byte chunk), otherwise each
leaf is its own access (``float3``, a struct of three floats: three 4-byte accesses).
The layout records themselves (:class:`~.ctypes_.StructLayout`, its members, leaves and chunks)
live in :mod:`.ctypes_`, beside the :class:`~.ctypes_.CType` that holds one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from . import ctypes_ as ct
from .ctypes_ import CType, Member, StructLayout
from .errors import SimtError


def align_of(ctype: CType) -> int:
    """``alignof`` of a C type."""
    if ctype.layout is not None:
        return ctype.layout.align
    if ctype.is_array:
        assert ctype.pointee is not None
        return align_of(ctype.pointee)
    return ctype.size or 1


def _round_up(n: int, a: int) -> int:
    return -(-n // a) * a


def struct_type(tag: str, members: list[tuple[str, CType]], min_align: int = 1,
                vector: bool = False) -> CType:
    """The struct type with these members laid out as C does."""
    placed: list[Member] = []
    offset, align = 0, min_align
    for name, mtype in members:
        a = align_of(mtype)
        offset = _round_up(offset, a)
        placed.append(Member(name, mtype, offset))
        offset += mtype.size
        align = max(align, a)
    size = _round_up(max(offset, 1), align)
    # a struct named like a type kind must not read as a pointer or an array (CType.is_pointer)
    name = f"struct {tag}" if tag in ("ptr", "array", "") else tag
    return CType(name, layout=StructLayout(tag, tuple(placed), size, align, vector))


# ---------------------------------------------------------------------- CUDA vector types
_VECTOR_BASES: tuple[tuple[str, CType], ...] = (
    ("char", ct.CHAR), ("uchar", ct.UCHAR), ("short", ct.SHORT), ("ushort", ct.USHORT),
    ("int", ct.INT), ("uint", ct.UINT), ("long", ct.LLONG), ("ulong", ct.ULLONG),
    ("longlong", ct.LLONG), ("ulonglong", ct.ULLONG), ("float", ct.FLOAT), ("double", ct.DOUBLE),
)
_FIELDS = "xyzw"


def _vector_align(itemsize: int, n: int) -> int:
    """vector_types.h: 1- and 3-vectors align as their component, 2- and 4-vectors as the
    whole vector, at most 16 bytes (checked against NVRTC's ``alignof``)."""
    if n in (1, 3):
        return itemsize
    return min(16, itemsize * n)


def _vector_types() -> dict[str, CType]:
    table = {}
    for base, comp in _VECTOR_BASES:
        assert comp.dtype is not None
        for n in (1, 2, 3, 4):
            name = f"{base}{n}"
            table[name] = struct_type(name, [(f, comp) for f in _FIELDS[:n]],
                                      _vector_align(comp.dtype.itemsize, n), vector=True)
    return table


VECTOR_TYPES: dict[str, CType] = _vector_types()
_VECTOR_TAG = "__gpulab_vector_"
_VECTOR_WORD = re.compile(r"\b(" + "|".join(VECTOR_TYPES) + r")\b")


def vector_prelude(text: str) -> str:
    """Typedef lines naming the vector types ``text`` uses, so pycparser parses them as types.

    Each is ``typedef struct __gpulab_vector_float4 float4;``: the compiler maps that tag to
    the built-in layout (:func:`builtin_struct`)."""
    used = sorted(set(_VECTOR_WORD.findall(text)))
    return "".join(f"typedef struct {_VECTOR_TAG}{n} {n};" for n in used)


def builtin_struct(tag: str) -> CType | None:
    """The vector type a prelude tag names (None for any other tag)."""
    if tag.startswith(_VECTOR_TAG):
        return VECTOR_TYPES.get(tag[len(_VECTOR_TAG):])
    return None


# ---------------------------------------------------------------------- numpy
def numpy_dtype(ctype: CType) -> np.dtype:
    """The numpy dtype with the C layout of ``ctype`` (a structured dtype for a struct)."""
    if ctype.layout is not None:
        lay = ctype.layout
        return np.dtype({"names": [m.name for m in lay.members],
                         "formats": [numpy_dtype(m.ctype) for m in lay.members],
                         "offsets": [m.offset for m in lay.members], "itemsize": lay.size})
    if ctype.is_array:
        assert ctype.pointee is not None
        return np.dtype((numpy_dtype(ctype.pointee), (ctype.length,)))
    if ctype.dtype is None:
        return np.dtype(np.uint64)  # a pointer member
    return ctype.dtype


def _same_layout(dt: np.dtype, want: np.dtype) -> bool:
    """Same field names, offsets, sizes and scalar kinds (numpy ignores names in ==)."""
    if dt.itemsize != want.itemsize:
        return False
    if want.names is None:
        if want.subdtype is not None:
            return dt.subdtype is not None and dt.subdtype[1] == want.subdtype[1] \
                and _same_layout(dt.subdtype[0], want.subdtype[0])
        return dt.names is None and dt.subdtype is None and dt == want
    if dt.names is None or tuple(dt.names) != tuple(want.names):
        return False
    assert dt.fields is not None and want.fields is not None
    return all(dt.fields[n][1] == want.fields[n][1] and _same_layout(dt.fields[n][0], want.fields[n][0])
               for n in want.names)


def _component_view_ok(value: np.ndarray, ctype: CType) -> bool:
    """A vector type may also be bound from an array of its component with a last axis of
    its length (``float4*`` from an (n, 4) float32 array) or a flat one whose size is a
    multiple of it (as ``gpulab emulate --arg float32[4096]`` makes); a struct of two floats
    or two doubles from complex64/complex128 (same bytes: real part first)."""
    lay = ctype.layout
    assert lay is not None
    dtypes = {leaf.memory_dtype for leaf in lay.leaves}
    if len(dtypes) != 1 or any(leaf.ctype.dtype is None for leaf in lay.leaves):
        return False
    comp = dtypes.pop()
    packed = lay.size == comp.itemsize * len(lay.leaves)
    n = len(lay.leaves)
    if lay.vector and packed and value.dtype == comp and value.ndim >= 1 \
            and (value.shape[-1] == n or (value.ndim == 1 and value.size % n == 0)):
        return True
    complex_of = {np.dtype(np.float32): np.dtype(np.complex64),
                  np.dtype(np.float64): np.dtype(np.complex128)}
    return len(lay.leaves) == 2 and packed and value.dtype == complex_of.get(comp)


def array_binding_problem(value: np.ndarray, ctype: CType) -> str | None:
    """Why a numpy array cannot back a ``ctype*`` argument (None when it can)."""
    want = numpy_dtype(ctype)
    if _same_layout(value.dtype, want) or _component_view_ok(value, ctype):
        return None
    fields = ", ".join(f"{leaf.path} {leaf.memory_dtype.name} at byte {leaf.offset}"
                       for leaf in ctype.layout.leaves) if ctype.layout is not None else ""
    extra = ""
    if ctype.layout is not None and ctype.layout.vector:
        comp = ctype.layout.leaves[0].memory_dtype.name
        extra = f", or a {comp} array whose last axis has length {len(ctype.layout.leaves)}"
    return (f"expected a numpy array whose elements have the layout of {ctype} ({fields}; "
            f"{ctype.size} bytes): a structured dtype with these field names and offsets "
            f"(simt.numpy_dtype gives it){extra}; got a {value.dtype} array")


def scalar_leaves(value: object, ctype: CType,
                  bind_pointer: Callable[[str, CType, object], object] | None = None,
                  prefix: str = "") -> tuple | None:
    """The leaf values of a struct argument given as a numpy structured scalar with the
    struct's layout or as a (nested) tuple with one entry per member; None if neither.
    A pointer member takes a numpy array (or None), bound by ``bind_pointer(path, type,
    array)``; a structured scalar cannot hold one (its bytes are no device address)."""
    lay = ctype.layout
    assert lay is not None
    if isinstance(value, (np.void, np.ndarray)) and getattr(value, "dtype", None) is not None \
            and value.dtype.names is not None:
        if not _same_layout(value.dtype, numpy_dtype(ctype)) \
                or any(leaf.ctype.dtype is None for leaf in lay.leaves):
            return None
        raw = np.asarray(value).reshape(1).view(np.uint8)
        return tuple(raw[leaf.offset:leaf.offset + leaf.memory_dtype.itemsize].view(leaf.memory_dtype)[0]
                     for leaf in lay.leaves)
    if not isinstance(value, (tuple, list)) or len(value) != len(lay.members):
        return None
    out: list = []
    for item, m in zip(value, lay.members, strict=True):
        if m.ctype.layout is not None:
            inner = scalar_leaves(item, m.ctype, bind_pointer, f"{prefix}{m.name}.")
            if inner is None:
                return None
            out.extend(inner)
        elif m.ctype.is_pointer and bind_pointer is not None:
            out.append(bind_pointer(prefix + m.name, m.ctype, item))
        elif m.ctype.is_array or m.ctype.dtype is None:
            return None
        else:
            out.append(np.asarray(item).astype(m.ctype.dtype)[()])
    return tuple(out)


def struct_argument(index: int, name: str, ctype: CType, value: object,
                    bind_pointer: Callable[[str, CType, object], object] | None = None) -> tuple:
    """The leaf values of a struct kernel argument passed by value, or a SimtError."""
    leaves = scalar_leaves(value, ctype, bind_pointer)
    if leaves is None:
        members = ", ".join(m.name for m in ctype.layout.members) if ctype.layout else ""
        raise SimtError(f"argument {index} ({ctype} {name}): expected a tuple with one value per "
                        f"member ({members}; a numpy array for a pointer member) or a numpy "
                        f"structured scalar with {ctype}'s layout (simt.struct_dtype), got "
                        f"{type(value).__name__}")
    return leaves
