"""Chinese for every text the engine emits, from the text catalogue: experiment and kernel texts,
parameter labels and mistakes, device and monitor reasons, result notes, series names, axis labels
and progress messages — all keyed messages, none matched back from English."""

import dataclasses
import importlib.abc
import re
import sys
import types

import pytest

from gpulab import devices, experiments
from gpulab.catalogue import Message, Note, msg, plain, render
from gpulab.experiments import PartialPoint, drive, matmul, vector_add
from gpulab.lab.base import param_key, param_text

CJK = re.compile(r"[\u4e00-\u9fff]")


def _chinese(text: str, english: str) -> bool:
    return bool(text.strip()) and text != english and CJK.search(text) is not None


@pytest.mark.parametrize("name", experiments.names())
def test_every_experiment_has_its_catalogue_title_and_description_in_both_languages(name):
    module = experiments.get(name)
    for attribute in ("TITLE", "DESCRIPTION"):
        key = f"experiment.{name}.{attribute.lower()}"
        assert render(key) == getattr(module, attribute)  # the module's English is the catalogue's
        assert _chinese(render(key, "zh"), getattr(module, attribute))


@pytest.mark.parametrize("name", experiments.names())
def test_every_params_field_has_a_catalogue_label_and_help_in_both_languages(name):
    params_type = experiments.get(name).Params
    for field in dataclasses.fields(params_type):
        assert param_key(params_type, field.name) == f"experiment.{name}.param.{field.name}"
        label = param_text(params_type, field.name, "label")
        assert label is not None, f"{name}.{field.name} has no label"
        assert label.key == f"experiment.{name}.param.{field.name}.label"
        assert _chinese(render(label, "zh"), render(label)), label.key
        help_text = param_text(params_type, field.name, "help")
        if help_text is not None:  # help is optional (a data type needs none)
            assert _chinese(render(help_text, "zh"), render(help_text)), help_text.key


def test_labelled_params_keep_their_defaults():
    assert matmul.Params().sizes == (64, 128, 256, 512, 1024, 2048)
    assert matmul.Params().repeats == 5
    assert vector_add.Params().sizes == (1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22)
    assert experiments.get("divergence").Params().kways == (2, 3, 4, 5, 6, 7, 8)


@pytest.mark.parametrize("entry", sorted(experiments.kernel_catalogue()))
def test_every_catalogue_kernel_has_chinese_title_description_and_lesson(entry):
    spec = experiments.kernel(entry)
    assert _chinese(render(spec.title_message, "zh"), spec.title)
    assert _chinese(render(spec.description_message, "zh"), spec.description)
    assert (spec.lesson_message is not None) == spec.entry.startswith(("divergence", "loop", "load", "transpose",
                                                                        "shared", "reduce"))
    if spec.lesson_message is not None:
        assert _chinese(render(spec.lesson_message, "zh"), spec.lesson)


# ------------------------------------------------------------ device reasons


class _BrokenCupyFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "cupy":
            raise RuntimeError("libcudart.so.12: cannot open shared object file")
        return None


def _fake_cupy(count=1, error_status=None, driver=12020):
    def device_count():
        if error_status is not None:
            error = RuntimeError(f"cuda error {error_status}")
            error.status = error_status
            raise error
        return count

    runtime = types.SimpleNamespace(
        runtimeGetVersion=lambda: 12090, driverGetVersion=lambda: driver, getDeviceCount=device_count,
        getDeviceProperties=lambda i: {"name": b"NVIDIA T4", "major": 7, "minor": 5},
        deviceGetAttribute=lambda attr, i: 0, deviceGetPCIBusId=lambda i: None,
        cudaDevAttrClockRate=1, cudaDevAttrMemoryClockRate=2, cudaDevAttrGlobalMemoryBusWidth=3,
        cudaDevAttrL2CacheSize=4,
    )  # fmt: skip
    return types.SimpleNamespace(__version__="13.0", cuda=types.SimpleNamespace(runtime=runtime))


def _status(code, monkeypatch):
    """A CudaStatus with ``reason_code == code``, made by the real probe on a faked machine."""
    if code == "no-cupy":
        monkeypatch.setitem(sys.modules, "cupy", None)
        return devices.probe_cuda()
    if code == "cupy-broken":
        monkeypatch.delitem(sys.modules, "cupy", raising=False)
        monkeypatch.setattr(sys, "meta_path", [_BrokenCupyFinder(), *sys.meta_path])
        return devices.probe_cuda()
    monkeypatch.setattr(devices, "_libcuda_loadable", lambda: code == "old-driver")
    fake = {
        "ok": _fake_cupy(), "no-device": _fake_cupy(count=0), "no-driver": _fake_cupy(error_status=35),
        "old-driver": _fake_cupy(error_status=35, driver=11080), "error": _fake_cupy(error_status=999),
    }[code]  # fmt: skip
    return devices._probe_with_cupy(fake)


