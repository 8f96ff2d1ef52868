"""gpulab: a GPU teaching and sanity-check lab.

The engine lives in this package and never imports Qt; the desktop front end is in ``ui``.
Every number it produces carries a provenance (see :mod:`gpulab.results`).
"""

__version__ = "0.1.0"
