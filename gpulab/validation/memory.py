"""Evaluators for the memory and compute labs: roofline, precision, the CPU-vs-GPU crossover."""

from __future__ import annotations

EVALUATORS: dict = {}
