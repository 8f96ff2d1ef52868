"""The scaling explorer's sliders: GPU count, message size, failure rate and checkpoint time.

Each slider steps through a fixed list of values (powers of two for GPUs and bytes, a 1-2-5 ladder
for rates and seconds), so a key press or a drag moves by one sensible step across decades. The
slider is superqt's ``QLabeledSlider`` over the step's index, its own number hidden: the value
beside it is written in the value's unit (16,384 GPUs, 256 MiB, 60 s).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QSlider, QWidget
from superqt import QLabeledSlider

translate = QCoreApplication.translate

GPU_STEPS = tuple(2**i for i in range(15))  # 1 ... 16,384
MESSAGE_STEPS = tuple(2**i for i in range(10, 35))  # 1 KiB ... 16 GiB
RATE_STEPS = (0.01, 0.02, 0.05, 0.1, 0.19, 0.5, 1.0, 2.0, 5.0)  # interruptions per GPU-year; 0.19: Llama 3
CHECKPOINT_STEPS = (1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0)  # seconds; 3: Llama 3


def bytes_text(n: float) -> str:
    """1 KiB, 256 MiB, 4 GiB: binary units, whole when they can be."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n:.0f} B"


def seconds_text(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 120 else f"{seconds:g} s"


class StepSlider(QWidget):
    """A title, a slider over ``steps`` and the chosen value written out; ``changed`` carries the value."""

    changed = Signal(float)

    def __init__(self, steps: Sequence[float], text: Callable[[float], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps, self.text = tuple(steps), text
        self.title = QLabel()
        self.title.setWordWrap(True)  # a long title takes two lines in projector type, not the page's width
        self.slider = QLabeledSlider(Qt.Orientation.Horizontal)
        self.slider.setEdgeLabelMode(QLabeledSlider.EdgeLabelMode.NoLabel)
        self.slider.setRange(0, len(self.steps) - 1)
        self.slider.setPageStep(2)
        self.value_label = QLabel()
        self.value_label.setObjectName("sliderValue")
        self.slider.valueChanged.connect(self._moved)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # The title on its own row, the value beside the slider: a narrow window keeps both readable.
        layout.addWidget(self.title, 0, 0, 1, 2)
        layout.addWidget(self.slider, 1, 0)
        layout.addWidget(self.value_label, 1, 1, Qt.AlignmentFlag.AlignRight)
        layout.setColumnStretch(0, 1)
        self._moved(self.slider.value())

    @property
    def qslider(self) -> QSlider:
        """The QSlider a person drags or steps with the arrow keys."""
        found = self.slider.findChild(QSlider)
        assert found is not None
        return found

    def value(self) -> float:
        return self.steps[self.slider.value()]

    def set_value(self, value: float) -> None:
        """Move to the step nearest ``value`` (by ratio: the steps span decades), without signalling."""
        index = min(range(len(self.steps)), key=lambda i: abs(self.steps[i] - value) / max(self.steps[i], value, 1e-12))
        self.slider.blockSignals(True)
        self.slider.setValue(index)
        self.slider.blockSignals(False)
        self.value_label.setText(self.text(self.value()))

    def _moved(self, index: int) -> None:
        self.value_label.setText(self.text(self.steps[int(index)]))
        self.changed.emit(self.steps[int(index)])


class ScalingSliders(QWidget):
    """The four sliders in a 2 × 2 grid; ``changed`` names the one that moved."""

    changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gpus = StepSlider(GPU_STEPS, lambda n: f"{n:,.0f}")
        self.message = StepSlider(MESSAGE_STEPS, bytes_text)
        self.rate = StepSlider(RATE_STEPS, lambda r: f"{r:g}")
        self.checkpoint = StepSlider(CHECKPOINT_STEPS, seconds_text)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for index, (name, slider) in enumerate(self.by_name().items()):
            grid.addWidget(slider, index // 2, index % 2)
            slider.changed.connect(lambda _value, name=name: self.changed.emit(name))
        self.retranslate()

    def by_name(self) -> dict[str, StepSlider]:
        """The sliders by the Params field each sets."""
        return {"gpus": self.gpus, "message_bytes": self.message, "failures_per_gpu_year": self.rate,
                "checkpoint_seconds": self.checkpoint}  # fmt: skip

    def values(self) -> dict[str, float]:
        values = {name: slider.value() for name, slider in self.by_name().items()}
        values["gpus"], values["message_bytes"] = int(values["gpus"]), int(values["message_bytes"])
        return values

    def set_values(self, values: dict[str, float]) -> None:
        for name, slider in self.by_name().items():
            if name in values:
                slider.set_value(values[name])

    def retranslate(self) -> None:
        self.gpus.title.setText(translate("ScalingSliders", "GPUs"))
        self.message.title.setText(translate("ScalingSliders", "AllReduce message"))
        self.rate.title.setText(translate("ScalingSliders", "Interruptions per GPU-year"))
        self.checkpoint.title.setText(translate("ScalingSliders", "Checkpoint write"))
