"""The emulator's errors as catalogue messages, from their structured fields (no Qt here).

``gpulab.simt`` is a leaf package and writes English only; its errors carry ``kind``,
``line`` and ``details``. :func:`error_message` words them through ``simt.error.<kind>``
catalogue keys, so the warp visualizer and ``gpulab emulate`` show them in the reader's
language. A kind the catalogue does not know keeps a translated frame around the English
detail.
"""

from __future__ import annotations

from gpulab.catalogue import Message, entries, msg, plain


def error_message(exc: BaseException) -> Message:
    """A keyed message for an emulator error (any other exception: its own words)."""
    kind = str(getattr(exc, "kind", "") or "")
    details = dict(getattr(exc, "details", {}) or {})
    line = getattr(exc, "line", None)
    detail = str(details.get("detail") or getattr(exc, "detail", "") or exc)
    where = msg("simt.error.at-line", line=line) if line else plain("")
    fields = {
        **{name: value for name, value in details.items() if isinstance(value, (str, int, float))},
        "line": details.get("loop_line") or line or "?",
        "detail": detail,
        "where": where,
        "budget": f"{int(details.get('budget', 0)):,}",
        "iterations": f"{int(details.get('iterations', 0)):,}",
        "seconds": f"{float(details.get('seconds') or 0):g}",
    }
    key = f"simt.error.{kind}"
    if not kind or key not in entries():
        key = "simt.error.fault" if kind else "simt.error.error"
    if kind == "compile":
        return _compile_message(str(details.get("construct") or ""), detail, where) or msg(key, **fields)
    return msg(key, **fields)


SYNTAX_SUFFIX = " (the emulator accepts a C subset of CUDA)"


def _compile_message(construct: str, detail: str, where: Message) -> Message | None:
    """The two compile errors a student meets most, worded whole in the catalogue: a syntax error
    (the parser's own words kept as a quote) and a name used before it is declared."""
    if construct == "syntax":
        quote = detail.removeprefix("syntax error").removesuffix(SYNTAX_SUFFIX).strip()
        return msg("simt.error.syntax", where=where, quote=quote)
    if construct.startswith("undeclared name "):
        return msg("simt.error.undeclared", where=where, name=construct.removeprefix("undeclared name "))
    if construct.endswith(" arguments") and " with " in construct:  # "sqrt with int arguments"
        name, _with, types = construct.removesuffix(" arguments").partition(" with ")
        return msg("simt.error.ambiguous", where=where, call=f"{name}({types})")
    return None
