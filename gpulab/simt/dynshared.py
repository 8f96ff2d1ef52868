"""Dynamic shared memory at launch: the ``shared_mem`` bytes of ``extern __shared__`` arrays.

As CuPy's ``RawKernel.__call__(grid, block, args, shared_mem=BYTES)``, the launch gives each
block ``shared_mem`` bytes of dynamic shared memory. Every ``extern __shared__`` array
starts there (:mod:`gpulab.simt.filescope`). The buffer lives at its own window above the
static ``__shared__`` arrays, exactly ``shared_mem`` bytes long, so an access past its end
is an out-of-bounds fault that names the array (and, with ``shared_mem=0``, says so).

A block may use at most 48 KiB of shared memory, static and dynamic together, unless the
program opts in for more (``cudaFuncSetAttribute`` with
``cudaFuncAttributeMaxDynamicSharedMemorySize``; in CuPy the kernel's
``max_dynamic_shared_size_bytes``), which the emulator does not model: a launch over the
limit is refused naming both figures, as the GPU refuses it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .errors import KernelFault, SimtError

_EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\b")
DYNAMIC_SHARED_OFFSET = 0x0080_0000  # from SHARED_BASE; static arrays stay far below
SHARED_PER_BLOCK_LIMIT = 48 * 1024  # bytes, static + dynamic, without an opt-in


def declares_dynamic_shared(source: str) -> bool:
    """Whether ``source`` mentions ``extern __shared__`` (a front end shows the size field then)."""
    return _EXTERN_SHARED.search(source) is not None


def static_shared_bytes(program: Any, kernel: str) -> int:
    """Static ``__shared__`` bytes a block of ``kernel`` holds: its own arrays and those of
    the device functions (which any kernel may call)."""
    kernels = {f.name for f in program.functions.values() if f.is_kernel}
    total = 0
    for decl in program.memory:
        owner = getattr(decl, "function", "")
        if decl.space == "shared" and (owner == kernel or owner not in kernels):
            total += -(-decl.count * decl.dtype.itemsize // 16) * 16
    return total


def dynamic_names(program: Any, kernel: str) -> list[str]:
    """The ``extern __shared__`` arrays ``kernel`` can see (file scope, itself, device code)."""
    table: dict[str, list[str]] = getattr(program, "dynamic_shared", {})
    kernels = {f.name for f in program.functions.values() if f.is_kernel}
    names: list[str] = []
    for owner, declared in table.items():
        if owner == kernel or owner not in kernels:
            names.extend(n for n in declared if n not in names)
    return names


def check_launch(program: Any, kernel: str, shared_mem: Any) -> int:
    """The dynamic size as an int, after the checks a GPU launch makes."""
    if isinstance(shared_mem, bool) or not isinstance(shared_mem, (int, np.integer)):
        raise SimtError(f"shared_mem must be a whole number of bytes, not {shared_mem!r}")
    size = int(shared_mem)
    if size < 0:
        raise SimtError(f"shared_mem must be 0 or more bytes, not {size}")
    static = static_shared_bytes(program, kernel)
    if static + size > SHARED_PER_BLOCK_LIMIT:
        raise SimtError(
            f"{kernel}: too much shared memory for one block: {static} bytes of static "
            f"__shared__ arrays + {size} bytes of dynamic shared memory (shared_mem) = "
            f"{static + size} bytes, over the {SHARED_PER_BLOCK_LIMIT} bytes (48 KiB) a block may "
            "use without an opt-in (cudaFuncSetAttribute), which the emulator does not model",
            details={"static_bytes": static, "dynamic_bytes": size,
                     "limit_bytes": SHARED_PER_BLOCK_LIMIT})
    return size


def allocate(mc: Any, program: Any, kernel: str, size: int) -> str | None:
    """Map the dynamic buffer for ``kernel`` (if it declares one); return its name."""
    names = dynamic_names(program, kernel)
    if not names:
        return None
    name = "/".join(names)
    mc.add_shared(name, DYNAMIC_SHARED_OFFSET, np.dtype(np.uint8), -(-size // 16) * 16, nbytes=size)
    return name


def explain(fault: KernelFault, name: str | None, size: int) -> KernelFault:
    """An out-of-bounds fault in the dynamic buffer, told how big the launch made it."""
    if name is None or fault.buffer != name:
        return fault
    hint = (" (extern __shared__ arrays have no memory: the launch gave shared_mem=0 bytes)"
            if size == 0 else f" (the launch gave shared_mem={size} bytes of dynamic shared memory)")
    out = KernelFault(str(fault) + hint, fault.kernel, fault.line, fault.buffer, fault.lanes,
                      fault.address, kind=fault.kind,
                      details={k: v for k, v in fault.details.items() if k != "detail"})
    out.details = {**out.details, "detail": fault.details.get("detail", "") + hint}
    return out
