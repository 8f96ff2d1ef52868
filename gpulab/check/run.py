"""Run the registered checks: a generator of progress that returns the :class:`CheckReport`.

Each check runs in registration order if its modes include the run's. What a check raises
(a bug, or a library failing in a way no check foresaw) becomes a failed row naming the
exception: a check that cannot finish never reads as a pass, and the run goes on.
"""

from __future__ import annotations

import dataclasses
import datetime
import platform
import time
from collections.abc import Generator, Iterable

from gpulab import __version__
from gpulab.catalogue import Message, msg

from .model import CheckReport, Row, Verdict
from .outliers import apply_outliers
from .registry import CHECKS, Check, Context

# The modules that register checks, imported for that side effect (the registry is explicit:
# each module lists its checks with @register where they are written).
CHECK_MODULES = ("gpulab.check.software", "gpulab.check.cpu", "gpulab.check.gpu_health", "gpulab.check.gpu_perf",
                 "gpulab.check.correctness", "gpulab.check.xid")  # Xid last: it counts the errors the others caused


def load_checks() -> dict[str, Check]:
    import importlib

    for name in CHECK_MODULES:
        importlib.import_module(name)
    return CHECKS


def selected(ctx: Context, only: Iterable[str] | None = None) -> list[Check]:
    checks = load_checks()
    wanted = set(only) if only is not None else None
    return [c for c in checks.values() if ctx.mode in c.modes and (wanted is None or c.id in wanted)]


def run_checks(ctx: Context, only: Iterable[str] | None = None) -> Generator[Message, None, CheckReport]:
    """Run the checks for ``ctx.mode`` (or just ``only``); yields progress, returns the report."""
    started = datetime.datetime.now().astimezone()
    begun = time.perf_counter()
    rows: list[Row] = []
    for check in selected(ctx, only):
        try:
            found = yield from check.run(ctx)
        except Exception as exc:  # a check that breaks is a failed row, not a crash
            error = f"{type(exc).__name__}: {exc}"[:300]
            found = [Row(check.id, Verdict.FAIL, msg("check.reason.crashed", error=error),
                         msg("check.action.report-bug"))]
        rows.extend(dataclasses.replace(row, host=row.host or ctx.host,
                                        rank=row.rank if row.rank is not None else ctx.rank) for row in found)
    rows = apply_outliers(rows)  # one device far below its identical siblings fails (gpulab.check.outliers)
    return CheckReport(rows, ctx.mode, _machine(ctx), versions(ctx), started.isoformat(timespec="seconds"),
                       round(time.perf_counter() - begun, 2), ctx.require_gpu)


def check_report(ctx: Context, only: Iterable[str] | None = None) -> CheckReport:
    """:func:`run_checks` to its end, its progress not shown (scripts, tests, the sample report)."""
    progress = run_checks(ctx, only)
    while True:
        try:
            next(progress)
        except StopIteration as done:
            return done.value


def _machine(ctx: Context) -> dict[str, object]:
    from gpulab.devices import describe_cpu

    cpu = describe_cpu()
    return {"host": ctx.host, "os": platform.platform(), "cpu": cpu.model,
            "logical_cores": cpu.logical_cores, "memory_bytes": cpu.memory_total_bytes}


def versions(ctx: Context | None = None) -> dict[str, object]:
    """gpulab's, Python's and NumPy's versions, and CUDA's as the CUDA check found them (CuPy, the
    runtime, the CUDA version the driver supports) when it ran."""
    import numpy

    found: dict[str, object] = {"gpulab": __version__, "python": platform.python_version(),
                                "numpy": numpy.__version__}
    cuda = ctx.shared.get("cuda") if ctx is not None else None
    for key, attribute in (("cupy", "cupy_version"), ("cuda_runtime", "cuda_runtime_version"),
                           ("cuda_driver", "cuda_driver_version")):
        value = getattr(cuda, attribute, None)
        if value:
            found[key] = value
    return found
