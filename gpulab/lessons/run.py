"""Running a page: its preset live, through the lab's own ``run`` (the path ``gpulab run`` takes),
or its recording replayed (every series marked ``replayed``, the recording's machine and date kept).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gpulab import experiments
from gpulab.lab.base import Event, ExperimentGen
from gpulab.lessons.load import recordings_dir
from gpulab.lessons.model import Page
from gpulab.lessons.validate import page_params
from gpulab.results import Result, replay


def page_run(page: Page, ctx: experiments.Context | None = None, change: bool = False) -> ExperimentGen:
    """The page's live run as the lab's generator, for a job runner to drive (``change``: with the
    try-this change applied). ParamError if the preset is wrong (the validator catches that first)."""
    module = experiments.get(page.lab)
    return module.run(page_params(page, change), ctx or experiments.Context())


def recorded_result(page: Page) -> Result | None:
    """The page's recorded result, replayed (:func:`gpulab.results.replay`), or None without one."""
    return replay(recordings_dir() / page.recording) if page.recording else None


def run_page(
    page: Page,
    on_event: Callable[[Event], None] | None = None,
    cancel_event: threading.Event | None = None,
    recorded: bool = False,
    change: bool = False,
) -> Result:
    """Run the page to its Result, blocking: its recording when ``recorded`` and it has one, else live.

    For scripts and the command line; a window submits :func:`page_run` to its job runner instead."""
    found = recorded_result(page) if recorded else None
    if found is not None:
        return found
    ctx = experiments.Context(cancel_event=cancel_event or threading.Event())
    return experiments.drive(page_run(page, ctx, change), on_event, ctx.cancel_event)
