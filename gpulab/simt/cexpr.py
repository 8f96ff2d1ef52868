"""C integer constant expressions, as the preprocessor evaluates them in ``#if``.

The expression is parsed by pycparser and its AST evaluated with C's rules for ``#if``: every
integer is ``intmax_t`` or ``uintmax_t`` (64 bits here), the usual arithmetic conversions make
an operation unsigned when either side is, signed results wrap to 64 bits, division truncates
toward zero, ``%`` takes the sign of the dividend, comparisons and logical operators give the
signed int 0 or 1, ``&&``, ``||`` and ``?:`` evaluate only the side they need. Decimal, octal
(``010``), hexadecimal, binary and character (``'a'``, ``'\\n'``, ``'\\x41'``) constants are
read as C reads them. Nothing is executed: no Python ``eval``, no unbounded arithmetic.
"""

from __future__ import annotations

import re

from pycparser import c_ast, c_parser

_BITS = 64
_MASK = (1 << _BITS) - 1
_INT_MAX = (1 << (_BITS - 1)) - 1
_MAX_TEXT = 10_000
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
            '"': 34, "?": 63, "e": 27}
_INTEGER = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9]\d*)([uUlL]*)$")


class ConstExprError(ValueError):
    """The text is not an integer constant expression C's preprocessor can evaluate; the message says why."""


class _Value:
    """An intmax_t or uintmax_t value."""

    __slots__ = ("unsigned", "value")

    def __init__(self, value: int, unsigned: bool = False) -> None:
        self.unsigned = unsigned
        value &= _MASK
        self.value = value if unsigned or value <= _INT_MAX else value - (1 << _BITS)


def evaluate(text: str) -> int:
    """The value of a C integer constant expression (identifiers must already be replaced)."""
    if len(text) > _MAX_TEXT:
        raise ConstExprError(f"the expression is too long ({len(text)} characters)")
    if not text.strip():
        raise ConstExprError("the condition is empty")
    try:
        ast = c_parser.CParser().parse(f"int __gpulab_if = ({text});", filename="#if")
        decl = ast.ext[0]
        return _eval(decl.init).value
    except ConstExprError:
        raise
    except RecursionError:
        raise ConstExprError("the expression is nested too deeply") from None
    except Exception as exc:  # pycparser's ParseError and anything odd it raises on bad input
        detail = str(exc).split(": ")[-1] if str(exc) else type(exc).__name__
        raise ConstExprError(f"not a C constant expression ({detail})") from None


def _integer_constant(text: str) -> _Value:
    m = _INTEGER.match(text)
    if not m:
        raise ConstExprError(f"{text!r} is not a valid integer constant")
    digits, suffix = m.groups()
    lowered = digits.lower()
    if lowered.startswith("0x"):
        value = int(lowered[2:], 16)
    elif lowered.startswith("0b"):
        value = int(lowered[2:], 2)
    elif len(digits) > 1 and digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    if value > _MASK:
        raise ConstExprError(f"integer constant {text} is too large for {_BITS} bits")
    unsigned = "u" in suffix.lower() or value > _INT_MAX
    return _Value(value, unsigned)


def _char_constant(text: str) -> _Value:
    body = text[1:-1] if len(text) >= 3 and text[0] == text[-1] == "'" else None
    if body is None:
        raise ConstExprError(f"{text!r} is not a character constant")
    if not body.startswith("\\"):
        if len(body) != 1:
            raise ConstExprError(f"{text} holds more than one character")
        return _Value(ord(body) if ord(body) < 128 else ord(body) - 256 if ord(body) < 256 else ord(body))
    rest = body[1:]
    if rest in _ESCAPES:
        return _Value(_ESCAPES[rest])
    if rest[:1] in "xX" and re.fullmatch(r"[xX][0-9a-fA-F]{1,2}", rest):
        value = int(rest[1:], 16)
    elif re.fullmatch(r"[0-7]{1,3}", rest):
        value = int(rest, 8)
    else:
        raise ConstExprError(f"unknown escape in character constant {text}")
    return _Value(value - 256 if value > 127 else value)  # char is signed, as on the GPU's host compilers


def _eval(node: c_ast.Node) -> _Value:
    if isinstance(node, c_ast.Constant):
        if node.type == "char":
            return _char_constant(node.value)
        if "int" in node.type or node.type in ("long", "unsigned"):
            return _integer_constant(node.value)
        raise ConstExprError(f"{node.type} constant {node.value} is not allowed in #if (only integers)")
    if isinstance(node, c_ast.UnaryOp):
        return _unary(node)
    if isinstance(node, c_ast.BinaryOp):
        return _binary(node)
    if isinstance(node, c_ast.TernaryOp):
        chosen = node.iftrue if _eval(node.cond).value else node.iffalse
        other = node.iffalse if chosen is node.iftrue else node.iftrue
        result = _eval(chosen)
        try:
            unsigned = result.unsigned or _eval(other).unsigned
        except ConstExprError:
            unsigned = result.unsigned
        return _Value(result.value, unsigned)
    if isinstance(node, c_ast.ID):
        return _Value(0)  # an identifier left after macro expansion is 0, as in C
    what = {"FuncCall": "a function call", "Cast": "a cast", "Assignment": "an assignment",
            "ExprList": "a comma operator", "ArrayRef": "an array index",
            "StructRef": "a member access"}.get(type(node).__name__, type(node).__name__)
    raise ConstExprError(f"{what} is not allowed in #if")


def _unary(node: c_ast.UnaryOp) -> _Value:
    if node.op == "sizeof":
        raise ConstExprError("sizeof is not allowed in #if")
    if node.op == "*":
        raise ConstExprError("'*' here is a pointer dereference (C has no '**' power operator)")
    if node.op not in ("+", "-", "~", "!"):
        raise ConstExprError(f"operator {node.op!r} is not allowed in #if")
    operand = _eval(node.expr)
    if node.op == "+":
        return operand
    if node.op == "-":
        return _Value(-operand.value, operand.unsigned)
    if node.op == "~":
        return _Value(~operand.value, operand.unsigned)
    return _Value(int(operand.value == 0))


def _binary(node: c_ast.BinaryOp) -> _Value:
    op = node.op
    left = _eval(node.left)
    if op == "&&":
        return _Value(int(bool(left.value) and bool(_eval(node.right).value)))
    if op == "||":
        return _Value(int(bool(left.value) or bool(_eval(node.right).value)))
    right = _eval(node.right)
    if op in ("<<", ">>"):
        count = right.value
        if count < 0 or count >= _BITS:
            raise ConstExprError(f"shift count {count} is outside 0 to {_BITS - 1}")
        if op == "<<":
            return _Value(left.value << count, left.unsigned)
        return _Value((left.value & _MASK if left.unsigned else left.value) >> count, left.unsigned)
    unsigned = left.unsigned or right.unsigned
    a = left.value & _MASK if unsigned else left.value
    b = right.value & _MASK if unsigned else right.value
    if op in ("<", ">", "<=", ">=", "==", "!="):
        result = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
        return _Value(int(result))
    if op in ("/", "%"):
        if b == 0:
            raise ConstExprError("division by zero in #if")
        quotient = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            quotient = -quotient
        return _Value(quotient if op == "/" else a - b * quotient, unsigned)
    arith = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}
    if op not in arith:
        raise ConstExprError(f"operator {op!r} is not allowed in #if")
    return _Value(arith[op], unsigned)
