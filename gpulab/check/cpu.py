"""CPU-side checks, run on every machine: BLAS GFLOP/s and host memory bandwidth.

Both reuse the roofline lab's measurements (:mod:`gpulab.lab.cpu_peaks`) and hold them against
this CPU's own expectation, not a GPU's: the float32 FMA peak of its cores at their highest
clock, and the theoretical bandwidth of its memory modules (where the firmware tells it). A
measurement taken while other processes were busy, or whose repeats disagree, is a warning that
says so, never a verdict on the hardware; an expectation that cannot be known here is a skip
that says why, with the measured value still reported.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Generator, Iterator
from pathlib import Path

from gpulab.catalogue import Message, msg
from gpulab.lab import cpu_peaks
from gpulab.measure import Samples, median_and_iqr, noise_messages, noise_reasons
from gpulab.threads import cpu_threads

from .model import Row, Verdict
from .registry import Context, register, threshold

_CPUINFO = Path("/proc/cpuinfo")


def fma_flop_per_cycle(flags: set[str]) -> int | None:
    """float32 FLOP per cycle per core from the vector extensions (2 FMA pipes assumed); None
    when the flags are unknown (not x86, or no /proc/cpuinfo)."""
    if "avx512f" in flags:
        return 64
    if "avx2" in flags and "fma" in flags:
        return 32
    if "sse2" in flags:
        return 8
    return None


def cpu_flags(path: Path = _CPUINFO) -> set[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def expected_gflop_s(threads: int, max_clock_mhz: float | None, flags: set[str]) -> float | None:
    per_cycle = fma_flop_per_cycle(flags)
    if per_cycle is None or not max_clock_mhz:
        return None
    return threads * max_clock_mhz / 1000 * per_cycle


@contextlib.contextmanager
def sampled_clocks(interval_s: float = 0.1) -> Iterator[dict[str, float | int | None]]:
    """The CPU's current clock (psutil, MHz, averaged over cores) sampled on a thread while the
    block runs; the dict it yields is filled on exit with the lowest and highest reading, so a
    slow result can be read beside the clocks it ran at (None where the OS does not tell)."""
    import psutil

    readings: list[float] = []
    stop = threading.Event()

    def sample() -> None:
        while True:
            try:
                now = psutil.cpu_freq()
            except Exception:  # some kernels and containers have no cpufreq at all
                now = None
            if now is not None and now.current > 0:
                readings.append(float(now.current))
            if stop.wait(interval_s):
                return

    found: dict[str, float | int | None] = {}
    thread = threading.Thread(target=sample, name="gpulab-check-cpu-clocks", daemon=True)
    thread.start()
    try:
        yield found
    finally:
        stop.set()
        thread.join()
        found.update(cpu_clock_mhz_min=round(min(readings), 1) if readings else None,
                     cpu_clock_mhz_max=round(max(readings), 1) if readings else None,
                     cpu_clock_samples=len(readings))


def _noisy(samples: Samples) -> list[str]:
    median, iqr = median_and_iqr(samples)
    return noise_reasons(median, iqr, samples.busy)


def judge_rate(check: str, value: float, expected: float | None, noise: list[str], unit: str,
               entry: str, facts: dict) -> Row:
    """A measured rate against ``expected`` × the entry's ``warn_below_share``."""
    share = float(threshold(entry)["warn_below_share"])
    if noise:
        return Row(check, Verdict.WARN, msg("check.reason.noisy", reasons=noise_messages(noise)),
                   msg("check.action.rerun-idle"), value, unit, source="cpu.noise", facts=facts)
    if expected is None:
        return Row(check, Verdict.SKIP, msg(f"check.{check}.no-expectation"), None, value, unit,
                   source=entry, facts=facts)
    floor = share * expected
    facts = {**facts, "expected": round(expected, 1)}
    if value < floor:
        return Row(check, Verdict.WARN, msg("check.reason.below-expected", value=f"{value:.1f}", unit=unit,
                                           share=f"{value / expected:.0%}", expected=f"{expected:.0f}"),
                   msg(f"check.{check}.action"), value, unit, round(floor, 1), ">=", entry, facts=facts)
    return Row(check, Verdict.PASS, msg("check.reason.within-expected", value=f"{value:.1f}", unit=unit,
                                       share=f"{value / expected:.0%}", expected=f"{expected:.0f}"),
               None, value, unit, round(floor, 1), ">=", entry, facts=facts)


@register("cpu.blas")
def check_blas(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.measuring", what=msg("check.cpu.blas.title"))
    from gpulab.devices import describe_cpu

    cpu = describe_cpu()
    threads = cpu_threads()
    with sampled_clocks() as clocks:
        samples = cpu_peaks.gemm_samples(5 if ctx.full else 3, ctx.check_cancelled)
    value = cpu_peaks.GEMM_FLOP / min(samples) / 1e9
    expected = expected_gflop_s(threads, cpu.max_clock_mhz, cpu_flags())
    facts = {"threads": threads, "max_clock_mhz": cpu.max_clock_mhz, "gemm_n": cpu_peaks.GEMM_N,
             "blas": cpu.blas[0].vendor if cpu.blas else None, **clocks}
    return [judge_rate("cpu.blas", value, expected, _noisy(samples), "GFLOP/s", "cpu.blas",
                       facts)]


@register("cpu.triad")
def check_triad(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.measuring", what=msg("check.cpu.triad.title"))
    from gpulab.hostmem import dram_theoretical_gb_s

    with sampled_clocks() as clocks:
        samples, method = cpu_peaks.triad_samples(5 if ctx.full else 3, ctx.check_cancelled)
    value = cpu_peaks.TRIAD_BYTES / min(samples) / 1e9
    facts = {"method": method, "elements": cpu_peaks.TRIAD_ELEMENTS, **clocks}
    return [judge_rate("cpu.triad", value, dram_theoretical_gb_s(), _noisy(samples), "GB/s",
                       "cpu.triad", facts)]
