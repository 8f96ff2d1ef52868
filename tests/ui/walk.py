"""How a user drives the window in tests: real clicks, keys and menu choices, never slots."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit

from ui.widgets.layout_parts import widgets as layout_widgets

JOB_TIMEOUT_MS = 30_000


def click(qtbot, button) -> None:
    """A left click on ``button``; it must be visible and enabled, as for a person."""
    assert button.isVisible(), f"{button.text()!r} is not on screen"
    assert button.isEnabled(), f"{button.text()!r} is greyed out"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def tick(qtbot, box) -> None:
    """A left click on a check box's square, where a person aims (a wide box's middle may be empty)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    assert box.isVisible() and box.isEnabled(), f"{box.text()!r} cannot be clicked"
    option = QStyleOptionButton()
    box.initStyleOption(option)
    square = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=square.center())


def choose(qtbot, combo: QComboBox, data) -> None:
    """Pick the entry whose data is ``data`` with the arrow keys, as on a closed combo box."""
    target = combo.findData(data)
    assert target >= 0, f"{data!r} is not offered ({[combo.itemData(i) for i in range(combo.count())]})"
    choose_index(qtbot, combo, target)


def type_into(qtbot, field: QLineEdit, text: str) -> None:
    """Select what the field holds and type ``text`` over it."""
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, text)
    assert field.text() == text


def click_tab(qtbot, tabs, index: int) -> None:
    """A left click on tab ``index`` of the QTabWidget ``tabs``."""
    bar = tabs.tabBar()
    assert bar.isVisible() and bar.isTabEnabled(index), f"tab {index} cannot be clicked"
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert tabs.currentIndex() == index


def open_panel(qtbot, window, name: str):
    """Click the panel's entry in the sidebar and return the panel."""
    sidebar = window.sidebar
    rect = sidebar.visualItemRect(sidebar.panel_item(name))
    qtbot.mouseClick(sidebar.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.current_panel() is window.panels[name]
    return window.panels[name]


def switch_language(window, code: str) -> None:
    """View → Language → ``code``: the menu entry a person picks."""
    window.language_actions[code].trigger()


def wait_idle(qtbot, window, timeout_ms: int = JOB_TIMEOUT_MS) -> None:
    """Until every job the window started has ended."""
    qtbot.waitUntil(window.services.runner.is_idle, timeout=timeout_ms)


def fill_form(qtbot, editors, assignments: dict[str, str]) -> None:
    """Enter ``{field: text}`` in a page's form as a person does: pick a named preset in its list,
    type into a free-text field, choose in a list, tick a box. Fields the form lacks are left out
    (the page runs them at their defaults)."""
    from PySide6.QtWidgets import QCheckBox

    from ui.widgets.params_form import PresetEditor

    for name, text in assignments.items():
        editor = editors.get(name)
        if isinstance(editor, PresetEditor):
            if text in editor.names:
                choose_index(qtbot, editor.combo, editor.names.index(text))
            else:
                type_into(qtbot, editor.edit, text)
        elif isinstance(editor, QComboBox):
            choose(qtbot, editor, text)
        elif isinstance(editor, QCheckBox):
            if editor.isChecked() != (text.lower() in ("1", "true", "yes", "on")):
                tick(qtbot, editor)
        elif isinstance(editor, QLineEdit):
            type_into(qtbot, editor, text)


def choose_index(qtbot, combo: QComboBox, target: int) -> None:
    """Pick entry ``target`` with the arrow keys."""
    combo.setFocus()
    key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
    for _ in range(combo.count()):
        if combo.currentIndex() == target:
            break
        qtbot.keyClick(combo, key)
    assert combo.currentIndex() == target


def switch_theme(window, name: str) -> None:
    """View → Theme → ``name``: the menu entry a person picks."""
    window.theme_actions[name].trigger()


def combo_field_width(combo: QComboBox) -> int:
    """The width of a combo box's text field: what its shown entry must fit (a combo cuts, no ellipsis)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()  # fmt: skip


def fully_shown(widget) -> bool:
    """Every pixel of ``widget`` is on screen (not scrolled away, not cut by the window's edge)."""
    return widget.isVisible() and widget.visibleRegion().boundingRect().size() == widget.size()


def settle(widget, rounds: int = 30) -> None:
    """Let the layouts settle after a resize, a theme or a language: a page's new minimum reaches
    the window's scroll area one posted event after another. Until nothing moves, or ``rounds``."""
    from PySide6.QtWidgets import QApplication, QWidget

    seen = None
    for _ in range(rounds):
        QApplication.processEvents()
        now = [(w.geometry(), w.minimumSizeHint()) for w in (widget, *widget.findChildren(QWidget))]
        if now == seen:  # every part where it was (a page's size alone can stay while its parts move)
            return
        seen = now


def layout_problems(window, panel) -> list[str]:
    """What stands between this page and a class, as seen now: the page scrolling as a whole,
    Run or Export off screen, a picture under half the page's height, a legend taller than its plot."""
    settle(panel)
    problems = []
    shown = panel.parentWidget()
    if panel.height() > shown.height() or panel.width() > shown.width():
        problems.append(f"the page is {panel.width()}x{panel.height()} in a {shown.width()}x{shown.height()} view")
    for name in ("run_button", "export_button"):
        button = getattr(panel, name, None)
        if button is not None and not button.isHidden() and not fully_shown(button):
            problems.append(f"{button.text()!r} is not wholly on screen")
    if hasattr(panel, "pictures"):
        half = panel.page_height() // 2
        for picture in panel.pictures():
            if picture.isVisible() and picture.height() < half:
                problems.append(f"{type(picture).__name__} is {picture.height()} px tall, under half of {2 * half}")
    legend, plot = getattr(panel, "legend", None), getattr(panel, "plot", None)
    if legend is not None and plot is not None and legend.isVisible() and plot.isVisible():
        shown = legend.visibleRegion().boundingRect().height()  # a long legend scrolls in its box
        if shown > plot.height():
            problems.append(f"the legend ({shown} px) is taller than its plot ({plot.height()} px)")
    return problems + overlaps(panel)


def overlaps(page) -> list[str]:
    """Widgets of one layout drawn over each other: a widget given less than its minimum keeps its
    minimum, and covers its neighbour (an axis title under a legend)."""
    from PySide6.QtWidgets import QWidget

    found = []
    for widget in [page, *page.findChildren(QWidget)]:
        layout = widget.layout() if widget.isVisible() else None
        if layout is None:
            continue
        shown = [w for w in layout_widgets(layout) if w.isVisible()]  # not itemAt: see ui/widgets/layout_parts.py
        for i, first in enumerate(shown):
            for second in shown[i + 1 :]:
                if first.geometry().intersects(second.geometry()):
                    names = type(first).__name__, type(second).__name__, type(widget).__name__
                    found.append("{} and {} overlap in {}".format(*names))
    return found
