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
    """The compile errors a student meets most, worded whole in the catalogue: a syntax error
    (the parser's own words kept as a quote), a name used before it is declared, a failed
    static_assert (its message kept) and an overloaded call that matches none or several
    (the candidates kept as C++ writes them)."""
    if construct == "syntax":
        quote = detail.removeprefix("syntax error").removesuffix(SYNTAX_SUFFIX).strip()
        return msg("simt.error.syntax", where=where, quote=quote)
    if construct.startswith("undeclared name "):
        return msg("simt.error.undeclared", where=where, name=construct.removeprefix("undeclared name "))
    if construct == "static_assert" and detail.startswith("static assertion failed"):
        message = detail.removeprefix("static assertion failed").removeprefix(":").strip()
        return msg("simt.error.static-assert", where=where, message=message or "-")
    if "instance of overloaded function" in detail:  # nvcc's words, kept as the candidates' list
        name = construct.removeprefix("ambiguous call to ").removeprefix("no matching ")
        listed = detail.rpartition(": ")[2]
        key = "simt.error.overload-ambiguous" if detail.startswith("more than one") else "simt.error.overload-none"
        return msg(key, where=where, name=name, candidates=listed)
    if construct.endswith(" arguments") and " with " in construct:  # "sqrt with int arguments"
        name, _with, types = construct.removesuffix(" arguments").partition(" with ")
        return msg("simt.error.ambiguous", where=where, call=f"{name}({types})")
    return None
