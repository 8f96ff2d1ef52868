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
    return msg(key, **fields)
