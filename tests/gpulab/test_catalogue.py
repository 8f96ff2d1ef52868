"""The text catalogue: every key has English and Chinese with the same fields, every key the
engine names exists, and messages render in either language."""

from __future__ import annotations

import ast
import dataclasses
import re
import string
from pathlib import Path

import pytest

from gpulab import catalogue
from gpulab.catalogue import CatalogueFormatError, Message, Note, msg, plain, render

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = REPO / "resources" / "texts" / "catalogue.toml"
CJK = re.compile(r"[\u4e00-\u9fff]")
KEY = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)+")


def _raw_entries(table, prefix=""):
    """(key, table) of every entry, read straight from the file: no gpulab code runs."""
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if "en" in value:
            yield key, value
        else:
            yield from _raw_entries(value, key)


RAW = dict(_raw_entries(tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))))


def _fields(text):
    return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def test_the_catalogue_file_holds_the_engine_texts():
    assert len(RAW) > 200
    assert {"device.reason.no-driver", "monitor.reason.no-pynvml", "kernel.vector_add.title",
            "note.crossover.faster", "series.cpu-numpy", "experiment.matmul.title",
            "experiment.matmul.param.sizes.label"} <= set(RAW)


@pytest.mark.parametrize("key", sorted(RAW))
def test_every_key_has_english_and_chinese_with_the_same_fields(key):
    entry = RAW[key]
    assert set(entry) == {"en", "zh"}, key
    assert isinstance(entry["en"], str) and entry["en"].strip()
    assert isinstance(entry["zh"], str) and entry["zh"].strip()
    assert _fields(entry["en"]) == _fields(entry["zh"])
    assert "" not in _fields(entry["en"]), "positional {} fields cannot be filled by name"


def test_every_key_is_a_dotted_lowercase_id():
    assert [key for key in RAW if not KEY.fullmatch(key)] == []


def test_chinese_texts_are_chinese_except_pure_punctuation_and_symbols():
    latin_only = [key for key, entry in RAW.items() if not CJK.search(entry["zh"]) and entry["zh"] == entry["en"]]
    # Texts with no words to translate ("CPU n={size}", "{index} = {name}"), glossary terms Chinese
    # texts keep in English (bank) and choices that are names (MPI, Llama 3 405B) are the only ones
    # left equal.
    names = {key for key in latin_only if ".choice." in key and not re.search(r"\b[a-z]{3,}\b", RAW[key]["en"])}
    allowed = {"progress.cpu-n", "progress.gpu-n", "axis.variant-item", "glossary.bank", *names}
    assert set(latin_only) <= allowed, latin_only


# One Chinese term per concept: the catalogue's glossary, for its own texts and the Qt translations.
GLOSSARY = {entry["en"]: entry["zh"] for key, entry in RAW.items() if key.startswith("glossary.")}
CODE_SPANS = re.compile(r"\{\w+\}|lane % k|__\w+|\w+\(.*?\)|\w+\[.*?\]|\w*_\w+")  # quoted code keeps its names


def _qt_chinese_texts() -> dict[str, str]:
    import xml.etree.ElementTree as ET

    root = ET.parse(REPO / "resources" / "i18n" / "gpulab_zh_CN.ts").getroot()
    return {f"{context.findtext('name')}: {message.findtext('source')}": message.findtext("translation") or ""
            for context in root.iter("context") for message in context.iter("message")}  # fmt: skip


def test_the_glossary_names_the_terms_a_learner_meets_first():
    assert {"warp", "lane", "kernel", "measured", "emulated", "modelled"} <= set(GLOSSARY)
    assert GLOSSARY["warp"] == "线程束" and GLOSSARY["lane"] == "通道"


@pytest.mark.parametrize("english", sorted(e for e, zh in GLOSSARY.items() if e != zh))
def test_chinese_texts_use_the_glossary_term_not_the_english_word(english):
    word = re.compile(rf"\b{re.escape(english)}s?\b", re.IGNORECASE)
    texts = {**{key: entry["zh"] for key, entry in RAW.items() if not key.startswith("glossary.")},
             **_qt_chinese_texts()}  # fmt: skip
    mixed = [where for where, zh in texts.items() if word.search(CODE_SPANS.sub("", zh))]
    assert mixed == []
    assert any(GLOSSARY[english] in zh for zh in texts.values())


def test_the_loader_reads_the_same_entries_as_the_file():
    assert catalogue.keys() == sorted(RAW)
    assert catalogue.entries()["series.cpu-numpy"].zh == RAW["series.cpu-numpy"]["zh"]


# ------------------------------------------------------------ keys named in the engine's source


