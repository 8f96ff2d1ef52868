"""``gpulab list`` and ``gpulab run NAME``: experiments, headless."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable

from gpulab import experiments
from gpulab.lab.base import Event, ExperimentError, PartialPoint, Progress
from gpulab.results import Point, Result, ResultFormatError, reading_order, replay


def register(subparsers: argparse._SubParsersAction) -> None:
    lister = subparsers.add_parser("list", help="list the experiments")
    lister.set_defaults(func=run_list)
    runner = subparsers.add_parser("run", help="run one experiment headless and print or save its result")
    runner.add_argument("name", help="experiment name (see 'gpulab list')")
    runner.add_argument("--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE",
                        help="set a parameter; lists are comma-separated (sizes=1024,4096)")
    runner.add_argument("--json", metavar="PATH", help="write the gpulab.result/2 document (- for stdout)")
    runner.add_argument("--trace", metavar="PATH", help="also write the run as a Chrome trace, for labs that "
                        "make one (squeeze): opens in gpulab trace and Perfetto")
    runner.add_argument("--device", type=int, default=None, help="CUDA device index")
    runner.add_argument("--quiet", action="store_true", help="no progress on stderr")
    runner.set_defaults(func=run_experiment)
    replayer = subparsers.add_parser("replay", help="print a summary of a saved result file (gpulab.result JSON)")
    replayer.add_argument("file", help="a result saved with --json or the window's Export")
    replayer.set_defaults(func=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """Print a saved result as replayed; a malformed file is one line naming the problem, exit 1."""
    try:
        result = replay(args.file)
    except ResultFormatError as exc:
        print(f"gpulab replay: {exc}", file=sys.stderr)
        return 1
    print(f"{result.experiment}: saved {result.created} on {result.host.get('hostname', '?')} (replayed)")
    _emit(result, None)
    return 0


def run_list(args: argparse.Namespace) -> int:
    for name in experiments.names():
        module = experiments.get(name)
        print(f"{name:<16} {module.TITLE}")
        for field_name, default in _defaults(module.Params).items():
            print(f"{'':<18}{field_name} = {default}")
    return 0


def _defaults(params_type: type) -> dict[str, object]:
    import dataclasses

    return {f.name: getattr(params_type(), f.name) for f in dataclasses.fields(params_type)}


def _parse_assignments(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ExperimentError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def run_experiment(args: argparse.Namespace) -> int:
    try:
        module = experiments.get(args.name)
        params = experiments.params_from_strings(module.Params, _parse_assignments(args.assignments))
    except ExperimentError as exc:
        print(f"gpulab run: {exc}", file=sys.stderr)
        return 2
    if args.json is not None:  # an empty path is refused, not taken as "no file"
        from gpulab.output import output_problem

        problem = output_problem(args.json)
        if problem:
            print(f"gpulab run: --json {args.json}: {problem}", file=sys.stderr)
            return 2
    from gpulab.commands.interrupt import Interrupted, SignalGuard, drive_keeping, report_interrupted

    with SignalGuard(threading.Event()) as guard:
        try:
            ctx = experiments.Context(cancel_event=guard.cancel, device_index=args.device)
            result = drive_keeping(module.run(params, ctx), guard, args.name, params, _printer(args.quiet))
        except Interrupted as stop:
            assert stop.partial is not None
            return report_interrupted(stop, "gpulab run", args.json, _emit(stop.partial, args.json))
        except experiments.Cancelled:
            print("gpulab run: cancelled", file=sys.stderr)
            return 130
        except Exception as exc:  # an experiment failure is reported, not a traceback
            print(f"gpulab run: {args.name} failed: {exc}", file=sys.stderr)
            return 1
        code = _emit(result, args.json)
        if getattr(args, "trace", None):
            code = code or _write_trace(module, result, args.trace)
    if result.partial is not None:  # a lab that stopped early on its own (a rank died): kept, but not a success
        print(f"gpulab run: {args.name} stopped early ({result.partial.get('cause', '?')}); the points "
              f"measured before were kept, marked partial", file=sys.stderr)  # fmt: skip
        code = code or 1
    if guard.fired is not None:  # the run had ended: its whole result is written, the signal still stops us
        return 128 + guard.fired
    return code


def _write_trace(module: object, result: Result, path: str) -> int:
    """The lab's run as a Chrome trace (a lab that makes one defines ``chrome_trace(result)``)."""
    import json

    make = getattr(module, "chrome_trace", None)
    if make is None:
        print(f"gpulab run: --trace: {result.experiment} writes no trace", file=sys.stderr)
        return 2
    try:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(make(result), handle)
    except (OSError, ValueError) as exc:
        print(f"gpulab run: --trace {path}: {exc}", file=sys.stderr)
        return 1
    return 0


def _printer(quiet: bool) -> Callable[[Event], None]:
    def on_event(event: Event) -> None:
        if quiet:
            return
        if isinstance(event, Progress) and event.message:
            print(f"[{event.fraction:4.0%}] {event.message}", file=sys.stderr)
        elif isinstance(event, PartialPoint):
            p = event.point
            label, _ = _point_words(p)
            print(f"       {event.series}: {label}x={p.x:g} y={p.y:.4g}", file=sys.stderr)

    return on_event


def _emit(result: Result, destination: str | None) -> int:
    if destination:
        from gpulab.output import emit_json

        return emit_json(result.to_json_dict(), destination, "gpulab run")
    for series in result.series:
        original = series.provenance.details.get("original_kind")
        kind = f"{series.provenance.kind}, {original} there" if original else series.provenance.kind
        print(f"{series.name} [{kind} on {series.provenance.device}]")
        for p in series.points:
            label, verdict = _point_words(p)
            print(f"  {label}{series.x_label}={p.x:.10g}  {series.y_label}={p.y:.4g} {series.y_unit}{verdict}")
    for note in reading_order(result.notes):
        print(f"note: {note}")
    return 0


def _point_words(point: Point) -> tuple[str, str]:
    """A point's name ("vector_add: ") and verdict ("  memory-bound, 92% of roof") when its extra has them."""
    label = point.extra.get("label")
    bound, percent = point.extra.get("bound"), point.extra.get("percent_of_roof")
    verdict = f"  {bound}, {percent:.0f}% of roof" if bound and percent is not None else ""
    peak = point.extra.get("percent_of_peak")
    if not verdict and peak is not None:
        verdict = f"  ({peak:.0f}% of peak)"  # on screen, not only in the JSON
    return (f"{label}: " if label else ""), verdict
