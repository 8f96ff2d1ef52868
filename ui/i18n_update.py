"""Regenerate the translations: ``python -m ui.i18n_update`` (from the repository root).

1. ``pyside6-lupdate`` collects every ``tr()`` / ``translate()`` string of ``ui/`` into
   ``resources/i18n/gpulab_<locale>.ts``, keeping the translations already there.
2. English is the source language, so its unfinished entries are filled with the source text.
3. ``pyside6-lrelease`` compiles each ``.ts`` to the ``.qm`` the app loads.

Chinese entries that are new show as ``type="unfinished"``: translate them in
``pyside6-linguist resources/i18n/gpulab_zh_CN.ts`` (or by hand), then run this again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

UI_DIR = Path(__file__).resolve().parent
I18N_DIR = UI_DIR.parent / "resources" / "i18n"
LOCALES = ("zh_CN", "en")


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


def messages(ts_path: Path) -> dict[tuple[str, str], ET.Element]:
    """(context, source) -> the <translation> element, for every message in a .ts file."""
    found = {}
    for context in ET.parse(ts_path).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            found[(name, message.findtext("source", ""))] = message.find("translation")
    return found


def fill_with_source(ts_path: Path) -> None:
    """English translates to itself: mark every message finished with its source text."""
    tree = ET.parse(ts_path)
    for message in tree.getroot().iter("message"):
        translation = message.find("translation")
        if translation is not None and translation.get("type") == "unfinished":
            translation.text = message.findtext("source", "")
            del translation.attrib["type"]
    tree.write(ts_path, encoding="utf-8", xml_declaration=True)


def lrelease(ts_path: Path) -> None:
    exe = tool("pyside6-lrelease")
    if exe is None:
        raise FileNotFoundError("pyside6-lrelease was not found (install PySide6)")
    qm_path = ts_path.with_suffix(".qm")
    subprocess.run([exe, str(ts_path), "-qm", str(qm_path)], check=True, capture_output=True)


def main() -> int:
    for locale in LOCALES:
        ts_path = I18N_DIR / f"gpulab_{locale}.ts"
        lupdate(ts_path, locale)
        if locale == "en":
            fill_with_source(ts_path)
        lrelease(ts_path)
        unfinished = [key for key, tr in messages(ts_path).items() if tr.get("type")]
        print(f"{ts_path.name}: {len(messages(ts_path))} strings, {len(unfinished)} unfinished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