CODES = ("ok", "no-cupy", "cupy-broken", "no-driver", "old-driver", "no-device", "error")


@pytest.mark.parametrize("code", CODES)
def test_explain_gives_the_reason_in_english_and_in_chinese(code, monkeypatch):
    status = _status(code, monkeypatch)
    assert status.reason_code == code
    assert devices.explain(status, "en") == status.reason
    assert status.reason_message is not None and status.reason_message.key.startswith("device.reason.")
    assert render(status.reason_message) == status.reason
    zh = devices.explain(status, "zh")
    assert _chinese(zh, status.reason)
    assert render(msg("note.no-gpu", reason=status.reason_message), "zh").endswith(zh)  # inside a result note


def test_chinese_reasons_keep_the_versions_and_the_error_text(monkeypatch):
    assert "12.9" in devices.explain(_status("no-driver", monkeypatch), "zh")
    old = devices.explain(_status("old-driver", monkeypatch), "zh")
    assert "11.8" in old and "12.9" in old
    assert "libcudart.so.12" in devices.explain(_status("cupy-broken", monkeypatch), "zh")
    assert "cuda error 999" in devices.explain(_status("error", monkeypatch), "zh")
    reworded = devices.CudaStatus(False, "A reason worded some new way.", "old-driver", (), "13.0", "13.0", "12.2")
    expected = render(msg("device.reason.old-driver", driver="12.2", runtime="13.0"), "zh")
    assert devices.explain(reworded, "zh") == expected
    by_hand = devices.CudaStatus(False, "CuPy is installed but failed to import: libfoo.so", "cupy-broken")
    assert devices.explain(by_hand, "zh") == "CuPy 已安装，但导入失败：libfoo.so"


def test_the_monitor_reason_on_this_machine_has_chinese():
    from gpulab.monitor import nvml_source

    source = nvml_source()
    if source.available:
        pytest.skip("NVML works here: there is no reason to translate")
    assert source.reason_message is not None and source.reason_message.key.startswith("monitor.reason.")
    assert render(source.reason_message) == source.reason
    assert _chinese(render(source.reason_message, "zh"), source.reason)


# ------------------------------------------------------------ result notes


@pytest.fixture(scope="module")
def cpu_runs():
    """Tiny CPU runs of both CPU-vs-GPU experiments, with and without copies, and fp16 (no CPU series)."""
    runs = []
    for transfers in (False, True):
        params = matmul.Params(sizes=(16, 32), include_transfers=transfers, repeats=1, cpu_single_thread=False)
        runs.append(_events_and_result(matmul.run(params, matmul.Context())))
        params = vector_add.Params(sizes=(1024, 4096), include_transfers=transfers, repeats=1)
        runs.append(_events_and_result(vector_add.run(params, vector_add.Context())))
    runs.append(_events_and_result(matmul.run(matmul.Params(sizes=(16,), dtype="fp16", repeats=1), matmul.Context())))
    return runs


def _events_and_result(gen):
    events = []
    result = drive(gen, events.append)
    return events, result


def _keyed(text) -> Message:
    """The keyed message behind an engine text (a Note or a Message); fails on plain English."""
    message = text.message if isinstance(text, Note) else text
    assert isinstance(message, Message) and message.key, f"not a keyed message: {text!r}"
    return message


def test_every_note_of_the_cpu_vs_gpu_experiments_has_chinese(cpu_runs):
    notes = {note for _events, result in cpu_runs for note in result.notes}
    assert any(note.startswith("Crossover:") for note in notes)
    for note in notes:
        assert render(_keyed(note)) == note
        assert _chinese(render(note, "zh"), note), note


def test_series_names_and_progress_messages_have_chinese(cpu_runs):
    events = [event for run_events, _result in cpu_runs for event in run_events]
    names = [e.series for e in events if isinstance(e, PartialPoint)]
    messages = [e.message for e in events if not isinstance(e, PartialPoint)]
    for text in names + messages:
        assert render(_keyed(text)) == str(text)
        assert render(text, "zh").strip()
    for _events, result in cpu_runs:
        for series in result.series:
            assert series.label is not None and render(series.label) == series.name and series.key != series.name
            assert render(_keyed(series.x_label), "zh") != series.x_label
    assert render(msg("series.cpu-numpy-all-threads", threads=8), "zh") == "CPU numpy（全部 8 个线程）"


