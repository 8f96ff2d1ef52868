"""``gpulab bench fuzz`` runs mutants in parallel and counts their outcomes."""

from __future__ import annotations

import random

from gpulab import cli
from gpulab.bench import fuzz


def test_fuzz_bench_runs_mutants_in_parallel_and_prints_every_outcome_count(capsys):
    code = cli.main(["bench", "fuzz", "--count", "60", "--jobs", "2", "--seed", "3"])
    out = capsys.readouterr().out
    assert "Traceback" not in out
    for outcome in fuzz.OUTCOMES:
        assert outcome in out
    counts = {line.rsplit(None, 1)[0].strip(): int(line.rsplit(None, 1)[1])
              for line in out.splitlines()[1:9]}
    assert sum(counts.values()) == 60
    assert code == (1 if any(counts[o] for o in fuzz.BUG_OUTCOMES) else 0)
    assert counts["internal error"] == counts["undocumented exception"] == counts["hang"] == 0


def test_a_mutant_is_the_same_for_the_same_seed_and_index():
    assert fuzz.mutant(5, 17)[2] == fuzz.mutant(5, 17)[2]
    assert {fuzz.mutant(5, i)[2] for i in range(20)} != {fuzz.mutant(6, i)[2] for i in range(20)}


def test_mutations_include_continue_and_random_characters():
    source = "int main() { int i = 0; return i; }"
    rng = random.Random(1)
    mutants = [fuzz.mutate(source, rng) for _ in range(3000)]
    assert any("continue" in m for m in mutants)
    assert any(len(m) > len(source) and m.replace(" ", "") != source.replace(" ", "") for m in mutants)
    assert "continue" in fuzz.REPLACEMENTS
