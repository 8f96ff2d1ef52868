"""The evaluators: one function per kind of modelled figure, by the name a validation row gives.

An evaluator takes a row's ``config`` (a mapping of plain values) and returns the model's figure
in the row's unit. It prices the configuration the way the lab does, through the lab's own model
code, so a row checks what the learner sees. Each area keeps its evaluators in its own module;
this table joins them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpulab.validation import cluster, execution, memory, scheduling

Evaluator = Callable[[Mapping[str, Any]], float]

EVALUATORS: dict[str, Evaluator] = {**cluster.EVALUATORS, **execution.EVALUATORS, **memory.EVALUATORS,
                                  **scheduling.EVALUATORS}
