"""What the compiler's parts share: names in scope, compiled functions, the compiled program.

:class:`Var` and :class:`Scope` are C's names in nested blocks, :class:`Function` a compiled
``__global__`` or ``__device__`` function, :class:`Program` a compiled translation unit, and
:data:`Stmt` the type of a compiled statement (see :mod:`gpulab.simt.compiler`).
:class:`CompilerView` is what the compiler's helpers (file scope, templates, ``switch``) use of
the :class:`~gpulab.simt.compiler.Compiler` they belong to. This module imports none of the
compiler's modules, so each of them can import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from pycparser import c_ast

from .ctypes_ import CType
from .errors import CompileError, KernelFault
from .machine import Mask, Site
from .preprocess import Preprocessed
from .registers import RegisterTable
from .values import CExpr, Frame

Stmt = Callable[[Frame, Mask], Mask]
MAX_CALL_DEPTH = 64


@dataclass
class Var:
    """A name in scope: a register slot, or a fixed address (arrays, shared scalars)."""

    kind: str  # "reg", "array", "mem", "struct" (leaves in consecutive slots from ``slot``)
    #            or "const" (a compile-time constant: value)
    ctype: CType
    slot: int = -1
    address: int = 0
    var_id: int = -1  # register variables: index in the program's RegisterTable
    const: bool = False  # declared const: assigning to it is a compile error, as in C
    line: int = 0  # where it was declared (for "already declared" errors)
    value: Any = None  # "const": the constant's value


@dataclass
class Function:
    """A compiled ``__global__`` or ``__device__`` function."""

    name: str
    params: list[tuple[str, CType]]
    ret: CType
    is_kernel: bool
    site: Site
    nslots: int = 0
    body: Stmt | None = None
    returns: bool = False


@dataclass
class MemoryDecl:
    """A ``__shared__``, thread-local or ``__constant__`` array to allocate at launch."""

    name: str
    space: str
    offset: int
    dtype: np.dtype
    count: int
    function: str = ""  # the function declaring it
    init: np.ndarray | None = None  # __constant__ data's initial values (zeros where None)


@dataclass
class Program:
    """A compiled translation unit."""

    functions: dict[str, Function]
    memory: list[MemoryDecl]
    pre: Preprocessed
    shared_bytes: int = 0
    local_bytes: int = 0
    registers: RegisterTable = field(default_factory=RegisterTable)
    structs: dict[str, CType] = field(default_factory=dict)  # struct types by name
    templates: dict[str, Any] = field(default_factory=dict)  # name -> templates.TemplateDef
    aliases: dict[str, str] = field(default_factory=dict)  # requested name -> instance name
    dynamic_shared: dict[str, list[str]] = field(default_factory=dict)  # function -> extern __shared__
    dynamic_elements: dict[str, CType] = field(default_factory=dict)  # extern __shared__ -> element type
    fused_lines: tuple[int, ...] = ()  # source lines holding a fused multiply-add (contracted or called)
    library_lines: tuple[int, ...] = ()  # source lines calling a math function CUDA computes with fmas
    overloads: dict[str, list[str]] = field(default_factory=dict)  # overloaded name -> its functions

    @property
    def kernels(self) -> list[str]:
        return [f.name for f in self.functions.values() if f.is_kernel]


class Scope:
    """Nested C block scope."""

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Var] = {}

    def lookup(self, name: str) -> Var | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


def is_const_declarator(type_node: c_ast.Node) -> bool:
    """Whether a declarator itself is const (``const int n``, ``float* const p``), not what it points to."""
    return isinstance(type_node, (c_ast.TypeDecl, c_ast.PtrDecl)) and "const" in (type_node.quals or [])


def run_body(fn: Function, callee: Frame, m: Mask, site: Site) -> None:
    """Run a called function's body one call deeper; a runaway recursion is a fault."""
    mc = callee.mc
    depth = mc.call_depth
    if depth >= MAX_CALL_DEPTH:
        raise KernelFault(f"{mc.kernel}: line {site.line}: call depth exceeds "
                          f"{MAX_CALL_DEPTH} (runaway recursion?)", mc.kernel, site.line)
    mc.call_depth = depth + 1
    try:
        fn.body(callee, m)  # type: ignore[misc]
    finally:
        mc.call_depth = depth


class CompilerView(Protocol):
    """What the compiler's helpers (:class:`~.filescope.FileScope`, :class:`~.instantiate.Templates`,
    :mod:`~.compile_switch`) use of the :class:`~.compiler.Compiler` they belong to."""

    pre: Preprocessed
    functions: dict[str, Function]
    current: Function | None
    typedefs: dict[str, CType]
    stpl: Any  # struct_instances.StructInstances
    file_scope: Scope
    const_scope: Scope
    switch_depth: int

    def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError: ...
    def position(self, node: c_ast.Node | None) -> tuple[int | None, int | None]: ...
    def site(self, node: c_ast.Node) -> Site: ...
    def resolve_type(self, node: c_ast.Node) -> CType: ...
    def declare_function(self, decl: c_ast.Decl, fdef: c_ast.FuncDef | None) -> None: ...
    def compile_function(self, fdef: c_ast.FuncDef) -> None: ...
    def visit(self, node: c_ast.Node, scope: Scope) -> tuple[Stmt, bool]: ...
    def check_new_name(self, node: c_ast.Decl, scope: Scope) -> None: ...
    def expr(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
    def scalar(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
    def assign_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr: ...
    def device_call(self, fn: Function, arg_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                    scope: Scope) -> CExpr: ...
    def constant_memory(self, node: c_ast.Decl) -> None: ...
