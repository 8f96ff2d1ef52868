"""A parameter form built from a Params dataclass: one editor per field, chosen by what the
field declares (see :func:`gpulab.lab.base.param`).

A bool gets a checkbox; declared choices (or a ``Literal`` type) a list; a key of the GPU spec
table the table's GPUs by name; a field with presets a list of the presets over a free-text
field; anything else a line edit. The form reads back the texts a script would type
(``params_from_strings``), so the engine's one validator checks them and names the field.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from gpulab import experiments, measure
from gpulab.catalogue import Message
from gpulab.lab.base import choice_text, field_spec
from ui import i18n

translate = QCoreApplication.translate


def preset_title(key: str) -> str:
    """A preset's name in the interface language (the engine names presets by key)."""
    titles = {
        "default": translate("ParamsForm", "Default"),
        "quick": translate("ParamsForm", "Quick"),
        "standard": translate("ParamsForm", "Standard"),
        "large": translate("ParamsForm", "Large"),
        "huge": translate("ParamsForm", "Huge"),
        "full": translate("ParamsForm", "Full"),
        "balanced": translate("ParamsForm", "Balanced"),
        "copy-heavy": translate("ParamsForm", "Copies longer"),
        "kernel-heavy": translate("ParamsForm", "Kernel longer"),
    }
    return titles.get(key, key)


def field_text(value: Any) -> str:
    """A default parameter value as the text a user would type."""
    if isinstance(value, (tuple, list)):  # a saved result's JSON holds a tuple as a list
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


# Fields whose value is a key of the GPU spec table: offered as a list of the table's GPUs.
SPEC_TABLE_FIELDS = frozenset({"model_gpu"})


def size_text(n: float) -> str:
    """1024 -> '1024', 1048576 -> '2^20': the engine's one way of writing a size (its notes agree)."""
    return measure.size_text(n)


def preset_span(values: Any) -> str:
    """A preset in a few characters: its first and last value for a sweep, else the value."""
    if isinstance(values, tuple) and len(values) > 2 and all(isinstance(v, int) for v in values):
        return f"{size_text(values[0])} … {size_text(values[-1])}"
    if isinstance(values, tuple) and len(values) > 2:
        return f"{values[0]} … {values[-1]}"
    return field_text(values)


class PresetEditor(QWidget):
    """A list of a field's named presets over a line edit that holds the values (free to edit)."""

    def __init__(self, named: tuple[tuple[str, Any], ...], default: Any) -> None:
        super().__init__()
        self.combo = QComboBox()
        self.edit = QLineEdit()
        if all(values != default for _name, values in named):  # the dataclass default is a sweep of its own
            named = (("default", default), *named)
        self.names = [name for name, _values in named]
        self.values = [values for _name, values in named]
        for _name in named:
            self.combo.addItem("")
        self.retranslate()
        self.combo.setCurrentIndex(self.values.index(default))
        self.combo.currentIndexChanged.connect(self._preset_chosen)
        self._preset_chosen()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.combo)
        column.addWidget(self.edit)

    def retranslate(self) -> None:
        """Each preset's name and span in the interface language (a language switch calls it again)."""
        for index, (name, values) in enumerate(zip(self.names, self.values, strict=True)):
            self.combo.setItemText(index, f"{preset_title(name)}{i18n.localized(': ', '：')}{preset_span(values)}")

    def _preset_chosen(self, _index: int = 0) -> None:
        values = self.values[self.combo.currentIndex()]
        self.edit.setText(field_text(values))
        self.edit.setCursorPosition(0)
        self.edit.setToolTip(field_text(values))

    def text(self) -> str:
        return self.edit.text()


def choice_title(params_type: type, name: str, value: Any) -> str:
    """A choice as the form shows it: its words from the text catalogue
    (:func:`gpulab.lab.base.choice_text`) in the interface language, else the value itself
    (a data type such as fp32, which reads the same in every language). The combo keeps the value
    as its data: that is what a script types."""
    message = choice_text(params_type, name, value)
    return i18n.engine_message(message) if message is not None else str(value)


