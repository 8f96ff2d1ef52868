"""Transport controls for stepping through a recorded run: play/pause, step, jump, speed.

The transport owns no position: it asks for one with signals, and the owner tells it where
the cursor is (``set_position``). While playing, a QTimer asks for the next step at the
chosen speed, 0.5 to 60 steps a second (a logarithmic slider).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSlider, QStyle, QVBoxLayout, QWidget

from ui.widgets.flow_layout import FlowBox, group

MIN_SPEED = 0.5
MAX_SPEED = 60.0
SLIDER_STEPS = 100
DEFAULT_SPEED = 4.0


def speed_from_slider(value: int) -> float:
    """Slider position (0..SLIDER_STEPS) to steps per second, logarithmically."""
    fraction = max(0, min(value, SLIDER_STEPS)) / SLIDER_STEPS
    return MIN_SPEED * (MAX_SPEED / MIN_SPEED) ** fraction


def slider_from_speed(speed: float) -> int:
    speed = max(MIN_SPEED, min(speed, MAX_SPEED))
    return round(SLIDER_STEPS * math.log(speed / MIN_SPEED) / math.log(MAX_SPEED / MIN_SPEED))


class Transport(QWidget):
    """Buttons and a speed slider; emits what the user asks for."""

    step_requested = Signal(int)  # +1 forward, -1 back
    seek_requested = Signal(int)  # an absolute step: 0 = start, -1 = end
    next_divergence_requested = Signal()
    next_memory_requested = Signal()
    playing_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.position = 0
        self.length = 0
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        style = self.style()
        icon = style.standardIcon
        pix = QStyle.StandardPixmap
        self.start_button = self._button(icon(pix.SP_MediaSkipBackward), lambda: self.seek_requested.emit(0))
        self.back_button = self._button(icon(pix.SP_MediaSeekBackward), lambda: self.step_requested.emit(-1))
        self.play_button = self._button(icon(pix.SP_MediaPlay), self.toggle_play)
        self.forward_button = self._button(icon(pix.SP_MediaSeekForward), lambda: self.step_requested.emit(1))
        self.end_button = self._button(icon(pix.SP_MediaSkipForward), lambda: self.seek_requested.emit(-1))
        self.divergence_button = QPushButton()
        self.divergence_button.clicked.connect(self.next_divergence_requested)
        self.memory_button = QPushButton()
        self.memory_button.clicked.connect(self.next_memory_requested)
        self.speed_slider = QSlider(Qt.Orientation.Horizontal)
        self.speed_slider.setRange(0, SLIDER_STEPS)
        self.speed_slider.setValue(slider_from_speed(DEFAULT_SPEED))
        self.speed_slider.setMinimumWidth(80)
        self.speed_slider.valueChanged.connect(self._speed_changed)
        self.speed_label = QLabel()
        self.position_label = QLabel()
        self._layout()
        self._speed_changed()
        self.retranslate()
        self.set_position(0, 0)

    def _button(self, icon, slot) -> QPushButton:
        button = QPushButton()
        button.setIcon(icon)
        button.clicked.connect(slot)
        return button

    def _layout(self) -> None:
        """Groups that wrap onto more rows when the transport is narrow (large type, Chinese)."""
        self.box = FlowBox(spacing=8, row_spacing=2)
        self.box.add(
            group(self.start_button, self.back_button, self.play_button, self.forward_button, self.end_button,
                  self.position_label),
            self.divergence_button,
            self.memory_button,
            group(self.speed_slider, self.speed_label),
        )  # fmt: skip
        self._fit_buttons()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box)

    def media_buttons(self) -> tuple[QPushButton, ...]:
        return (self.start_button, self.back_button, self.play_button, self.forward_button, self.end_button)

    def _fit_buttons(self) -> None:
        """Icons and buttons as large as the type (the projector theme's is large)."""
        side = max(16, round(0.8 * self.fontMetrics().height()))
        for button in self.media_buttons():
            button.setIconSize(QSize(side, side))
            button.setMaximumWidth(2 * side + 12)
        self.speed_slider.setMinimumWidth(5 * side)

    def rows(self) -> int:
        """How many rows the controls take at the present width."""
        return self.box.rows()

    # ............................................................ state
    @property
    def speed(self) -> float:
        return speed_from_slider(self.speed_slider.value())

    def set_speed(self, steps_per_second: float) -> None:
        self.speed_slider.setValue(slider_from_speed(steps_per_second))

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def _fix_position_width(self) -> None:
        """A fixed size: a new step number then changes no layout (stepping stays cheap)."""
        label = self.position_label
        widest = self.tr("step %1 / %2").replace("%1", "8888").replace("%2", "8888")
        label.setFixedSize(label.fontMetrics().horizontalAdvance(widest) + 4, label.sizeHint().height())

    def set_position(self, position: int, length: int) -> None:
        """Where the cursor is now, out of how many steps; stops playing at the end."""
        self.position, self.length = position, length
        self.position_label.setText(
            self.tr("step %1 / %2").replace("%1", str(position + 1 if length else 0)).replace("%2", str(length))
        )
        has_steps = length > 0
        for button in (
            self.start_button,
            self.back_button,
            self.play_button,
            self.forward_button,
            self.end_button,
            self.divergence_button,
            self.memory_button,
        ):
            button.setEnabled(has_steps)
        if self.playing and position >= length - 1:
            self.pause()

    def play(self) -> None:
        if self.length == 0 or self.playing:
            return
        if self.position >= self.length - 1:
            self.seek_requested.emit(0)
        self.timer.start(self._interval_ms())
        self._show_play_state()

    def pause(self) -> None:
        if not self.playing:
            return
        self.timer.stop()
        self._show_play_state()

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def _show_play_state(self) -> None:
        pix = QStyle.StandardPixmap.SP_MediaPause if self.playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play_button.setIcon(self.style().standardIcon(pix))
        self.retranslate()
        self.playing_changed.emit(self.playing)

    def _interval_ms(self) -> int:
        return max(1, round(1000 / self.speed))

    def _tick(self) -> None:
        self.step_requested.emit(1)

    def _speed_changed(self) -> None:
        self.speed_label.setText(self.tr("%1 steps/s").replace("%1", f"{self.speed:.2g}"))
        if self.playing:
            self.timer.setInterval(self._interval_ms())

    # ............................................................ texts
    def retranslate(self) -> None:
        self.start_button.setToolTip(self.tr("Go to the first step"))
        self.back_button.setToolTip(self.tr("Step back"))
        self.play_button.setToolTip(self.tr("Pause") if self.playing else self.tr("Play"))
        self.forward_button.setToolTip(self.tr("Step forward"))
        self.end_button.setToolTip(self.tr("Go to the last step"))
        self.divergence_button.setText(self.tr("Next divergence"))
        self.divergence_button.setToolTip(self.tr("Jump to the next branch that splits a warp's lanes"))
        self.memory_button.setText(self.tr("Next memory access"))
        self.memory_button.setToolTip(self.tr("Jump to the next load, store or atomic"))
        self.speed_slider.setToolTip(self.tr("Playback speed, 0.5 to 60 steps a second"))
        self._speed_changed()
        self.set_position(self.position, self.length)
        self._fix_position_width()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.FontChange:
            self._fix_position_width()
            self._fit_buttons()
        super().changeEvent(event)