def test_a_crossover_note_renders_the_series_names_inside_it():
    note = Note(msg("note.crossover.faster", gpu=msg("series.model", gpu="Tesla T4"), kind=msg("provenance.modelled"),
                    cpu=msg("series.cpu-numpy-1-thread"), unit="N", size=256))
    assert note == "Crossover: Tesla T4 (model) (modelled) is faster than CPU numpy (1 thread) from N=256 up."
    zh = render(note, "zh")
    assert "Tesla T4（模型）（模型估算）" in zh
    assert "CPU numpy（1 个线程）" in zh
    assert "N=256" in zh


def test_a_plain_sentence_stays_as_it_is_in_every_language():
    assert render(plain("A sentence nobody translated."), "zh") == "A sentence nobody translated."
    assert render(Note(msg("model.assumption.no-copy-overlap")), "en").startswith("Copies")


def test_partial_points_carry_their_series_provenance_from_the_first_point(cpu_runs):
    for events, result in cpu_runs:
        kinds = {s.name: s.provenance.kind for s in result.series}
        first = {}
        for event in events:
            if isinstance(event, PartialPoint):
                assert event.provenance is not None
                first.setdefault(event.series, event.provenance.kind)
        assert first == {name: kind for name, kind in kinds.items() if name in first}
        assert "modelled" in first.values()


def test_a_partial_point_without_provenance_is_still_accepted():
    from gpulab.results import Point

    assert PartialPoint("s", Point(1.0, 2.0, None, {})).provenance is None


SMALL_LABS = {
    "divergence": {"n": 64, "block": 64, "kways": (2, 3)},
    "access-pattern": {"n": 64, "block": 64, "strides": (1, 2), "f64_strides": (2,)},
    "bank-conflicts": {"side": 32, "block": 64, "strides": (1, 2)},
    "reduction": {"n": 128, "block": 64},
}


@pytest.mark.parametrize("name", sorted(SMALL_LABS))
def test_every_text_of_an_emulated_lab_has_chinese(name):
    module = experiments.get(name)
    events, result = _events_and_result(module.run(module.Params(**SMALL_LABS[name]), module.Context()))
    shown = [*result.notes, *(e.series for e in events if isinstance(e, PartialPoint))]
    shown += [e.message for e in events if not isinstance(e, PartialPoint)]
    shown += [label for s in result.series for label in (s.x_label, s.y_label)]
    shown += [s.label for s in result.series]
    for text in shown:
        assert render(_keyed(text), "zh").strip(), text
    assert all(_chinese(render(text, "zh"), text) for text in result.notes)


def test_a_variant_axis_is_rendered_item_by_item():
    from gpulab.lab.emulated import Variant, variant_axis_label

    axis = variant_axis_label([Variant.of(msg("variant.even-odd"), "divergence_even_odd"),
                               Variant.of(msg("variant.kway", size=3), "divergence_kway"),
                               Variant.of(msg("variant.transpose-padded"), "transpose_shared_padded", tiled=True)])
    assert axis == "variant (0 = even/odd, 1 = k-way k=3, 2 = transpose 32x33 tile (padded))"
    assert render(axis, "zh") == "变体（0 = 奇偶，1 = k 路 k=3，2 = 32x33 分块转置（填充））"
    unnamed = variant_axis_label([Variant("something new", "divergence_even_odd")])
    assert render(unnamed, "zh") == "变体（0 = something new）"


BAD_VALUES = (0, -1, 3, 100, 10**9, (), (0,), (10**6,), "fp8")


def _validation_messages(module) -> list[Message]:
    messages = []
    for field in dataclasses.fields(module.Params):
        for bad in BAD_VALUES:
            try:
                module.Params(**{field.name: bad})
            except experiments.ParamError as exc:
                assert render(exc.message) == str(exc)
                messages.append(exc.message)
            except TypeError:
                pass  # a value of the wrong type altogether, not a user's typo
    return messages


@pytest.mark.parametrize("name", experiments.names())
def test_every_parameter_error_a_user_can_meet_has_chinese(name):
    module = experiments.get(name)
    messages = _validation_messages(module)
    for assignments in ({"bogus": "1"}, {"repeats": "many"}):
        with pytest.raises(experiments.ParamError) as caught:
            experiments.params_from_strings(module.Params, assignments)
        messages.append(caught.value.message)
    assert len({render(m) for m in messages}) >= 3
    for message in messages:
        assert CJK.search(render(_keyed(message), "zh")), render(message)
