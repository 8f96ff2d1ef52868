"""The warp visualizer's compile and launch options: nvcc's ``-fmad`` and the ``__constant__`` data.

The FMA switch is nvcc's ``-fmad`` (on by default, as nvcc's: ``a * b + c`` becomes one fused
multiply-add rounded once; off, a multiply then an add, each rounded). The constants field is
what the host's ``cudaMemcpyToSymbol`` does before the launch: ``NAME=v1,v2,...`` fills the
first elements of ``__constant__`` data NAME, several separated by ``;``. It is shown only for
code that declares ``__constant__`` data (or once something is typed in it), so the row stays short.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit

from gpulab.simt.argcheck import ArgumentError
from gpulab.simt.cli import parse_const
from ui.widgets.flow_layout import group

translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls
_CONSTANT = re.compile(r"\b__constant__\b")


class ConstantsError(ValueError):
    """The constants field cannot be read: ``part``, the ``;``-separated piece that is wrong."""

    def __init__(self, part: str) -> None:
        super().__init__(part)
        self.part = part

    def message(self) -> str:
        """How to write it, in the interface language (worded when shown: a language switch re-words it)."""
        return translate(
            "WarpPanel",
            "Cannot read the constants “%1”: write NAME=v1,v2,… (numbers separated by commas), "
            "several separated by “;”, e.g. weights=0.1,0.2,0.4,0.2,0.1.",
        ).replace("%1", self.part)


def declares_constant(source: str) -> bool:
    """Whether ``source`` mentions ``__constant__`` data (the field is shown then)."""
    return _CONSTANT.search(source) is not None


def parse_constants(text: str) -> dict[str, list[float]]:
    """``"w=0.25,0.5; taps=1,2"`` -> {"w": [0.25, 0.5], "taps": [1, 2]} (``gpulab emulate --const``'s
    syntax, one per ``;``); ConstantsError naming the part that cannot be read."""
    constants: dict[str, list[float]] = {}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        try:
            name, values = parse_const(part)
        except ArgumentError:
            raise ConstantsError(part) from None
        constants[name] = values
    return constants


class LaunchOptions:
    """The FMA switch and the constants field; the controls' row places them (see KernelControls)."""

    def __init__(self) -> None:
        self.fmad_box = QCheckBox()
        self.fmad_box.setChecked(True)  # nvcc's default, -fmad=true
        self.constants_label = QLabel()
        self.constants_field = QLineEdit()
        self.constants_field.setClearButtonEnabled(True)
        self.constants_label.setBuddy(self.constants_field)
        self.constants_group = group(self.constants_label, self.constants_field)
        self.constants_group.hide()
        self.ran_constants = ""  # the field's text at the last run: Enter (or leaving it) reruns on a change
        self.short = True  # the switch says only "fma" (its tooltip all) until the row has room for its title

    @property
    def fmad(self) -> bool:
        return self.fmad_box.isChecked()

    def constants(self) -> dict[str, list[float]]:
        """The field's constants; ConstantsError when it cannot be read."""
        return parse_constants(self.constants_field.text())

    def show_for(self, source: str) -> None:
        """The constants field only where it means something: ``__constant__`` code, or a typed text."""
        self.constants_group.setVisible(declares_constant(source) or bool(self.constants_field.text().strip()))

    def reset(self) -> None:
        """A new kernel: its own constants (the field empties, quietly); the FMA switch stays as set."""
        self.constants_field.blockSignals(True)
        self.constants_field.clear()
        self.constants_field.blockSignals(False)
        self.ran_constants = ""

    def set_short(self, short: bool) -> None:
        """The switch's short title (where the controls' row has no room for the whole one), or its whole one."""
        if short != self.short:
            self.short = short
            self._title_switch()

    def _title_switch(self) -> str:
        whole = translate("WarpPanel", "Contract a*b + c into fma (nvcc -fmad=true)")
        self.fmad_box.setText(translate("WarpPanel", "fma") if self.short else whole)
        self.fmad_box.setAccessibleName(whole)
        return whole

    def retranslate(self) -> None:
        whole = self._title_switch()
        self.fmad_box.setToolTip(
            whole
            + "\n"
            + translate(
                "WarpPanel",
                "On, as nvcc by default: a*b + c is one fused multiply-add, rounded once. "
                "Off, as nvcc -fmad=false: the product is rounded, then the sum; float results can differ "
                "in the last bit. fmaf() calls stay fused either way.",
            )
        )
        self.constants_label.setText(translate("WarpPanel", "__constant__:"))
        self.constants_field.setPlaceholderText(translate("WarpPanel", "NAME=v1,v2,…"))
        self.constants_field.setToolTip(
            translate(
                "WarpPanel",
                "Fill __constant__ data before the launch, as cudaMemcpyToSymbol does: NAME=v1,v2,… sets its "
                "first elements (the rest keep their initial values); several separated by “;”. "
                "Empty: the values the source initializes. Enter runs.",
            )
        )
