"""A :class:`~tests.gpulab.check.fakes.FakeGpu` for the correctness checks, with faults to inject.

Its memory is a numpy array and its memory test runs the real ``kernels/memtest.cu`` in the SIMT
emulator (:func:`gpulab.check.device_memtest.emulated_backend`), in small chunks so the chunking
is exercised: ``corrupt(buf, pattern)`` changes the memory between the write and the verify pass,
``allocate_raises`` makes the region's allocation fail, ``launch_raises`` makes a kernel launch
fail. Its lab kernels give their numpy reference's outputs (as FakeGpu's do); ``kernel_faults[entry](outputs)``
changes them and ``kernel_raises[entry]`` is raised instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from gpulab.check.device_memtest import Backend, MemtestResult, emulated_backend, run_memtest
from tests.gpulab.check.fakes import FakeGpu

FREE_BYTES = 160 * 1024  # quick tests 10 % of it: 2048 words; full 75 %: 15,360 words
CHUNK_WORDS = 1000  # a ragged last chunk in both


class CheckedGpu(FakeGpu):
    def __init__(self, index: int = 0, *, free_bytes: int = FREE_BYTES,
                 corrupt: Callable[[Any, str], None] | None = None, allocate_raises: Exception | None = None,
                 launch_raises: Exception | None = None,
                 kernel_faults: Mapping[str, Callable[[list[Any]], None]] | None = None,
                 kernel_raises: Mapping[str, Exception] | None = None, **kwargs: Any) -> None:
        super().__init__(index, **kwargs)
        self.free_bytes, self.corrupt = free_bytes, corrupt
        self.allocate_raises, self.launch_raises = allocate_raises, launch_raises
        self.kernel_faults, self.kernel_raises = dict(kernel_faults or {}), dict(kernel_raises or {})
        self.memtests: list[MemtestResult] = []
        self.kernels_run: list[tuple[str, str]] = []  # (entry, preset)

    def memtest(self, share: float, cap_bytes: int, seed: int,
                poll: Callable[[], None] | None = None) -> MemtestResult:
        result = run_memtest(self._backend(), share, cap_bytes, seed, CHUNK_WORDS, poll, self.corrupt)
        self.memtests.append(result)
        return result

    def _backend(self) -> Backend:
        backend = emulated_backend(self.free_bytes)
        if self.allocate_raises is not None:
            error = self.allocate_raises

            def allocate(n: int) -> Any:
                raise error

            backend = dataclasses.replace(backend, allocate=allocate)
        if self.launch_raises is not None:
            failure = self.launch_raises

            def launch(entry: str, blocks: int, args: tuple[Any, ...]) -> None:
                raise failure

            backend = dataclasses.replace(backend, launch=launch)
        return backend

    def run_kernel(self, spec: Any, preset: Any, args: Any) -> list[Any]:
        self.kernels_run.append((spec.entry, preset.name))
        if spec.entry in self.kernel_raises:
            raise self.kernel_raises[spec.entry]
        outputs = super().run_kernel(spec, preset, args)
        if spec.entry in self.kernel_faults:
            self.kernel_faults[spec.entry](outputs)
        return outputs
