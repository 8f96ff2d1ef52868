"""Regenerate the translations: ``python -m ui.i18n_update`` (from the repository root).

1. ``pyside6-lupdate`` collects every ``tr()`` / ``translate()`` string of ``ui/`` into
   ``resources/i18n/gpulab_<locale>.ts``, keeping the translations already there.
2. The ``.ts`` is compiled, as the app does on first use (:mod:`ui.i18n_compile`), to check that
   it compiles and to have it ready in the cache. No ``.qm`` is written into the repository.

English is the source language: it has no ``.ts`` (its texts are the sources themselves).
Chinese entries that are new show as ``type="unfinished"``: translate them in
``pyside6-linguist resources/i18n/gpulab_zh_CN.ts`` (or by hand), then run this again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from ui.i18n_compile import compiled

UI_DIR = Path(__file__).resolve().parent
I18N_DIR = UI_DIR.parent / "resources" / "i18n"
LOCALES = ("zh_CN",)  # every language but the source language (English)


def tool(name: str) -> str | None:
    """A Qt tool from PATH or next to this Python (a virtual environment's bin/)."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def ui_sources() -> list[str]:
    return sorted(str(p) for p in UI_DIR.rglob("*.py") if p.name != "i18n_update.py")


def lupdate(ts_path: Path, locale: str) -> None:
    """Write every source string of ui/ into ``ts_path`` (keeping existing translations)."""
    exe = tool("pyside6-lupdate")
    if exe is None:
        raise FileNotFoundError("pyside6-lupdate was not found (install PySide6)")
    args = [exe, *ui_sources(), "-ts", str(ts_path), "-no-obsolete", "-locations", "none"]
    args += ["-source-language", "en", "-target-language", locale]
    subprocess.run(args, check=True, capture_output=True)


def messages(ts_path: Path) -> dict[tuple[str, str], ET.Element | None]:
    """(context, source) -> the <translation> element, for every message in a .ts file."""
    found = {}
    for context in ET.parse(ts_path).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            found[(name, message.findtext("source", ""))] = message.find("translation")
    return found


def main() -> int:
    for locale in LOCALES:
        ts_path = I18N_DIR / f"gpulab_{locale}.ts"
        lupdate(ts_path, locale)
        qm_path = compiled(ts_path)  # fails here, not in a user's window, if the .ts does not compile
        entries = messages(ts_path)
        unfinished = [key for key, tr in entries.items() if tr is None or tr.get("type")]
        print(f"{ts_path.name}: {len(entries)} strings, {len(unfinished)} unfinished; compiled to {qm_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
