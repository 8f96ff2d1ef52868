"""The lab platform: what a lab is and how it runs, shared by every lab in :mod:`gpulab.experiments`.

:mod:`~gpulab.lab.base` (parameters, events, driving a run), :mod:`~gpulab.lab.declare` (a lab's
one declaration and the registry found from them), :mod:`~gpulab.lab.sweep` (the one size sweep),
:mod:`~gpulab.lab.emulated` (emulated kernel variants), :mod:`~gpulab.lab.kernel_work` (a
kernel's work against its size) and :mod:`~gpulab.lab.cpu_peaks` (this CPU's measured roof).
Nothing here imports a lab.
"""
