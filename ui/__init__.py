"""gpulab's Qt front end: panels, themes, translations and the job runner.

It owns no science: panels build Params from widgets, run experiments through
:mod:`ui.jobs` and draw the points they yield.
"""
