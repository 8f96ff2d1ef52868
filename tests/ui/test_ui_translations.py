"""The committed translations cover every string in ui/, and Chinese is complete."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTranslator

from ui import i18n_update
from ui.i18n_update import I18N_DIR, lupdate, messages


@pytest.fixture(scope="module")
def source_strings(tmp_path_factory) -> set[tuple[str, str]]:
    if i18n_update.tool("pyside6-lupdate") is None:
        pytest.skip("pyside6-lupdate is not installed, so the sources cannot be scanned")
    ts_path = tmp_path_factory.mktemp("lupdate") / "scan.ts"
    lupdate(ts_path, "zh_CN")
    return set(messages(ts_path))


@pytest.mark.parametrize("locale", ["zh_CN", "en"])
def test_every_source_string_is_in_the_committed_ts_file(source_strings, locale):
    committed = set(messages(I18N_DIR / f"gpulab_{locale}.ts"))
    missing = sorted(source_strings - committed)
    assert not missing, f"run: python -m ui.i18n_update (missing from {locale}: {missing})"
    assert len(source_strings) > 50


@pytest.mark.parametrize("locale", ["zh_CN", "en"])
def test_every_committed_string_is_translated(locale):
    entries = messages(I18N_DIR / f"gpulab_{locale}.ts")
    untranslated = [key for key, tr in entries.items() if tr is None or tr.get("type") or not tr.text]
    assert not untranslated, f"untranslated in {locale}: {untranslated}"


def test_chinese_translations_are_really_chinese():
    entries = messages(I18N_DIR / "gpulab_zh_CN.ts")
    with_han = [tr.text for tr in entries.values() if any("\u4e00" <= ch <= "\u9fff" for ch in tr.text)]
    assert len(with_han) >= 0.9 * len(entries)


@pytest.mark.parametrize("locale", ["zh_CN", "en"])
def test_the_compiled_qm_file_loads_and_is_up_to_date(locale):
    ts_path = I18N_DIR / f"gpulab_{locale}.ts"
    qm_path = ts_path.with_suffix(".qm")
    translator = QTranslator()
    assert translator.load(str(qm_path))
    expected = "运行" if locale == "zh_CN" else "Run"
    assert translator.translate("RunControls", "Run") == expected
    for (context, source), tr in messages(ts_path).items():
        if tr is not None and not tr.get("type"):  # unfinished ones are another test's business
            assert translator.translate(context, source) == tr.text, (context, source)