def _choice_combo(items: list[tuple[str, Any]], default: Any) -> QComboBox:
    """A list of (shown text, value typed into the Params) with ``default`` selected."""
    combo = QComboBox()
    for text, value in items:
        combo.addItem(text, value)
    combo.setCurrentIndex(max(0, combo.findData(field_text(default))))
    return combo


def _spec_table_items() -> list[tuple[str, Any]]:
    from gpulab.specs import load_specs

    try:
        return [(spec.name, spec.key) for spec in load_specs()]
    except Exception:  # a broken spec file leaves the field free text; the run reports the problem
        return []


def field_editor(params_type: type, field: dataclasses.Field[Any], default: Any) -> QWidget:
    """A checkbox for bool; a list for declared choices and for the GPU spec table; presets
    over free text for a field with presets; a line edit for everything else."""
    hint = typing.get_type_hints(params_type)[field.name]
    if hint is bool:
        box = QCheckBox()
        box.setChecked(bool(default))
        return box
    choices = experiments.choices(params_type, field.name)
    if choices and typing.get_origin(hint) is not tuple:  # several of them: typed
        return _choice_combo([(choice_title(params_type, field.name, c), str(c)) for c in choices], default)
    gpus = _spec_table_items() if field.name in SPEC_TABLE_FIELDS else []
    if gpus:
        return _choice_combo(gpus, default)
    named = experiments.presets(params_type, field.name)
    if named:
        return PresetEditor(named, default)
    edit = QLineEdit(field_text(default))
    edit.setCursorPosition(0)
    edit.setToolTip(field_text(default))
    return edit


def editor_text(editor: QWidget) -> str:
    if isinstance(editor, QCheckBox):
        return "true" if editor.isChecked() else "false"
    if isinstance(editor, QComboBox):
        return str(editor.currentData())
    assert isinstance(editor, (QLineEdit, PresetEditor))
    return editor.text()


def field_default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return None


def field_label(params_type: type, field: dataclasses.Field[Any]) -> str:
    """A parameter's label from the text catalogue, else its name."""
    colon = i18n.localized(":", "：")
    text = i18n.field_text(params_type, field.name, "label") or field.name.replace("_", " ")
    return f"{text[:1].upper()}{text[1:]}{colon}"  # a form's labels start with a capital, like the rest


def field_help(params_type: type, field: dataclasses.Field[Any]) -> str:
    """A parameter's help (its tooltip), with the name a script would use."""
    text = i18n.field_text(params_type, field.name, "help")
    return f"{text} ({field.name})" if text else field.name



