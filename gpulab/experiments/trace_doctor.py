"""The trace doctor as a lab: a sample trace shipped with gpulab, read and judged as ``gpulab trace`` does.

``gpulab trace FILE`` and the Trace doctor page judge a trace of your own. This lab judges one of
the samples in ``resources/trace/`` (:data:`SAMPLES`), so a lesson page, a smoke run or a laptop
with no trace of its own has one to open:

- ``squeeze-step``: the squeeze lab's training step (``shape=medium``, ``loader_workers=16``), its
  eight configurations a profiler step each, written as a PyTorch-profiler-shaped trace; the GPU
  modelled (an H100 SXM from the spec table), the data loader measured on the machine that wrote it;
- ``streams``: the streams lab's modelled timelines, a configuration per rank.

``step`` judges one profiler step (0: the whole trace). The result is what
:func:`gpulab.trace.to_result` makes of the diagnosis (series ``gpu-busy``, a point per rank: y its
busy share in per cent, its shares and figures in ``extra``; the findings as notes; the summary in
``params.summary``), under this lab's name and parameters; its provenance is the trace's own (both
samples are ``modelled``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpulab.catalogue import msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentError, ExperimentGen, Progress, param, params_to_dict
from gpulab.lab.declare import Lab
from gpulab.paths import resource_path
from gpulab.results import Result

TITLE = render("experiment.trace-doctor.title")
DESCRIPTION = render("experiment.trace-doctor.description")
NAME = "trace-doctor"
SAMPLES = {"squeeze-step": "sample-squeeze-modelled.json.gz", "streams": "sample-streams-modelled.json"}


@dataclass(frozen=True)
class Params(CheckedParams):
    sample: str = param("squeeze-step", choices=tuple(SAMPLES))
    step: int = param(0, min=0, max=100_000)  # 0: the whole trace


def sample_path(params: Params) -> Path:
    """The sample's file in ``resources/trace/``."""
    return resource_path("trace", SAMPLES[params.sample])


def result_of(diagnosis: Any, params: Params) -> Result:
    """The lab's result from a diagnosis of its sample (this lab's run, or the Trace doctor page's
    reading of the same file beside a lesson): the doctor's result under this lab's name."""
    from gpulab.trace import to_result

    found = to_result(diagnosis)
    return replace(found, experiment=NAME, params={**params_to_dict(params), **found.params})


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Read the sample (a fraction of a second; its progress reported as the Trace doctor page's
    reading reports it, so a Cancel stops it between chunks) and judge it, or its step ``step``."""
    from gpulab.trace import TraceError, diagnose
    from gpulab.trace.read import reading_trace

    try:
        trace = yield from reading_trace(sample_path(params))
        diagnosis = diagnose(trace, params.step or None)
    except TraceError as exc:  # a step the sample does not have: the message names the ones it has
        raise ExperimentError(exc.message) from None
    yield Progress(1.0, msg("progress.done"))
    return result_of(diagnosis, params)


LAB = Lab("trace-doctor", section="check", order=30, quick=("sample=squeeze-step", "step=1"))
