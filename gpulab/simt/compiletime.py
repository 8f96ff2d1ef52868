"""What C++ settles while compiling: unscoped enums and ``static_assert``.

:class:`CompileTimeMixin` is a cooperative compiler mixin (every override calls ``super()``).

* ``enum Mode { RELU, GELU = 4, TANH };`` at file scope: each enumerator is a compile-time
  ``int`` constant (the next one counts on from the last value, as in C++), usable in
  expressions, ``case`` labels, array sizes and template arguments; ``Mode`` is a type name
  (the lowering adds ``typedef enum Mode Mode;``) whose values are ``int``. The emulator also
  accepts an ``int`` where C++ wants the enum type (a leniency: nvcc refuses ``Mode m = 1;``).
  Scoped enums (``enum class``) and enums declared inside a function are refused by name.
* ``static_assert(cond, "message")`` at file scope or in a function is evaluated when it is
  compiled (in a template, for each instance) and fails compilation with its message, as nvcc's
  does; a condition the compiler cannot evaluate is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from . import ctypes_ as ct
from .ctypes_ import CType
from .errors import CompileError
from .symbols import Function, Scope, Var
from .values import CExpr


class CompileTimeMixin:
    """Enumerations and static assertions for the compiler."""

    if TYPE_CHECKING:  # what the mixin uses of the compiler
        current: Function | None
        file_scope: Scope

        def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError: ...
        def expr(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
        def position(self, node: c_ast.Node | None) -> tuple[int | None, int | None]: ...

    # ------------------------------------------------------------------ enums
    def resolve_type(self, node: c_ast.Node) -> CType:
        enum = node.type if isinstance(node, c_ast.TypeDecl) else node
        if isinstance(enum, c_ast.Enum):
            if enum.values is not None:
                self.enum_declaration(enum)
            return ct.INT
        return super().resolve_type(node)  # type: ignore[misc]

    def enum_declaration(self, enum: c_ast.Enum) -> None:
        """File the enumerators of ``enum`` as file-scope ``int`` constants."""
        if self.current is not None:
            raise self.error(enum, "an enum declared inside a function is not supported by the "
                             "emulator; declare it at file scope", "enum inside a function")
        value = -1
        for item in enum.values.enumerators:
            if item.value is None:
                value += 1
            else:
                given = self.expr(item.value, self.file_scope)
                if given.const is None or not given.ctype.is_integer:
                    raise self.error(item, f"the value of enumerator '{item.name}' must be an "
                                     "integer constant", "enumerator value")
                value = int(given.const)
            if not -2**31 <= value < 2**31:
                raise self.error(item, f"enumerator '{item.name}' = {value} does not fit an int "
                                 "(the emulator's enums are int)", "enumerator value")
            previous = self.file_scope.names.get(item.name)
            if previous is not None:
                raise self.error(item, f"'{item.name}' is already declared at file scope (first on "
                                 f"line {previous.line})", "redeclaration")
            self.file_scope.names[item.name] = Var("const", ct.INT, const=True, value=value,
                                                   line=self.position(item)[0] or 0)

    # ------------------------------------------------------------------ static_assert
    def static_assertion(self, node: c_ast.StaticAssert, scope: Scope) -> None:
        cond = self.expr(node.cond, scope)
        if cond.const is None:
            raise self.error(node, "static_assert needs a condition the compiler can evaluate",
                             "static_assert")
        if not cond.const:
            message = node.message.value if node.message is not None else ""
            raise self.error(node, f"static assertion failed{': ' + message if message else ''}",
                             "static_assert")

    def visit_StaticAssert(self, node: c_ast.StaticAssert, scope: Scope) -> Any:
        self.static_assertion(node, scope)
        return (lambda fr, m: m), False
