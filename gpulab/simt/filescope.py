"""File-scope constants and ``extern __shared__`` arrays in the compiler.

File-scope constants: ``const int N = 256;``, ``constexpr int M = 2 * N;`` (the preprocessor
made ``constexpr`` a ``const``) and ``static const float PI = 3.14159f;``. CUDA lets device
code use a namespace-scope const (or constexpr) variable of scalar type initialized with a
constant expression; its value is folded in. Here such a name is a compile-time constant in
the file scope around every function: usable in expressions, array sizes and template
arguments; assigning to it is a compile error, as in C++. File-scope const arrays (which
NVRTC accepts) are not supported yet and are refused by name.

Dynamic shared memory: ``extern __shared__ float s[];`` (the preprocessor turned
``__shared__`` into ``static``, so the parser sees ``extern static``) names the start of the
block's dynamic shared buffer, whose size in bytes the launch gives (``shared_mem``). Every
such declaration, in any function or at file scope, with any element type, aliases the same
start, as in CUDA; pointer casts carve several arrays out of it. The launch side is in
:mod:`gpulab.simt.dynshared`.
"""

from __future__ import annotations

from pycparser import c_ast

from . import ctypes_ as ct
from .ctypes_ import CType
from .dynshared import DYNAMIC_SHARED_OFFSET
from .machine import SHARED_BASE
from .symbols import CompilerView, Scope, Stmt, Var


def _is_dynamic_shared(node: c_ast.Decl) -> bool:
    return {"extern", "static"} <= set(node.storage or [])


def _declared_const(type_node: c_ast.Node) -> bool:
    """``const int N``, ``const float W[3]``, ``float* const p``; not ``const float* p``."""
    while isinstance(type_node, c_ast.ArrayDecl):
        type_node = type_node.type
    return isinstance(type_node, (c_ast.TypeDecl, c_ast.PtrDecl)) and "const" in (type_node.quals or [])


class FileScope:
    """File-scope and ``extern`` declarations, a part of one :class:`~.compiler.Compiler`."""

    def __init__(self, compiler: CompilerView) -> None:
        self.c = compiler
        self.dynamic_shared: dict[str, list[str]] = {}  # function ('' at file scope) -> arrays
        self.dynamic_elements: dict[str, CType] = {}  # array -> its element type

    # ------------------------------------------------------------------ file scope
    def declaration(self, node: c_ast.Decl) -> None:
        """A declaration outside any function (function declarations aside)."""
        if _is_dynamic_shared(node):
            self.dynamic_shared_array(node, self.c.file_scope)
            return
        if node.name in self.c.pre.constant_names:
            self.c.constant_memory(node)
            return
        if isinstance(node.type, (c_ast.Struct, c_ast.Union, c_ast.Enum)) or node.name is None \
                or not _declared_const(node.type):
            raise self.c.error(node, "global variables (__device__/__constant__ data) are not "
                             "supported by the emulator", "global variable")
        self.file_constant(node)

    def file_constant(self, node: c_ast.Decl) -> None:

        ctype = self.c.resolve_type(node.type)
        if ctype.is_array:
            raise self.c.error(node, f"file-scope const array '{node.name}' is not supported by "
                               "the emulator (declare the table inside the kernel, or pass it as "
                               "an argument)", "file-scope const array")
        if not ctype.is_scalar:
            raise self.c.error(node, f"file-scope constant '{node.name}' of type {ctype} is not "
                             "supported (only scalar constants)", "file-scope constant")
        if node.init is None or isinstance(node.init, c_ast.InitList):
            raise self.c.error(node, f"file-scope constant '{node.name}' needs an initializer "
                             "(= a constant expression)", "file-scope constant")
        value = self.c.assign_convert(self.c.scalar(node.init, self.c.file_scope), ctype, node.init)
        if value.const is None:
            raise self.c.error(node.init, f"file-scope constant '{node.name}': the initializer is "
                             "not a compile-time constant (device code can only use constants "
                             "initialized with constant expressions)", "file-scope constant")
        previous = self.c.file_scope.names.get(node.name)
        if previous is not None:
            raise self.c.error(node, f"'{node.name}' is already declared at file scope (first on "
                             f"line {previous.line})", "redeclaration")
        self.c.file_scope.names[node.name] = Var("const", ctype, const=True, value=value.const,
                                               line=self.c.position(node)[0] or 0)

    # ------------------------------------------------------------------ extern
    def extern_decl(self, node: c_ast.Decl, scope: Scope) -> Stmt:
        """``extern`` inside a function: only ``extern __shared__`` arrays are supported."""
        if not _is_dynamic_shared(node):
            raise self.c.error(node, "extern declarations are not supported", "extern")
        self.c.check_new_name(node, scope)
        self.dynamic_shared_array(node, scope)
        return lambda fr, m: m

    def dynamic_shared_array(self, node: c_ast.Decl, scope: Scope) -> None:
        """``extern __shared__ T name[];``: an array at the start of the dynamic buffer."""

        if not isinstance(node.type, c_ast.ArrayDecl) or node.type.dim is not None:
            raise self.c.error(node, f"dynamic shared memory: declare it as an unsized array, "
                             f"'extern __shared__ T {node.name}[];' (its size comes from the launch)",
                             "extern __shared__")
        if node.init is not None:
            raise self.c.error(node, "dynamic shared memory cannot have an initializer",
                             "extern __shared__")
        elem = self.c.resolve_type(node.type.type)
        inner = elem
        while inner.is_array and inner.pointee is not None:
            inner = inner.pointee
        if inner.dtype is None:
            raise self.c.error(node, f"dynamic shared memory: arrays of {inner} are not supported "
                             "(only numbers)", "extern __shared__")
        owner = self.c.current.name if self.c.current is not None else ""
        self.dynamic_shared.setdefault(owner, []).append(node.name)
        self.dynamic_elements[node.name] = inner
        scope.names[node.name] = Var("array", ct.array_of(elem, 0),
                                     address=SHARED_BASE + DYNAMIC_SHARED_OFFSET,
                                     line=self.c.position(node)[0] or 0)
