"""Latency, and how a GPU hides it: the engine of the latency lab (no Qt).

* :mod:`.ladder`: a pointer-chasing latency ladder on this CPU (measured): dependent loads over
  working sets from 4 KiB to 1 GiB, compiled by Numba, the call's own cost measured and removed.
* :mod:`.gpu_levels`: published per-level GPU latencies where a cited figure exists (modelled).
* :mod:`.sm`: an SM model: resident warps replaying instruction streams recorded by the SIMT
  emulator, warp schedulers issuing one instruction a cycle, a memory latency and a bandwidth
  limit; throughput and issue utilisation against resident warps, checked against Little's law.
"""
