"""Translations: the Chinese source covers every string in ui/ and is complete; English, the source
language, has no catalogue; the binary Qt loads is compiled from the source, never stale."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QTranslator

from tests.ui.walk import switch_language
from ui import i18n, i18n_compile, i18n_update
from ui.i18n_update import I18N_DIR, lupdate, messages

ZH_TS = I18N_DIR / "gpulab_zh_CN.ts"


@pytest.fixture(scope="module")
def source_strings(tmp_path_factory) -> set[tuple[str, str]]:
    if i18n_update.tool("pyside6-lupdate") is None:
        pytest.skip("pyside6-lupdate is not installed, so the sources cannot be scanned")
    ts_path = tmp_path_factory.mktemp("lupdate") / "scan.ts"
    lupdate(ts_path, "zh_CN")
    return set(messages(ts_path))


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """Compiled translations go to a folder of the test's own, so each test compiles afresh."""
    folder = tmp_path / "cache"
    monkeypatch.setattr(i18n_compile, "cache_dirs", lambda: [folder])
    return folder


def test_every_source_string_is_in_the_chinese_ts_file(source_strings):
    missing = sorted(source_strings - set(messages(ZH_TS)))
    assert not missing, f"run: python -m ui.i18n_update (missing: {missing})"
    assert len(source_strings) > 50


def test_every_chinese_string_is_translated():
    untranslated = [key for key, tr in messages(ZH_TS).items() if tr is None or tr.get("type") or not tr.text]
    assert not untranslated, f"untranslated: {untranslated}"


def test_chinese_translations_are_really_chinese():
    entries = messages(ZH_TS)
    with_han = [tr.text for tr in entries.values() if any("\u4e00" <= ch <= "\u9fff" for ch in tr.text)]
    assert len(with_han) >= 0.9 * len(entries)


def test_english_is_the_source_language_with_no_catalogue_and_no_committed_binary():
    assert sorted(path.name for path in I18N_DIR.iterdir()) == ["gpulab_zh_CN.ts"]
    assert i18n.translation_source("en") is None and i18n.translation_file("en") is None
    assert i18n.translation_source("zh") == ZH_TS


def test_the_compiled_chinese_translation_gives_every_entry_of_its_source(private_cache):
    translator = QTranslator()
    assert translator.load(str(i18n_compile.compiled(ZH_TS)))
    assert translator.translate("RunControls", "Run") == "运行"
    for (context, source), tr in messages(ZH_TS).items():
        if tr is not None and not tr.get("type"):  # unfinished ones are another test's business
            assert translator.translate(context, source) == tr.text, (context, source)


def test_an_edited_ts_file_is_compiled_again_and_the_old_binary_goes(private_cache, tmp_path):
    ts_path = tmp_path / "gpulab_zh_CN.ts"
    ts_path.write_bytes(ZH_TS.read_bytes())
    before = i18n_compile.compiled(ts_path)
    assert i18n_compile.compiled(ts_path) == before  # unchanged source: the cached binary
    source = ZH_TS.read_text(encoding="utf-8")
    edited = source.replace("<translation>运行</translation>", "<translation>开跑</translation>")
    assert edited != source
    ts_path.write_text(edited, encoding="utf-8")
    after = i18n_compile.compiled(ts_path)
    translator = QTranslator()
    assert translator.load(str(after))
    assert translator.translate("RunControls", "Run") == "开跑"
    assert not before.exists()
    assert [path.name for path in private_cache.iterdir()] == [after.name]


def test_picking_chinese_then_english_in_the_language_menu_retranslates_the_window(window, private_cache):
    run_button = window.panels["experiments"].run_button
    switch_language(window, "zh")
    assert run_button.text() == "运行"
    assert window.view_menu.title() == "视图(&V)"
    assert window.sidebar.panel_item("devices").text() == "设备"
    assert window.language_actions["zh"].isChecked()
    assert any(private_cache.glob("gpulab_zh_CN-*.qm"))
    switch_language(window, "en")
    assert run_button.text() == "Run"
    assert window.view_menu.title() == "&View"
    assert window.sidebar.panel_item("devices").text() == "Devices"
    assert QCoreApplication.translate("RunControls", "Run") == "Run"  # no translator left behind


def test_without_lrelease_picking_chinese_says_the_translation_could_not_be_loaded(window, private_cache, monkeypatch):
    monkeypatch.setattr(i18n_compile, "lrelease_tool", lambda: None)
    switch_language(window, "zh")
    assert window.panels["experiments"].run_button.text() == "Run"
    assert any("could not be loaded" in text for _level, text in window.services.notifier.history)
    assert not any(private_cache.glob("*.qm"))


def test_lrelease_is_found_in_the_installed_pyside6():
    tool = i18n_compile.lrelease_tool()
    assert tool is not None and "lrelease" in tool


def test_a_cache_folder_that_cannot_be_written_falls_back_to_the_next(tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    spare = tmp_path / "spare"
    qm_path = i18n_compile.compiled(ZH_TS, [blocked, spare])
    assert qm_path.parent == spare
    translator = QTranslator()
    assert translator.load(str(qm_path)) and translator.translate("RunControls", "Run") == "运行"


def test_with_no_folder_to_write_to_the_error_names_the_translation(tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    with pytest.raises(i18n_compile.TranslationUnavailable, match=r"gpulab_zh_CN\.ts"):
        i18n_compile.compiled(ZH_TS, [blocked])
