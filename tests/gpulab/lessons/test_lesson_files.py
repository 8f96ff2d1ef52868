"""The shipped lesson files: every chapter parses and checks out against the real labs, every page is
whole in Chinese and English, every fact has its source, and pages whose lab is coming say so."""

from __future__ import annotations

import re

import pytest

from gpulab import catalogue, lessons
from gpulab.lab import declare
from gpulab.lessons import views

CJK = re.compile(r"[\u4e00-\u9fff]")
CHAPTERS = lessons.chapters()
PAGES = [(chapter, page) for chapter in CHAPTERS for page in chapter.pages]
LIVE = [(c, p) for c, p in PAGES if p.is_live]


def _ids(pairs):
    return [f"{c.number}-{p.id}" for c, p in pairs]


def test_there_is_one_file_per_chapter_of_the_curriculum_from_0_to_5():
    assert [c.number for c in CHAPTERS] == [0, 1, 2, 3, 4, 5]
    assert [path.name.split("-")[0] for path in lessons.lesson_files()] == ["0", "1", "2", "3", "4", "5"]
    assert all(chapter.pages for chapter in CHAPTERS)


def test_every_shipped_chapter_validates_against_the_labs():
    assert lessons.validate_all() == CHAPTERS


@pytest.mark.parametrize(("chapter", "page"), LIVE, ids=_ids(LIVE))
def test_a_live_page_names_a_lab_its_panel_a_view_of_it_and_a_preset_the_lab_accepts(chapter, page):
    assert page.lab in declare.registry()
    panel = lessons.panel_of(page)
    assert panel in views.panels_for(page.lab)
    assert lessons.view_tab(page) is not None and lessons.view_tab(page).name == lessons.view_of(page)
    params = lessons.page_params(page)
    for assignment in page.preset:  # the preset reached the Params: no field silently dropped
        field = assignment.split("=", 1)[0]
        assert hasattr(params, field)
    assert page.number is not None and catalogue.has(lessons.NUMBER_LABEL_PREFIX + page.number.label)
    assert page.try_this is not None
    lessons.page_params(page, change=True)


def test_each_coming_lab_has_a_page_that_says_so_and_none_of_them_exists_yet():
    coming = [p for _c, p in PAGES if not p.is_live]
    assert {p.coming for p in coming} == set(views.COMING_LABS)
    assert not set(views.COMING_LABS) & set(declare.registry())
    for page in coming:
        assert page.number is None and not page.preset and not page.recording
        assert "still being built" in page.text.en and "还在制作中" in page.text.zh


@pytest.mark.parametrize(("chapter", "page"), PAGES, ids=_ids(PAGES))
def test_every_text_of_a_page_is_there_in_chinese_and_in_english(chapter, page):
    texts = [page.title, page.text, *(fact.text for fact in page.facts)]
    texts += [page.try_this.text] if page.try_this is not None else []
    texts += [page.notes] if page.notes is not None else []
    for text in texts:
        assert text.zh.strip() and text.en.strip()
        assert CJK.search(text.zh), text.zh
        assert not CJK.search(text.en), text.en
    for text in (chapter.title, chapter.summary):
        assert CJK.search(text.zh) and not CJK.search(text.en)


@pytest.mark.parametrize(("chapter", "page"), PAGES, ids=_ids(PAGES))
def test_every_page_has_speaker_notes_and_a_live_pages_notes_give_the_number_to_expect(chapter, page):
    assert page.notes is not None, "the speaker view shows them"
    if page.is_live:  # what this machine shows (modelled, emulated or measured) beside a real GPU's
        assert re.search(r"\d", page.notes.en) and re.search(r"\d", page.notes.zh)


def _glossary():
    return {e.en: e.zh for key, e in catalogue.entries().items() if key.startswith("glossary.") and e.en != e.zh}


def test_chinese_lesson_texts_use_the_catalogues_glossary_terms():
    code = re.compile(r"\w+\([^)]*\)|\w*_\w+|\w+=\S+")  # parameters and code keep their names
    mixed = []
    for _chapter, page in PAGES:
        texts = [page.title.zh, page.text.zh, *(f.text.zh for f in page.facts)]
        texts += [page.try_this.text.zh] if page.try_this is not None else []
        for english, chinese in _glossary().items():
            word = re.compile(rf"\b{re.escape(english)}s?\b", re.IGNORECASE)
            mixed += [(page.id, english, chinese) for text in texts if word.search(code.sub("", text))]
    assert mixed == []


def test_every_fact_carries_a_source():
    facts = [fact for _c, page in PAGES for fact in page.facts]
    assert len(facts) >= 15
    assert all(fact.source.cite.strip() for fact in facts)
    assert all(fact.source.url.startswith("https://") for fact in facts if fact.source.url)


def test_the_failures_page_uses_the_llama_3_paper_and_says_the_explainer_is_wrong():
    page = lessons.chapter(4).page("failures")
    sources = " ".join(fact.source.cite for fact in page.facts)
    assert "2407.21783" in sources
    facts_en = " ".join(fact.text.en for fact in page.facts)
    facts_zh = " ".join(fact.text.zh for fact in page.facts)
    assert "466" in facts_en and "419" in facts_en and "54" in facts_en and "H100" in facts_en
    assert "466" in facts_zh and "419" in facts_zh and "H100" in facts_zh
    assert "A100" in page.text.en and "wrong" in page.text.en
    assert "A100" in page.text.zh and "不对" in page.text.zh


def test_a_page_is_found_by_its_number_or_its_id_and_a_wrong_one_names_the_pages():
    chapter = lessons.chapter(2)
    assert chapter.page(2) is chapter.page("2") is chapter.page("divergence")
    with pytest.raises(KeyError, match="2=divergence"):
        chapter.page("nope")
    with pytest.raises(KeyError, match="chapters: 0, 1, 2, 3, 4, 5"):
        lessons.chapter(9)
