"""``gpulab bench memory``: prints gpulab's CPU triad forms beside a compiled loop, and says so without Numba."""

import pytest

from gpulab.bench import memory


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(memory, "working_set_bytes", lambda: (1 << 18, "a test's size"))


def test_the_bench_prints_every_form_and_the_ratio_to_the_compiled_loop(small, capsys):
    pytest.importorskip("numba")
    memory.main(["--rounds", "1", "--seconds", "0.005"])
    out = capsys.readouterr().out
    for name in ("compiled loop", "gpulab fused", "gpulab numpy-out", "gpulab numpy"):
        assert name in out
    assert "gpulab fused / compiled loop:" in out and "best round vs best round" in out and "target >= 85%" in out
    assert "GPU triad" in out


def test_without_numba_the_bench_says_so_and_still_prints_gpulabs_figures(small, monkeypatch, capsys):
    monkeypatch.setattr(memory, "compiled_triad", lambda: None)
    monkeypatch.setattr(memory, "measure_gpu", lambda _seconds: None)
    assert memory.main(["--rounds", "1", "--seconds", "0.005"]) == 0
    out = capsys.readouterr().out
    assert "Numba is not installed" in out and "gpulab fused" in out
    assert not any(line.strip().startswith("compiled loop") for line in out.splitlines())
