"""The squeeze page's doctor comparison (no Qt): each configuration against the one it builds on."""

from __future__ import annotations

from gpulab.catalogue import render
from gpulab.experiments import squeeze
from gpulab.lab.base import Context, drive
from ui.panels import squeeze_doctor


def test_each_rung_is_compared_with_the_rung_above_and_each_switch_alone_with_the_baseline():
    result = drive(squeeze.run(squeeze.Params(shape="small", loader_workers=16), Context()))
    changes = squeeze_doctor.diagnose_result(result)
    by_key = {c.key: c for c in changes}
    assert by_key["baseline"].before is None and "data_loading" in by_key["baseline"].after
    assert by_key["prefetch"].before == by_key["baseline"].after
    assert by_key["prefetch+fusion"].before == by_key["prefetch"].after
    assert by_key["fusion-alone"].before == by_key["baseline"].after
    assert "data_loading" in by_key["prefetch"].removed
    words = render(by_key["prefetch"].message())
    assert words.startswith("+ prefetch removes: ") and "data loading starving the GPU" in words


def test_a_change_that_removes_nothing_says_so_and_names_what_appeared():
    change = squeeze_doctor.Change("x", squeeze.Configuration("x", ("fusion",), False).label(), ("small_kernels",),
                                   ("small_kernels", "launch_bound"))  # fmt: skip
    assert change.removed == () and change.appeared == ("launch_bound",)
    assert render(change.message()) == "fusion alone: no finding of the doctor's goes away; now shows: launch-bound"
    assert "诊断器的发现没有减少" in render(change.message(), "zh")
