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
    for name in ("compiled loop", "gpulab compiled", "gpulab fused", "two-pass loop", "gpulab numpy-out"):
        assert f"  {name} " in out
    verdict = next(line for line in out.splitlines() if "gpulab compiled / compiled loop:" in line)
    assert "best round vs best round" in verdict and "target >= 85%" in verdict
    assert "gpulab fused / compiled loop:" in out and "two-pass loop / compiled loop:" in out  # the explanation
    assert "GPU triad" in out


def test_without_numba_the_bench_says_so_and_still_prints_gpulabs_figures(small, monkeypatch, capsys):
    monkeypatch.setattr(memory, "compiled_triad", lambda: None)
    monkeypatch.setattr(memory, "two_pass_triad", lambda: None)
    monkeypatch.setattr(memory, "measure_gpu", lambda _seconds: None)
    assert memory.main(["--rounds", "1", "--seconds", "0.005"]) == 0
    out = capsys.readouterr().out
    assert "Numba is not installed" in out and "gpulab fused" in out
    numba_lines = ("compiled loop", "gpulab compiled", "two-pass")
    assert not any(line.strip().startswith(numba_lines) for line in out.splitlines())


def test_the_two_pass_loop_computes_the_triad():
    pytest.importorskip("numba")
    import numpy as np

    two_pass = memory.two_pass_triad()
    n = 3 * memory.TWO_PASS_BLOCK + 5  # a last block that is not full
    a, b, c = np.zeros(n), np.arange(n, dtype=float), np.full(n, 2.0)
    two_pass(a, b, c, 0.5)
    assert np.array_equal(a, b + 1.0)