def _catalogue_keys_in_source():
    """(file:line, key) of every string literal in gpulab/ that is a catalogue key: the first argument
    of msg()/Message()/render()/has(), and any other string constant shaped like a key of a catalogue
    area (a key kept in a table or a constant before it is handed to msg())."""
    found = []
    for path in sorted((REPO / "gpulab").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            literal = None
            if isinstance(node, ast.Call) and _callee(node) in ("msg", "Message", "render", "has") and node.args:
                literal = node.args[0]
            elif isinstance(node, ast.Constant) and _looks_like_key(node.value) and path.name != "catalogue.py":
                literal = node
            if isinstance(literal, ast.Constant) and isinstance(literal.value, str) and literal.value:
                found.append((f"{path.relative_to(REPO)}:{node.lineno}", literal.value))
    return found


def _callee(call):
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


_AREAS = tuple(sorted({key.split(".")[0] for key in RAW}))


FILE_NAME = re.compile(r".*\.(cu|cuh|py|json|toml|txt)")  # "kernel.cu" is a file name, not a key


def _looks_like_key(text):
    return (isinstance(text, str) and KEY.fullmatch(text) is not None and text.split(".")[0] in _AREAS
            and not FILE_NAME.fullmatch(text))


def test_the_source_scan_finds_the_keys_the_engine_uses():
    keys = {key for _where, key in _catalogue_keys_in_source()}
    assert {"device.reason.no-driver", "monitor.reason.no-pynvml", "kernel.lesson.divergence"} <= keys
    # the labs, the sweep, the validator and the models emit their texts as keys too
    assert {"note.crossover.faster", "series.gpu-cublas", "progress.cpu-n", "param.error.must", "param.rule.range",
            "variant.shuffle", "axis.variant-item", "model.assumption.ideal-tiling", "note.matmul.gflops"} <= keys


def test_every_catalogue_key_named_in_the_engine_source_exists():
    missing = [(where, key) for where, key in _catalogue_keys_in_source() if key not in RAW]
    assert missing == []


def test_keys_the_engine_builds_from_names_exist():
    """Keys made with an f-string: a provenance kind, an experiment's title, description and parameters."""
    from gpulab import experiments
    from gpulab.lab.base import param_key
    from gpulab.results import PROVENANCE_KINDS

    assert {f"provenance.{kind}" for kind in PROVENANCE_KINDS} <= set(RAW)
    for name in experiments.names():
        params_type = experiments.get(name).Params
        assert {f"experiment.{name}.title", f"experiment.{name}.description"} <= set(RAW)
        for field in dataclasses.fields(params_type):
            assert f"{param_key(params_type, field.name)}.label" in RAW, (name, field.name)
            assert param_key(params_type, field.name) == f"experiment.{name}.param.{field.name}"


def test_no_engine_text_is_translated_by_matching_english():
    assert not (REPO / "gpulab" / "texts.py").exists()
    offenders = [str(path.relative_to(REPO)) for folder in ("gpulab", "ui") for path in (REPO / folder).rglob("*.py")
                 if "gpulab.texts" in path.read_text(encoding="utf-8") or "translation_known" in path.read_text(
                     encoding="utf-8")]
    assert offenders == []


# ------------------------------------------------------------ rendering


def test_a_message_renders_in_english_and_chinese():
    reason = msg("device.reason.old-driver", driver="11.8", runtime="12.9")
    assert render(reason) == (
        "The NVIDIA driver is too old: it supports CUDA 11.8, but CuPy was built for CUDA 12.9. Update the "
        "driver, or install the CuPy build for an older CUDA (e.g. the cuda12 extra instead of cuda13).")
    assert render(reason, "zh").startswith("NVIDIA 驱动太旧：它支持 CUDA 11.8，而 CuPy 是为 CUDA 12.9 编译的。")


def test_a_message_argument_is_rendered_in_the_same_language():
    note = msg("note.crossover.never", gpu=msg("series.model", gpu="Tesla T4"), kind=msg("provenance.modelled"),
               cpu=msg("series.cpu-numpy-1-thread"))
    assert render(note) == ("Crossover: Tesla T4 (model) (modelled) does not beat CPU numpy (1 thread) "
                            "at the sizes run.")
    zh = render(note, "zh")
    assert "Tesla T4（模型）（模型估算）" in zh and "CPU numpy（1 个线程）" in zh


def test_a_list_argument_is_joined_with_the_languages_separator():
    note = msg("note.emulated.reference-differs", names=[msg("variant.even-odd"), msg("variant.shuffle")])
    assert render(note) == "Emulated output differs from the numpy reference for: even/odd, warp shuffle."
    assert render(note, "zh") == "以下变体的仿真输出与 numpy 参考结果不同：奇偶，线程束洗牌。"


def test_a_bare_key_renders_like_a_message_without_arguments():
    assert render("series.cpu-numpy", "zh") == "CPU（numpy）"


def test_missing_chinese_falls_back_to_english(monkeypatch):
    monkeypatch.setitem(catalogue.entries(), "test.english-only", catalogue.Entry("Only English."))
    assert render("test.english-only", "zh") == "Only English."


def test_an_unknown_key_raises_in_strict_mode_and_shows_the_key_in_the_app():
    with pytest.raises(KeyError, match=r"no\.such\.key"):
        render(msg("no.such.key"))
    old = catalogue.set_strict(False)
    try:
        assert render(msg("no.such.key")) == "no.such.key"
        assert render(Message("no.such.key", fallback="Stored English.")) == "Stored English."
        assert render(msg("device.reason.error")) == "CUDA could not be initialised: {detail}"
    finally:
        catalogue.set_strict(old)


def test_a_missing_argument_raises_in_strict_mode():
    with pytest.raises(KeyError, match="detail"):
        render(msg("device.reason.error"))


def test_a_plain_message_is_the_same_text_in_every_language():
    assert render(plain("Something a script wrote."), "zh") == "Something a script wrote."


def test_a_note_is_its_english_and_carries_its_message():
    note = Note(msg("model.assumption.no-copy-overlap"))
    assert note == "Copies do not overlap with each other or with kernels."
    assert note.text == str(note) and note.message.key == "model.assumption.no-copy-overlap"
    assert render(note, "zh") == "拷贝之间、拷贝与核函数之间都不重叠。"


def test_messages_compare_by_key_and_arguments_and_can_be_hashed():
    assert msg("series.model", gpu="A") == msg("series.model", gpu="A")
    assert msg("series.model", gpu="A") != msg("series.model", gpu="B")
    assert len({msg("series.model", gpu="A"), msg("series.model", gpu="A")}) == 1


def test_a_message_survives_its_json_form_pickling_and_copying():
    import copy
    import pickle

    note = msg("note.no-measured-gpu", reason=msg("device.reason.no-driver", runtime="12.9"))
    assert catalogue.from_json(catalogue.to_json(note)) == note
    assert pickle.loads(pickle.dumps(Note(note))).message == note
    assert copy.deepcopy(note) == note
    with pytest.raises(TypeError):
        note.args["reason"] = "changed"  # type: ignore[index]


def test_a_table_that_mixes_texts_and_sub_keys_is_refused(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[a.b]\nen = "x"\nzh = "y"\nc = "z"\n', encoding="utf-8")
    with pytest.raises(CatalogueFormatError, match=r"a\.b"):
        catalogue.load_catalogue(bad)


def test_the_engine_imports_without_the_retired_texts_shim():
    import subprocess
    import sys

    probe = "import sys, gpulab.devices, gpulab.experiments.matmul; print('gpulab.texts' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_every_choice_that_is_a_word_has_words_in_both_languages():
    """A form offers a field's choices as a list: a value that is an English word ("pinned",
    "auto") needs its words in the catalogue, or a Chinese form would show it in English. Data
    types (fp32), expressions and numbers read the same in every language."""
    import dataclasses
    import typing

    from gpulab import experiments
    from gpulab.lab.base import choice_text, param_key

    missing = []
    for name in experiments.names():
        params_type = experiments.get(name).Params
        for field in dataclasses.fields(params_type):
            if typing.get_origin(typing.get_type_hints(params_type)[field.name]) is tuple:
                continue  # several typed into one line, as a script would: no list to show
            for value in experiments.choices(params_type, field.name) or ():
                if re.search(r"[a-z]{3,}", str(value)) and choice_text(params_type, field.name, value) is None:
                    missing.append(f"{param_key(params_type, field.name)}.choice.{value}")
    assert missing == []


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("param.rule.at-least", "必须是不小于 1 的整数"),  # no space between two Chinese characters
        ("param.rule.multiple", "必须是 32 的倍数"),  # one space before a digit
    ],
)
def test_a_field_meets_the_chinese_around_it_with_the_spacing_chinese_uses(rule, expected):
    from gpulab.catalogue import msg, render

    inner = msg(rule, what=msg("param.rule.whole-number"), lowest=1, step=32)
    text = render(msg("param.error.must", key="n", rule=inner, text="0"), "zh")
    assert expected in text and "  " not in text


def test_a_range_of_multiples_reads_between_the_bounds_then_the_multiple():
    from gpulab.catalogue import msg, render

    rule = msg("param.rule.range", what=msg("param.rule.multiple", step=32), lowest=32, highest=1024)
    assert render(rule, "zh") == "32 到 1024 之间的 32 的倍数"
