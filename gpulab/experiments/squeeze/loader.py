"""The step's data loading, on this CPU and measured: a batch gathered from a dataset and normalised.

The dataset is a table of ``hidden`` features per row stored as bytes (quantised features, as a
recommender's are); one batch is ``batch`` random rows of it, converted to float32 and
normalised, and as many target rows. This runs in numpy on the host, so it is timed here for
real, with the project's CPU timer (:func:`gpulab.measure.time_cpu_calls`) and flagged when the
repeats disagree or the machine was busy, whatever the GPU part is (measured or modelled).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpulab.measure import RepeatPolicy, median_and_iqr, noise_reasons, time_cpu_calls

POLICY = RepeatPolicy(repeats=5, min_seconds=0.05, max_seconds=0.5)
DATASET_BATCHES = 4  # the dataset holds this many batches' rows: larger than the caches, as a real one is


@dataclass(frozen=True)
class LoaderTiming:
    """The median seconds one batch took, their spread (IQR, None for one sample), the repeats, and
    why the timing cannot carry a claim ([] when it can)."""

    seconds: float
    spread: float | None
    samples: int
    noise: tuple[str, ...]


class BatchLoader:
    """The dataset and the preparation of one batch (a gather, a conversion, a normalisation)."""

    def __init__(self, batch: int, hidden: int, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.rows = rng.integers(0, 256, size=(DATASET_BATCHES * batch, hidden), dtype=np.uint8)
        self.targets = rng.integers(0, 256, size=(DATASET_BATCHES * batch, hidden), dtype=np.uint8)
        self.batch = batch
        self.rng = rng
        self.mean, self.scale = np.float32(127.5), np.float32(1 / 73.9)

    def next_batch(self) -> tuple[np.ndarray, np.ndarray]:
        """One batch: random rows, as normalised float32 inputs and targets."""
        picked = self.rng.integers(0, len(self.rows), size=self.batch)
        inputs = self.rows[picked].astype(np.float32)
        inputs -= self.mean
        inputs *= self.scale
        targets = self.targets[picked].astype(np.float32)
        targets *= np.float32(1 / 255)
        return inputs, targets


def time_loading(batch: int, hidden: int, check_cancelled: Callable[[], None] | None = None) -> LoaderTiming:
    """Time :meth:`BatchLoader.next_batch` on this CPU."""
    loader = BatchLoader(batch, hidden)
    samples = time_cpu_calls(loader.next_batch, POLICY, check_cancelled)
    median, iqr = median_and_iqr(list(samples))
    return LoaderTiming(median, iqr, len(samples), tuple(noise_reasons(median, iqr, samples.busy)))
