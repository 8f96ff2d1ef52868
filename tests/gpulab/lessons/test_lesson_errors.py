"""A bad lesson file is refused with an error that names the file, the page and the field."""

from __future__ import annotations

import pytest

from gpulab import lessons
from gpulab.lessons import LessonFormatError
from tests.gpulab.lessons.coming import COMING_ID, COMING_WHAT

GOOD = '''
chapter = 7
slug = "test"
title = { zh = "测试", en = "Test" }
summary = { zh = "测试用的一章。", en = "A chapter for tests." }

[[page]]
id = "div"
lab = "divergence"
preset = ["n=256", "kways=2"]
title = { zh = "分化", en = "Divergence" }
text = { zh = "一段话。", en = "A sentence." }
try = { zh = "试一试。", en = "Try it.", change = ["kways=2,4"] }
number = { label = "branch-efficiency", unit = "%", pick = { series = ["branch-efficiency"], at = 0 } }

[[page.fact]]
zh = "一个事实。"
en = "A fact."
source = "Somewhere, 2024"

[[page]]
id = "later"
coming = "hologram-lab"
title = { zh = "以后", en = "Later" }
text = { zh = "还在制作中。", en = "Still being built." }
'''


@pytest.fixture(autouse=True)
def a_coming_lab(monkeypatch):
    """No lab is coming in the shipped lessons: the test file's coming page names one of the tests'."""
    from gpulab.lessons import views

    monkeypatch.setitem(views.COMING_LABS, COMING_ID, COMING_WHAT)


def _chapter(tmp_path, text, name="7-test.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    chapter = lessons.load_chapter(path)
    lessons.validate_chapter(chapter)
    return chapter


def test_the_good_file_loads_and_validates(tmp_path):
    chapter = _chapter(tmp_path, GOOD)
    assert [p.id for p in chapter.pages] == ["div", "later"]
    assert chapter.pages[0].facts[0].source.cite == "Somewhere, 2024"
    assert chapter.pages[0].notes is None  # the speaker's notes are optional


def test_a_pages_speaker_notes_are_read_in_both_languages(tmp_path):
    notes = 'notes = { zh = "指着曲线。", en = "Point at the curve." }'
    chapter = _chapter(tmp_path, GOOD.replace('id = "div"', f'id = "div"\n{notes}'))
    assert chapter.pages[0].notes == lessons.Text("指着曲线。", "Point at the curve.")


@pytest.mark.parametrize(("old", "new", "where"), [
    ('lab = "divergence"', 'lab = "divergenze"', 'page "div": lab'),
    ('"kways=2"]', '"kways=99"]', 'page "div": preset'),
    ('"n=256"', '"nn=256"', 'page "div": preset'),
    ('change = ["kways=2,4"]', 'change = ["kways=x"]', 'page "div": try.change'),
    ('preset = ["n=256"', 'view = "race"\npreset = ["n=256"', 'page "div": view'),
    ('preset = ["n=256"', 'panel = "transfer"\npreset = ["n=256"', 'page "div": panel'),
    ('text = { zh = "一段话。", en = "A sentence." }', 'text = { zh = "一段话。" }', 'page "div": text.en'),
    ('text = { zh = "一段话。", en = "A sentence." }', 'text = { zh = "", en = "A sentence." }', 'page "div": text.zh'),
    ('source = "Somewhere, 2024"', 'source = ""', 'page "div": fact 1.source'),
    ('label = "branch-efficiency"', 'label = "no-such-label"', 'page "div": number.label'),
    ('pick = { series = ["branch-efficiency"], at = 0 }', 'pick = { series = [], at = 0 }',
     'page "div": number.pick.series'),
    ('at = 0 }', 'at = 0, stat = "median" }', 'page "div": number.pick'),
    ('coming = "hologram-lab"', 'coming = "time-machine"', 'page "later": coming'),
    ('coming = "hologram-lab"', 'coming = "hologram-lab"\npreset = ["n=1"]', 'page "later": preset'),
    ('coming = "hologram-lab"', 'coming = "divergence"', 'page "later": coming'),
    ('coming = "hologram-lab"', 'coming = "trace-doctor"', 'page "later": coming'),  # it is a lab now
    ('id = "later"', 'id = "div"', "two pages have the id 'div'"),
    ('slug = "test"', 'slug = "test"\ncolour = "red"', "unknown field 'colour'"),
    ('number = {', 'numbr = {', "unknown field 'numbr'"),
    ('id = "div"', 'id = "div"\nnotes = { zh = "讲这个。" }', 'page "div": notes.en'),
    ('id = "div"', 'id = "div"\nnotes = "Say this."', 'page "div": notes'),
])  # fmt: skip
def test_a_mistake_is_named_by_file_page_and_field(tmp_path, old, new, where):
    assert old in GOOD
    with pytest.raises(LessonFormatError) as caught:
        _chapter(tmp_path, GOOD.replace(old, new, 1))
    assert str(caught.value).startswith("7-test.toml")
    assert where in str(caught.value)


def test_a_file_that_is_not_toml_is_named_with_the_parsers_reason(tmp_path):
    with pytest.raises(LessonFormatError, match=r"7-test.toml: not valid TOML: .*line 4"):
        _chapter(tmp_path, GOOD.replace('title = { zh = "测试"', 'title = { zh = 测试', 1))


def test_a_live_page_without_a_number_or_a_try_is_refused(tmp_path):
    no_number = GOOD.replace('number = { label = "branch-efficiency", unit = "%", pick = { series = '
                             '["branch-efficiency"], at = 0 } }', "")  # fmt: skip
    with pytest.raises(LessonFormatError, match='page "div": number: missing'):
        _chapter(tmp_path, no_number)
    with pytest.raises(LessonFormatError, match='page "div": try: missing'):
        _chapter(tmp_path, GOOD.replace('try = { zh = "试一试。", en = "Try it.", change = ["kways=2,4"] }', ""))


def test_two_files_of_one_chapter_are_refused(tmp_path):
    (tmp_path / "7-a.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "7-b.toml").write_text(GOOD, encoding="utf-8")
    with pytest.raises(LessonFormatError, match=r"7-b\.toml: chapter 7 is also 7-a\.toml"):
        lessons.load_all(tmp_path)
