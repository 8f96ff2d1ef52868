"""gpulab.simt — a SIMT emulator that runs real CUDA C lane by lane on any CPU.

Placeholder docstring; see the end of this task for the full documentation.
"""

from .api import LaunchResult, launch
from .errors import Cancelled, CompileError, KernelFault, SimtError
from .trace import TraceStep

__all__ = ["launch", "LaunchResult", "SimtError", "CompileError", "KernelFault", "Cancelled",
           "TraceStep"]
