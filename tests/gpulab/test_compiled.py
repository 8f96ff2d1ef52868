"""The compiled CPU loops: what they compute, when they use the threads, how many threads."""

import numpy as np
import pytest

from gpulab import compiled

pytest.importorskip("numba")


@pytest.fixture
def chosen(monkeypatch):
    """Records (operation, parallel) of every loop :func:`compiled.call` picks."""
    picked: list[tuple[str, bool]] = []
    original = compiled._loop

    def recording(operation: str, parallel: bool):
        picked.append((operation, parallel))
        return original(operation, parallel)

    monkeypatch.setattr(compiled, "_loop", recording)
    return picked


def test_a_small_array_runs_on_the_calling_thread_and_a_large_one_on_every_thread(chosen):
    threads = compiled.set_threads(2)
    small = compiled.PARALLEL_FROM_PER_THREAD * threads - 1
    for n in (small, small + 1):
        b, c = np.arange(n, dtype=float), np.full(n, 2.0)
        a = np.zeros(n)
        compiled.call("triad", {"a": a, "b": b, "c": c}, 0.5)()
        assert np.array_equal(a, b + 1.0)
    assert chosen == [("triad", False), ("triad", True)]


@pytest.mark.parametrize("n", [5, 1 << 16])
def test_the_dot_sums_every_product_serial_or_parallel(n):
    compiled.set_threads(2)
    a, b = np.full(n, 0.5), np.full(n, 4.0)  # exact in any order of summation
    assert compiled.call("dot", {"a": a, "b": b}, 0.0)() == 2.0 * n


def test_the_thread_count_is_at_least_one_and_at_most_numbas_pool():
    import numba

    assert compiled.set_threads(10**6) == numba.config.NUMBA_NUM_THREADS
    assert compiled.set_threads(0) == 1
    compiled.set_threads(numba.config.NUMBA_NUM_THREADS)


def test_numba_importable_here_is_reported_as_no_error():
    assert compiled.import_error() is None and compiled.version()


def test_with_nowhere_writable_to_cache_the_loops_compile_without_a_cache(monkeypatch):
    import numba

    real = numba.njit

    def no_locator(*args, **options):
        if options.get("cache"):
            raise RuntimeError("cannot cache function 'triad': no locator available for file 'compiled.py'")
        return real(*args, **options)

    monkeypatch.setattr(numba, "njit", no_locator)
    loop = compiled._loop.__wrapped__("triad", True)  # around the in-process cache of compiled loops
    a, b, c = np.zeros(100), np.arange(100.0), np.ones(100)
    loop(a, b, c, 2.0)
    assert np.array_equal(a, b + 2.0)
