"""``gpulab bench fuzz --count N``: thousands of mutated lab kernels through the emulator, in parallel.

Each mutant is a catalogue kernel (``kernels/*.cu`` and the labs' kernels) or, in a checkout, a
corpus kernel (``tests/gpulab/simt/corpus/*.cu``, see :mod:`gpulab.bench.corpus`) changed by a few
random edits: tokens deleted, duplicated, swapped or replaced (``continue``, ``break``, ``}``
...), whole lines moved, numbers and operators changed, random characters inserted. It is
compiled and launched at its smallest preset under the emulator's step and loop budgets, and
its outcome counted:

* ``ran``, ``compile error``, ``kernel fault``, ``other emulator error``: documented outcomes;
* ``internal error``: a SimtError that says "internal error" (a bug in the emulator);
* ``undocumented exception``: anything that is not a SimtError (a bug);
* ``slow``: finished, but took longer than ``--budget-s``; ``hang``: never came back.

Mutant ``i`` of seed ``s`` is the same on every machine (``--seed``), so ``--only i`` replays one.
The exit code is 1 when any bug outcome (internal, undocumented, slow, hang) was seen.
"""

from __future__ import annotations

import argparse
import inspect
import multiprocessing
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

BUG_OUTCOMES = ("internal error", "undocumented exception", "slow", "hang")
OUTCOMES = ("ran", "compile error", "kernel fault", "other emulator error", *BUG_OUTCOMES)

MAX_STEPS = 20_000
MAX_LOOP_ITERATIONS = 2_000

_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|\n|"[^"\n]*"|[A-Za-z_]\w*|0x[0-9a-fA-F]+u?|\d+\.?\d*f?'
                    r"|\+\+|--|[=!<>]=|&&|\|\||<<|>>|[-+*/%&|^]=|\S", re.S)
