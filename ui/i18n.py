"""Languages: install the translations, and notice a missing Chinese font.

English is the language the sources are written in, so it has no catalogue: choosing it removes
every translator and Qt shows the ``tr()`` texts as written. Every other language has a source
``resources/i18n/gpulab_<locale>.ts`` (kept up to date by ``python -m ui.i18n_update``).

The binary ``.qm`` Qt loads is not committed: :mod:`ui.i18n_compile` compiles it from the ``.ts``
on first use, with the ``lrelease`` the PySide6 wheel ships, into the user's cache, named by the
hash of its ``.ts``. Why at run time rather than a committed ``.qm`` checked by a test: a committed
binary changed with every lab and could disagree with its source between a ``.ts`` edit and the
next ``ui.i18n_update``; compiling on use makes disagreement impossible, works the same in a fresh
clone, an editable install and a wheel (the installed package may be read-only; the cache is
not), and costs ~0.1 s once per edit of the ``.ts``. Without ``lrelease`` (a PySide6 packaged
without Qt's tools) the language cannot be loaded and :func:`set_language` says so (False).

Installing a translator makes Qt send every widget a LanguageChange event; widgets then
re-read their texts in ``retranslate()``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QFontDatabase

from gpulab import catalogue
from gpulab.catalogue import Message, Note, msg, render
from gpulab.paths import resource_path

if TYPE_CHECKING:
    from gpulab.devices import CudaStatus

LANGUAGES = {"en": "en", "zh": "zh_CN"}  # short code -> translation file locale
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}  # each in its own language, never translated
DEFAULT_LANGUAGE = "en"
SOURCE_LANGUAGE = "en"  # the language of the tr() texts themselves: no catalogue, no translator

# Deliberately not translated: without a Chinese font, Chinese text would be unreadable.
NO_CJK_FONT_MESSAGE = (
    "No Chinese font is installed, so Chinese text will show as empty boxes. "
    "Install one (for example: sudo apt install fonts-noto-cjk) and restart gpulab."
)

_log = logging.getLogger(__name__)
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


def translation_source(language: str) -> Path | None:
    """``language``'s ``.ts`` file; None for the source language, which needs none."""
    if language == SOURCE_LANGUAGE:
        return None
    return resource_path("i18n", f"gpulab_{LANGUAGES[language]}.ts")


def translation_file(language: str) -> str | None:
    """The compiled ``.qm`` Qt loads for ``language`` (compiled now if the cache has none of its
    current ``.ts``); None for the source language, or when it cannot be compiled (logged)."""
    source = translation_source(language)
    if source is None:
        return None
    from ui import i18n_compile  # hashes and maybe compiles: only for a language other than English

    try:
        return str(i18n_compile.compiled(source))
    except (OSError, i18n_compile.TranslationUnavailable) as exc:
        _log.warning("the %s translation cannot be loaded: %s", language, exc)
        return None


def qt_translation_file(language: str) -> str:
    """Qt's own strings (standard buttons such as Close), shipped with PySide6."""
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    return str(Path(folder) / f"qtbase_{LANGUAGES[language]}.qm")


def set_language(language: str) -> bool:
    """Install ``language``'s translators (replacing the previous ones); False if ours failed.
    The source language installs none: its texts are the sources'."""
    global _language
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("set_language needs the QApplication to exist")
    language = normalize_language(language) or DEFAULT_LANGUAGE
    while _installed:
        app.removeTranslator(_installed.pop())
    loaded = language == SOURCE_LANGUAGE
    if not loaded:
        loaded = _install(app, translation_file(language))
        _install(app, qt_translation_file(language))
    _language = language
    # Qt posts LanguageChange to every widget; deliver them now so texts switch at once.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return loaded


def _install(app: QCoreApplication, path: str | None) -> bool:
    translator = QTranslator(app)
    if path is None or not translator.load(path):
        return False
    app.installTranslator(translator)
    _installed.append(translator)
    return True


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
# The engine (gpulab) cannot use Qt's tr(): its texts are keyed messages whose English and
# Chinese live in the text catalogue (gpulab.catalogue). These helpers render them in the
# current language; widgets call them again in retranslate() on a language switch.


def localized(en: str, zh: str | None) -> str:
    """``zh`` when the interface is Chinese and ``zh`` is not empty, else ``en``."""
    return zh if _language == "zh" and zh else en


def _text_message(source: Any, attribute: str) -> Message | None:
    """The catalogue message behind ``source.attribute``: a record's ``<attribute>_message``
    (a kernel catalogue entry), or an experiment module's ``experiment.<name>.<attribute>``."""
    message = getattr(source, f"{attribute.lower()}_message", None)
    if isinstance(message, Message):
        return message
    if isinstance(source, ModuleType):
        from gpulab import experiments  # the lab platform: not needed before the first paint

        name = experiments.name_of(source)
        key = f"experiment.{name}.{attribute.lower()}"
        if name is not None and catalogue.has(key):
            return msg(key)
    return None


def engine_text(source: Any, attribute: str) -> str:
    """An engine text in the current language: ``TITLE``/``DESCRIPTION`` of an experiment module,
    ``title``/``description``/``lesson`` of a kernel catalogue entry. A source the catalogue does
    not describe (a test's or a script's own experiment) shows its English attribute."""
    message = _text_message(source, attribute)
    if message is None:
        return str(getattr(source, attribute, ""))
    return render(message, _language)


def field_text(params_type: type, name: str, what: str = "label") -> str:
    """Field ``name``'s label or help (``what``) in the current language, from the text catalogue
    (:func:`gpulab.lab.base.param_text`); '' when the catalogue has none."""
    from gpulab.lab.base import param_text  # see _text_message

    message = param_text(params_type, name, what)
    return render(message, _language) if message is not None else ""


def engine_message(text: Message | str) -> str:
    """A text the engine wrote (a result note, a reason, a series name, a progress message, a
    parameter error) in the current language. A keyed :class:`Message` — or a :class:`Note`,
    a string carrying one — is rendered from the catalogue; a plain string (a note of an old
    ``gpulab.result/1`` file, a script's own text) is shown as it is."""
    if isinstance(text, Note):
        return render(text.message, _language)
    if isinstance(text, Message):
        return render(text, _language)
    return str(text)


def engine_messages(texts: Iterable[Message | str]) -> list[str]:
    """Each of ``texts`` through :func:`engine_message`."""
    return [engine_message(text) for text in texts]


def device_reason(status: CudaStatus) -> str:
    """Why CUDA is (not) usable, in the current language."""
    from gpulab.devices import explain  # the device module is loaded by the first probe, after the first paint

    return explain(status, _language)
