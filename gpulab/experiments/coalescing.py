"""The old name of the access-pattern lab, kept so scripts that import it still run.

``gpulab run coalescing`` and results saved as ``coalescing`` go through
:data:`gpulab.experiments.ALIASES`; this module serves ``from gpulab.experiments import coalescing``.
"""

from gpulab.experiments.access_pattern import (
    DESCRIPTION,
    KERNELS,
    SERIES,
    TITLE,
    Params,
    load_efficiency,
    pattern_load_sectors,
    run,
    variants,
)

__all__ = ["DESCRIPTION", "KERNELS", "SERIES", "TITLE", "Params", "load_efficiency", "pattern_load_sectors", "run",
           "variants"]