NUMBERS = ["0", "1", "-1", "2", "7", "31", "32", "33", "1000", "100000", "0xffff", "2147483647", "010"]
OPERATORS = ["+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "<<", ">>", "==", "!=", "&&", "||"]
REPLACEMENTS = ["0", "-1", "n", "i", "(", ")", "{", "}", ";", ",", "*", "&", "++", "1000000", "return",
                "break", "continue", "if", "for", "while", "do", "else", "const", "int", "float",
                "unsigned", "__syncthreads()", "#define", "#if", "\\", "'", '"', "/*", "//"]
CHARACTERS = "{}()[];,*&|^~!?:<>=+-/%#\\'\"._ \t\n0123456789abcxyzé中\x00\x7f\u200b"


class Chooser(Protocol):
    """Where a mutation's random choices come from: ``random.Random`` here, hypothesis's draws in
    the property test, so both fuzz with the same edits."""

    def pick(self, options: Sequence[Any]) -> Any: ...

    def integer(self, low: int, high: int) -> int: ...


class RandomChooser:
    """Choices from a seeded ``random.Random`` (mutant ``i`` of seed ``s`` is the same everywhere)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[Any]) -> Any:
        return self.rng.choice(options)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


def mutate(source: str, choose: Chooser | random.Random) -> str:
    """A few random edits of ``source`` (tokens, lines, values or characters)."""
    if isinstance(choose, random.Random):
        choose = RandomChooser(choose)
    kind = choose.pick(["token", "token", "line", "value", "value", "char"])
    if kind == "char":
        return _insert_characters(source, choose)
    if kind == "value":
        return _change_values(source, choose)
    parts = _TOKEN.findall(source) if kind == "token" else source.split("\n")
    for _ in range(choose.integer(1, 3)):
        if not parts:
            break
        i, j = choose.integer(0, len(parts) - 1), choose.integer(0, len(parts) - 1)
        op = choose.pick(["delete", "duplicate", "swap", "replace"])
        if op == "delete":
            del parts[i]
        elif op == "duplicate":
            parts.insert(i, parts[i])
        elif op == "swap":
            parts[i], parts[j] = parts[j], parts[i]
        else:
            parts[i] = choose.pick(REPLACEMENTS)
    return (" " if kind == "token" else "\n").join(parts)


def _insert_characters(text: str, choose: Chooser) -> str:
    """Random characters (punctuation, digits, non-ASCII, NUL) inserted at random places."""
    for _ in range(choose.integer(1, 3)):
        at = choose.integer(0, len(text))
        text = text[:at] + choose.pick(CHARACTERS) * choose.pick([1, 1, 1, 2, 3]) + text[at:]
    return text


def _change_values(source: str, choose: Chooser) -> str:
    """Numbers and binary operators replaced by others: stays valid C, changes behaviour."""
    parts = _TOKEN.findall(source)
    spots = [i for i, p in enumerate(parts) if p.isdigit() or p in OPERATORS]
    for _ in range(choose.integer(1, 4)):
        if not spots:
            break
        i = choose.pick(spots)
        parts[i] = choose.pick(NUMBERS if parts[i].isdigit() else OPERATORS)
    return " ".join(parts)


_SEEDS: list[Any] | None = None


def seeds() -> list[Any]:
    """The catalogue kernels the emulator runs and the tools' (``kernels.TOOL_KERNELS``), each with
    its smallest preset, then the corpus kernels (loaded once per process)."""
    global _SEEDS
    if _SEEDS is None:
        from gpulab import experiments, kernels

        table = {**experiments.kernel_catalogue(), **{spec.entry: spec for spec in kernels.TOOL_KERNELS}}
        _SEEDS = [(spec, min(spec.presets, key=lambda p: p.threads))
                  for _entry, spec in sorted(table.items()) if not spec.gpu_only]
        _SEEDS += corpus_seeds()
    return _SEEDS


def corpus_seeds() -> list[Any]:
    """The corpus kernels with their launch (none outside a checkout); a kernel that needs dynamic
    shared memory only when ``simt.launch`` takes ``shared_mem``."""
    from gpulab import simt
    from gpulab.bench import corpus

    takes_shared_mem = "shared_mem" in inspect.signature(simt.launch).parameters
    return [(k, k.presets[0]) for k in corpus.load() if takes_shared_mem or not k.shared_mem]


def _launch_options(spec: Any) -> dict[str, Any]:
    """Launch keywords a corpus kernel needs: its dynamic shared memory and its path (so that an
    ``#include "..."`` next to it resolves)."""
    from gpulab.bench import corpus

    if not isinstance(spec, corpus.CorpusKernel):
        return {}
    options: dict[str, Any] = {"filename": str(spec.path), "include_dirs": (spec.path.parent,)}
    if spec.shared_mem:
        options["shared_mem"] = spec.shared_mem
    return options


def mutant(seed: int, index: int) -> tuple[Any, Any, str]:
    """(kernel spec, preset, mutated source) of mutant ``index`` of run ``seed``."""
    rng = random.Random(seed * 1_000_003 + index)
    spec, preset = rng.choice(seeds())
    return spec, preset, mutate(spec.source, rng)


def run_one(job: tuple[int, int, float]) -> tuple[int, str, str, float]:
    """Compile and launch one mutant; (index, outcome, detail, seconds)."""
    seed, index, budget_s = job
    spec, preset, source = mutant(seed, index)
    return (index, *run_source(spec, preset, source, budget_s))


def run_source(spec: Any, preset: Any, source: str, budget_s: float) -> tuple[str, str, float]:
    """Compile and launch ``source`` (a mutant of ``spec``) at ``preset``; (outcome, detail, seconds)."""
    import numpy as np

    from gpulab import simt

    start = time.perf_counter()
    outcome, detail = "ran", ""
    try:
        args = spec.build_args(preset)
        with np.errstate(all="ignore"):
            simt.launch(source, spec.entry, preset.grid, preset.block, args, max_steps=MAX_STEPS,
                        max_loop_iterations=MAX_LOOP_ITERATIONS,
                        **{"shared_mem": getattr(preset, "shared_mem", 0), **_launch_options(spec)})
    except simt.SimtError as exc:
        detail = f"{type(exc).__name__}: {exc}"
        if "internal error" in str(exc) or not str(exc):
            outcome = "internal error"
        elif isinstance(exc, simt.CompileError):
            outcome = "compile error"
        elif isinstance(exc, simt.KernelFault):
            outcome = "kernel fault"
        else:
            outcome = "other emulator error"
    except Exception as exc:  # the point of fuzzing: anything else is a bug, counted and shown
        outcome, detail = "undocumented exception", f"{type(exc).__name__}: {exc}"
    elapsed = time.perf_counter() - start
    if elapsed > budget_s and outcome not in BUG_OUTCOMES:
        outcome, detail = "slow", f"{elapsed:.1f} s ({outcome})"
    return outcome, detail[:300], elapsed


def fuzz(count: int, jobs: int, seed: int, budget_s: float,
         progress: Any = None) -> tuple[Counter[str], dict[str, list[tuple[int, str]]], float]:
    """Run ``count`` mutants on ``jobs`` processes; (outcome counts, examples per bug outcome, seconds)."""
    counts: Counter[str] = Counter()
    examples: dict[str, list[tuple[int, str]]] = {}
    start = time.perf_counter()
    work = [(seed, i, budget_s) for i in range(count)]
    done: set[int] = set()
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = context.Pool(jobs, maxtasksperchild=500)
    try:
        results = pool.imap_unordered(run_one, work, chunksize=1)
        while len(done) < count:
            try:
                index, outcome, detail, _seconds = results.next(timeout=budget_s * 3 + 10)
            except multiprocessing.TimeoutError:
                break  # every worker is stuck: what has not come back is a hang
            done.add(index)
            counts[outcome] += 1
            if outcome not in ("ran", "compile error", "kernel fault", "other emulator error"):
                examples.setdefault(outcome, []).append((index, detail))
            if progress is not None and len(done) % 500 == 0:
                progress(len(done), count)
    finally:
        pool.terminate()
        pool.join()
    missing = [i for i in range(count) if i not in done]
    if missing:
        counts["hang"] += len(missing)
        examples.setdefault("hang", []).extend((i, f"no answer within {budget_s * 3 + 10:.0f} s")
                                               for i in missing[:5])
    return counts, examples, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=2000, help="number of mutants (default 2000)")
    parser.add_argument("--jobs", type=int, default=max(1, (multiprocessing.cpu_count() or 2)),
                        help="worker processes (default: one per CPU)")
    parser.add_argument("--seed", type=int, default=0, help="run seed: the same seed gives the same mutants")
    parser.add_argument("--budget-s", type=float, default=10.0,
                        help="time one mutant may take before it counts as slow (default 10)")
    parser.add_argument("--only", type=int, metavar="INDEX", help="print and run one mutant, for a bug report")
    args = parser.parse_args(argv)
    if args.count < 1 or args.jobs < 1 or args.budget_s <= 0:
        parser.error("--count and --jobs must be at least 1 and --budget-s positive")
    if args.only is not None:
        spec, preset, source = mutant(args.seed, args.only)
        print(f"// mutant {args.only} of seed {args.seed}: {spec.entry} at preset {preset.name}\n{source}")
        _index, outcome, detail, seconds = run_one((args.seed, args.only, args.budget_s))
        print(f"// outcome: {outcome} ({seconds:.2f} s) {detail}")
        return 1 if outcome in BUG_OUTCOMES else 0

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total} mutants", file=sys.stderr)

    counts, examples, seconds = fuzz(args.count, args.jobs, args.seed, args.budget_s, progress)
    print(f"fuzz: {args.count} mutants of {len(seeds())} catalogue and corpus kernels, seed {args.seed}, "
          f"{args.jobs} processes, {seconds:.1f} s")
    for outcome in OUTCOMES:
        print(f"  {outcome:<24}{counts.get(outcome, 0):>8}")
    for outcome, found in examples.items():
        for index, detail in found[:5]:
            print(f"  {outcome} in mutant {index} (replay: gpulab bench fuzz --seed {args.seed} "
                  f"--only {index}): {detail}")
    return 1 if any(counts.get(o, 0) for o in BUG_OUTCOMES) else 0
