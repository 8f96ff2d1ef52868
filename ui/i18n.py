"""Languages: install the compiled translations, and notice a missing Chinese font.

Translations live in ``resources/i18n/gpulab_<locale>.qm`` (made by ``ui/i18n_update.py``).
Installing a translator makes Qt send every widget a LanguageChange event; widgets then
re-read their texts in ``retranslate()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QFontDatabase

from gpulab.devices import CudaStatus
from gpulab.paths import resource_path

LANGUAGES = {"en": "en", "zh": "zh_CN"}  # short code -> translation file locale
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}  # each in its own language, never translated
DEFAULT_LANGUAGE = "en"

# Deliberately not translated: without a Chinese font, Chinese text would be unreadable.
NO_CJK_FONT_MESSAGE = (
    "No Chinese font is installed, so Chinese text will show as empty boxes. "
    "Install one (for example: sudo apt install fonts-noto-cjk) and restart gpulab."
)

_installed: list[QTranslator] = []
_language = DEFAULT_LANGUAGE


def normalize_language(code: str | None) -> str | None:
    """'zh', 'zh_CN', 'zh-Hans' -> 'zh'; 'en_US' -> 'en'; anything else -> None."""
    if not code:
        return None
    short = code.replace("-", "_").split("_")[0].lower()
    return short if short in LANGUAGES else None


def system_language() -> str:
    """The user's locale as one of our languages (English when we have no translation)."""
    return normalize_language(QLocale.system().name()) or DEFAULT_LANGUAGE


def translation_file(language: str) -> str:
    return str(resource_path("i18n", f"gpulab_{LANGUAGES[language]}.qm"))


def qt_translation_file(language: str) -> str:
    """Qt's own strings (standard buttons such as Close), shipped with PySide6."""
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    return str(Path(folder) / f"qtbase_{LANGUAGES[language]}.qm")


def set_language(language: str) -> bool:
    """Install ``language``'s translators (replacing the previous ones); False if ours failed."""
    global _language
    app = QCoreApplication.instance()
    language = normalize_language(language) or DEFAULT_LANGUAGE
    while _installed:
        app.removeTranslator(_installed.pop())
    loaded = False
    for path in (translation_file(language), qt_translation_file(language)):
        translator = QTranslator(app)
        if translator.load(path):
            app.installTranslator(translator)
            _installed.append(translator)
            loaded = loaded or path == translation_file(language)
    _language = language
    # Qt posts LanguageChange to every widget; deliver them now so texts switch at once.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return loaded


def current_language() -> str:
    return _language


def has_cjk_font() -> bool:
    """Whether any installed font family can write Simplified Chinese."""
    return bool(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))


def font_warning(language: str) -> str | None:
    """A plain-words warning when ``language`` needs a font this machine lacks."""
    if language == "zh" and not has_cjk_font():
        return NO_CJK_FONT_MESSAGE
    return None


# ------------------------------------------------------------ texts from the engine
# The engine (gpulab) cannot use Qt's tr(): it ships its own Chinese beside the English
# (``TITLE_ZH``, ``title_zh``, ``metadata['label_zh']``, gpulab.texts). These helpers pick the
# text of the current language; widgets call them again in retranslate() on a language switch.


def localized(en: str, zh: str | None) -> str:
    """``zh`` when the interface is Chinese and ``zh`` is not empty, else ``en``."""
    return zh if _language == "zh" and zh else en


def engine_text(source: Any, attribute: str) -> str:
    """An engine text in the current language: ``TITLE`` -> ``TITLE_ZH`` on a module,
    ``title`` -> ``title_zh`` on a record (a kernel catalogue entry)."""
    suffix = "_ZH" if attribute.isupper() else "_zh"
    en = getattr(source, attribute, "")
    return localized(str(en), getattr(source, attribute + suffix, None))


def field_text(field: Any, key: str = "label") -> str:
    """A Params field's ``metadata[key]`` in the current language ('' when it has none)."""
    metadata = getattr(field, "metadata", {}) or {}
    return localized(str(metadata.get(key, "")), metadata.get(f"{key}_zh"))


def engine_message(text: str) -> str:
    """A sentence the engine wrote (a result note, a reason, a series name, a progress message)
    in the current language, through :mod:`gpulab.texts`; unchanged when it has no Chinese."""
    from gpulab.texts import translate

    return translate(text, _language)


def engine_messages(texts: Iterable[str]) -> list[str]:
    return [engine_message(text) for text in texts]


def device_reason(status: CudaStatus) -> str:
    """Why CUDA is (not) usable, in the current language."""
    from gpulab.devices import explain

    return explain(status, _language)