class ParamsForm(QWidget):
    """Label and editor for each field of a Params type (or of the ``fields`` asked for)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.params_type: type | None = None
        self.fields: list[dataclasses.Field[Any]] = []
        self.editors: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        # Values for fields the form does not show (a lesson's preset sets them too); the typed
        # fields win. Without it a left-out field runs at its default.
        self.hidden_values: dict[str, str] = {}
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)

    def set_params_type(self, params_type: type | None, fields: Sequence[str] | None = None) -> None:
        """Rebuild the form for ``params_type`` (None empties it)."""
        while self.layout_.rowCount():
            self.layout_.removeRow(0)
        self.editors.clear()
        self.labels.clear()
        self.params_type = params_type
        every = dataclasses.fields(params_type) if params_type is not None else ()
        self.fields = [f for f in every if fields is None or f.name in fields]
        for field in self.fields:
            assert params_type is not None
            self.editors[field.name] = field_editor(params_type, field, field_default(field))
            self.labels[field.name] = QLabel()
            self.labels[field.name].setWordWrap(True)  # a long name wraps, not the column widens
            self.layout_.addRow(self.labels[field.name], self.editors[field.name])
        self.retranslate()
        self.fit()

    def texts(self) -> dict[str, str]:
        """Every field's value as the text a script would pass with ``--set``."""
        return {name: editor_text(editor) for name, editor in self.editors.items()}

    def read(self) -> Any:
        """The Params the form describes; ParamError (naming the field) when a value is wrong."""
        assert self.params_type is not None
        known = {f.name for f in dataclasses.fields(self.params_type)}
        hidden = {k: v for k, v in self.hidden_values.items() if k in known and k not in self.editors}
        return experiments.params_from_strings(self.params_type, {**hidden, **self.texts()})

    def show_values(self, values: Mapping[str, Any]) -> None:
        """Put saved values (a result's ``params``) in the fields this form has, as a person would
        see them typed: a sweep that is one of the field's presets picks that preset."""
        for name, value in values.items():
            editor = self.editors.get(name)
            if isinstance(editor, PresetEditor):
                wanted = tuple(value) if isinstance(value, list) else value
                if wanted in editor.values:
                    editor.combo.setCurrentIndex(editor.values.index(wanted))
                else:
                    editor.edit.setText(field_text(value))
            elif isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QComboBox):
                editor.setCurrentIndex(max(0, editor.findData(field_text(value))))
            elif isinstance(editor, QLineEdit):
                editor.setText(field_text(value))
                editor.setCursorPosition(0)

    def set_gpu_reason(self, reason: str | None) -> None:
        """Without a usable GPU (``reason`` says why), a field that only means something with one is
        unticked, greyed out and says why in its tooltip; with one (None) it is offered again."""
        if self.params_type is None:
            return
        for name, editor in self.editors.items():
            if not field_spec(self.params_type, name).needs_gpu or not isinstance(editor, QCheckBox):
                continue
            if reason is not None and editor.isEnabled():
                editor.setChecked(False)
            elif reason is None and not editor.isEnabled():
                editor.setChecked(bool(field_default(next(f for f in self.fields if f.name == name))))
            editor.setEnabled(reason is None)
            editor.setToolTip(self.tr("No usable GPU: %1").replace("%1", reason) if reason else "")

    def error_text(self, error: Message) -> str:
        """A parameter mistake in the reader's words: the field named by its label on this form
        (每点秒数), not by the key a script types (seconds_per_point)."""
        return i18n.engine_message(self._with_labels(error))

    def _with_labels(self, message: Message) -> Message:
        args: dict[str, Any] = {}
        for name, value in message.args.items():
            field_name = value.replace("-", "_") if isinstance(value, str) else ""
            if name == "key" and field_name in self.editors and self.params_type is not None:
                args[name] = i18n.field_text(self.params_type, field_name, "label") or value
            elif isinstance(value, Message):
                args[name] = self._with_labels(value)
            else:
                args[name] = value
        return Message(message.key, args, message.fallback)

    def retranslate(self) -> None:
        if self.params_type is None:
            return
        for field in self.fields:
            self.labels[field.name].setText(field_label(self.params_type, field))
            self.labels[field.name].setToolTip(field_help(self.params_type, field))
            editor = self.editors[field.name]
            if isinstance(editor, PresetEditor):
                editor.retranslate()
            elif isinstance(editor, QComboBox) and field.name not in SPEC_TABLE_FIELDS:  # a choice's words
                for index in range(editor.count()):
                    editor.setItemText(index, choice_title(self.params_type, field.name, editor.itemData(index)))

    def fit(self, max_px: int | None = None) -> None:
        """Room for about 16 characters in each free-text field, and for the whole of the longest
        preset a field offers (a sweep of sizes), up to ``max_px``, at the current type size."""
        metrics = self.fontMetrics()
        chars = metrics.averageCharWidth()
        for editor in self.editors.values():
            if isinstance(editor, (QLineEdit, PresetEditor)):
                width = 16 * chars
                if isinstance(editor, PresetEditor):
                    texts = [field_text(values) for values in editor.values] + [editor.text()]
                    width = max(width, max(metrics.horizontalAdvance(t) for t in texts) + 3 * chars)
                editor.setMinimumWidth(min(width, max_px) if max_px else width)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.FontChange:
            self.fit()
        super().changeEvent(event)
