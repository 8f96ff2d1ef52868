"""The user's saved choices (theme, language, last panel, sidebar), in one QSettings store."""

from __future__ import annotations

from PySide6.QtCore import QSettings

ORGANIZATION = "gpulab"
APPLICATION = "gpulab"

THEME_KEY = "ui/theme"
LANGUAGE_KEY = "ui/language"
PANEL_KEY = "ui/panel"
SIDEBAR_KEY = "ui/sidebar"  # "hidden" or "shown"


def open_settings() -> QSettings:
    """The settings store: an INI file in the user scope.

    Tests redirect it with ``QSettings.setPath(IniFormat, UserScope, tmp_dir)``.
    """
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def saved_value(key: str) -> str | None:
    """A saved string, or None when nothing (or something empty) was saved."""
    value = open_settings().value(key)
    return str(value) if value else None


def save_value(key: str, value: str) -> None:
    settings = open_settings()
    settings.setValue(key, value)
    settings.sync()
