"""How good is this model? A lab's validation rows, opened from its page and from the Help menu."""

from __future__ import annotations

import html

import pytest

from gpulab import catalogue, validation
from tests.ui.walk import choose, click, open_panel, switch_language
from ui.widgets.validation_view import ValidationDialog

VERDICTS = {"pass": "within", "fail": "outside", "error": "not priced", "unvalidated": "unvalidated"}


def _opened(qtbot, button) -> ValidationDialog:
    """Click the button; the dialog once its rows are checked."""
    click(qtbot, button)
    dialog = button.dialog
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.checks is not None, timeout=30_000)
    return dialog


def test_a_modelled_lab_lists_its_rows_with_model_published_error_verdict_and_source(qtbot, window):
    panel = open_panel(qtbot, window, "launch")
    assert panel.validation_button.isVisible()
    dialog = _opened(qtbot, panel.validation_button)
    rows = validation.rows_for("launch")
    shown = [[cell.replace("\xa0", " ") for cell in line] for line in dialog.table.rows()]
    assert [line[0] for line in shown] == [catalogue.render(row.what, "en") for row in rows]
    for line, item in zip(shown, validation.check_all(rows), strict=True):
        row = item.row
        unit = f" {row.unit}" if row.unit else ""
        assert line[1].startswith(f"{validation.value_text(item.model_value)}{unit}")
        assert line[2] == (f"{row.published.text()}{unit}" if row.published else "none published")
        assert line[3] == validation.error_text(item)
        assert line[4] == f"±{row.tolerance * 100:.0f}%"
        assert VERDICTS[item.status] in line[5]
        assert ("fitted" in line[5]) == row.fitted
        assert line[6] == (row.source.title if row.source else "")
    published = sum(row.published is not None for row in rows)
    assert f"of {published} rows within tolerance" in dialog.summary.text()
    fitted = sum(row.fitted for row in rows)
    assert fitted and f"{fitted} of the rows set the model's constants" in dialog.summary.text()


def test_every_row_shows_its_source_as_a_link_and_where_in_it(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    dialog = _opened(qtbot, panel.validation_button)
    page = dialog.table.toHtml()
    for row in validation.rows_for("transfer"):
        if row.source is None:
            continue
        assert f'href="{row.source.url}"' in page
        assert html.escape(row.locator.split(":")[0]) in page


def test_the_table_fits_a_1024_pixel_projector_without_scrolling_sideways(qtbot, projector_window):
    panel = open_panel(qtbot, projector_window, "cluster-scaling")
    dialog = _opened(qtbot, panel.validation_button)
    dialog.resize(984, 688)
    qtbot.waitUntil(lambda: dialog.table.document().size().width() <= dialog.table.viewport().width() + 1)
    assert not dialog.table.horizontalScrollBar().isVisible()


def test_the_rows_speak_chinese_after_a_language_switch(qtbot, window):
    panel = open_panel(qtbot, window, "collectives")
    dialog = _opened(qtbot, panel.validation_button)
    switch_language(window, "zh")
    qtbot.waitUntil(lambda: "的" in dialog.windowTitle() or "模型" in dialog.windowTitle(), timeout=5000)
    first = validation.rows_for("collectives")[0]
    assert dialog.table.rows()[0][0] == catalogue.render(first.what, "zh")
    assert panel.validation_button.text() != "How good is this model?"
    assert "rows within tolerance" not in dialog.summary.text()


def test_a_lab_without_rows_has_no_validation_button(qtbot, window):
    panel = open_panel(qtbot, window, "allreduce-steps")
    assert not validation.rows_for("allreduce-steps")
    assert not panel.validation_button.isVisible()


def test_help_lists_every_row_of_every_lab(qtbot, window):
    window.help_menu.aboutToShow.emit()
    window.validation_action.trigger()
    dialog = window.validation_dialog
    qtbot.waitUntil(lambda: dialog.checks is not None, timeout=30_000)
    assert len(dialog.table.rows()) == len(validation.load_rows())


@pytest.mark.parametrize("status", ["pass", "fail", "error", "unvalidated"])
def test_each_verdict_has_words_in_both_languages(qtbot, status):
    from ui import i18n
    from ui.widgets.validation_view import ValidationSheet

    table = ValidationSheet()
    qtbot.addWidget(table)
    english = table.verdict(status)
    assert VERDICTS[status] in english
    i18n.set_language("zh")  # the fixture puts English back
    chinese = table.verdict(status)
    assert chinese and chinese != english and not any("a" <= c <= "z" for c in chinese)


def test_the_cpu_vs_gpu_page_shows_the_rows_of_the_experiment_picked_in_its_combo(qtbot, window):
    panel = open_panel(qtbot, window, "cpu-vs-gpu")
    for name in ("vector-add", "matmul"):
        choose(qtbot, panel.experiment_combo, name)
        rows = validation.rows_for(name)
        assert panel.validation_button.isVisible() == bool(rows)
        if rows:
            dialog = _opened(qtbot, panel.validation_button)
            assert [line[0] for line in dialog.table.rows()] == [catalogue.render(row.what, "en") for row in rows]
    assert validation.rows_for("matmul")  # the crossover's model has rows of its own
