"""The occupancy calculator against published cases, its command line, and registers from NVRTC."""

from __future__ import annotations

import json

import pytest

from gpulab.cli import main
from gpulab.occupancy import OccupancyError, occupancy, resolve_arch

# (arch, threads, registers, shared bytes) -> (blocks per SM, warps per SM, binding limits); source.
PUBLISHED = [
    # CUDA C++ Best Practices Guide, "Calculating Occupancy": on compute capability 7.0, 128-thread
    # blocks with 37 registers per thread reach 75% occupancy with 12 blocks; 320-thread blocks
    # "63%" (40 of 64 warps = 62.5%) with four blocks.
    (("sm_70", 128, 37, 0), (12, 48, ("registers",))),
    (("sm_70", 320, 37, 0), (4, 40, ("registers",))),
    # leonyz/SGEMM_CUDA README (a fork of siboehm/SGEMM_CUDA), kernel 3 on an RTX 4060 (8.9):
    # 1024 threads, 37 registers, 8192 B shared -> 1 block (registers and warps), 32 of 48 warps, 67%;
    # shared memory alone: (8192 + 1024 reserved) per block -> 11 blocks in 102400 bytes.
    (("sm_89", 1024, 37, 8192), (1, 32, ("warps", "registers"))),
]
# Cases that follow from the CUDA C++ Programming Guide's Table 27 and Shared Memory sections alone
# (the figures quoted in resources/occupancy/limits.toml's header), one per verified column.
GUIDE = [
    (("sm_120", 32, 16, 0), (24, 24, ("blocks",))),  # 12.0: 24 resident blocks (the table; was 32 here)
    (("sm_89", 32, 16, 0), (24, 24, ("blocks",))),  # 8.9: 24 resident blocks
    (("sm_86", 1024, 16, 0), (1, 32, ("warps",))),  # 8.6: 48 warps, so one 32-warp block
    (("sm_90", 128, 16, 232448), (1, 4, ("shared_memory",))),  # 9.0: 227 KB + the 1 KB reserved = 228 KB
    (("sm_80", 128, 16, 166912), (1, 4, ("shared_memory",))),  # 8.0: 163 KB + 1 KB = 164 KB
    (("sm_75", 128, 16, 65536), (1, 4, ("shared_memory",))),  # 7.5: one block may use all 64 KB, none reserved
]
# Cases that follow from the Volta Tuning Guide's Occupancy section alone ([volta] in limits.toml):
# 64 warps, 32 blocks, 64 K registers per SM, 255 per thread, 96 KB of shared memory.
VOLTA = [
    (("sm_70", 32, 16, 0), (32, 32, ("blocks",))),  # one-warp blocks stop at 32 blocks
    (("sm_70", 1024, 16, 0), (2, 64, ("warps",))),  # 64 warps: two 32-warp blocks
    (("sm_70", 32, 255, 0), (8, 8, ("registers",))),  # 255 (256 allocated) x 32 lanes: 8 warps in 64 K
    (("sm_70", 128, 16, 98304), (1, 4, ("shared_memory",))),  # one block may take all 96 KB
]
# Cases from the rules in resources/occupancy/limits.toml (cuda_occupancy.h semantics), by hand.
RULES = [
    (("sm_80", 256, 64, 49152), (3, 24, ("shared_memory",))),  # (48K + 1K) per block: 3 in 164 KiB
    (("sm_90", 256, 32, 0), (8, 64, ("warps", "registers"))),
    (("sm_75", 64, 32, 0), (16, 32, ("warps", "blocks"))),  # Turing: 32 warps, 16 blocks; registers allow 32
    (("sm_86", 32, 16, 0), (16, 16, ("blocks",))),  # one-warp blocks stop at the block limit
    (("sm_80", 96, 255, 0), (2, 6, ("registers",))),  # 255 regs: 8192/warp, 2 warps per sub-partition
]


@pytest.mark.parametrize(("args", "expected"), PUBLISHED + GUIDE + VOLTA + RULES)
def test_calculator_table(args: tuple, expected: tuple) -> None:
    result = occupancy(*args)
    assert (result.blocks_per_sm, result.warps_per_sm, result.limiters) == expected


def test_shared_memory_per_block_includes_the_reserved_kib() -> None:
    assert occupancy("sm_86", 1024, 37, 8192).limits["shared_memory"] == 11
    assert occupancy("sm_70", 128, 32, 8192).limits["shared_memory"] == 12  # 96 KiB / 8 KiB, no reserve


def test_carveout_smaller_than_a_block_is_raised_to_fit() -> None:
    result = occupancy("sm_80", 128, 32, 20_000, carveout_kib=16)
    assert result.shared_per_sm_bytes == 32 * 1024 and result.limits["shared_memory"] == 1


def test_architecture_names() -> None:
    assert resolve_arch("8.6") == "sm_86" and resolve_arch("h100-sxm") == "sm_90" and resolve_arch("SM_120") == "sm_120"


@pytest.mark.parametrize(("field", "args"), [("threads", (2048, 32, 0)), ("registers", (128, 256, 0)),
                                              ("shared", (128, 32, 1 << 20))])
def test_bad_input_names_the_field(field: str, args: tuple) -> None:
    with pytest.raises(OccupancyError) as caught:
        occupancy("sm_80", *args)
    assert caught.value.field == field


def test_volta_takes_at_most_255_registers_per_thread() -> None:
    with pytest.raises(OccupancyError) as caught:
        occupancy("sm_70", 32, 256, 0)  # the tuning guide: "The maximum registers per thread is 255."
    assert caught.value.field == "registers"


def test_cli_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["occupancy", "sm_70", "--threads", "128", "--registers", "37"]) == 0
    text = capsys.readouterr().out
    assert "12 blocks" in text and "75.0%" in text and "registers" in text
    assert main(["occupancy", "sm_89", "--threads", "1024", "--registers", "37", "--shared", "8K", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["blocks_per_sm"], data["warps_per_sm"], data["limiter"]) == (1, 32, "warps")
    assert data["occupancy"] == pytest.approx(32 / 48)


@pytest.mark.parametrize(("argv", "words"), [
    (["sm_99", "--threads", "128", "--registers", "32"], "unknown architecture"),
    (["sm_80", "--threads", "2000", "--registers", "32"], "--threads"),
    (["sm_80", "--threads", "128"], "--registers"),
    (["sm_80", "--threads", "128", "--registers", "32", "--shared", "lots"], "--shared"),
    (["sm_80", "--threads", "128", "--registers", "32", "--carveout", "50"], "--carveout"),
    (["sm_80", "--threads", "128", "--kernel", "no_such_kernel"], "--kernel"),
])
def test_cli_bad_input_exits_2(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["occupancy", *argv]) == 2
    assert words in capsys.readouterr().err


def test_cli_kernel_registers_from_nvrtc(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) is not installed")
    assert main(["occupancy", "sm_80", "--threads", "256", "--kernel", "transpose_shared", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compiled"]["static_shared_bytes"] == 4096 and data["compiled"]["registers"] > 0


def test_carveout_choices_are_the_guides() -> None:
    from gpulab.occupancy import arch_limits

    assert arch_limits("sm_90").carveout_kib == (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
    assert arch_limits("sm_80").carveout_kib == (0, 8, 16, 32, 64, 100, 132, 164)
    assert arch_limits("sm_120").carveout_kib == arch_limits("sm_89").carveout_kib == (0, 8, 16, 32, 64, 100)
    assert arch_limits("sm_70").carveout_kib == (0, 8, 16, 32, 64, 96)


@pytest.mark.gpu
def test_calculator_equals_cuda_occupancy_api() -> None:
    """On a GPU: the calculator equals cuOccupancyMaxActiveBlocksPerMultiprocessor for lab kernels.

    CuPy's API (read in cupy/cupy at 6b6d9563, cupy_backends/cuda/api/driver.pyx, re-exported as
    ``cupy.cuda.driver``): ``occupancyMaxActiveBlocksPerMultiprocessor(func, blockSize,
    dynamicSMemSize)`` with ``func`` the CUfunction as an integer, which is ``Function.ptr`` of the
    ``cupy.cuda.Function`` that ``RawKernel.kernel`` returns (cupy/_core/raw.pyx); CuPy itself
    calls it so in cupy/cuda/function.pyx. ``Device().compute_capability`` is a string like ``"90"``."""
    cp = pytest.importorskip("cupy")
    from gpulab import cuda, kernels

    capability = cp.cuda.Device().compute_capability
    arch = f"sm_{capability[:-1]}{capability[-1]}"
    for entry in ("vector_add", "matmul_tiled", "transpose_shared", "reduce_shuffle"):
        kernel = cuda.get_kernel(kernels.get(entry).source, entry)
        registers, shared = kernel.attributes["num_regs"], kernel.attributes["shared_size_bytes"]
        for threads, dynamic in ((64, 0), (256, 0), (1024, 0), (256, 8192)):
            api = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, threads, dynamic)
            ours = occupancy(arch, threads, registers, shared + dynamic).blocks_per_sm
            assert ours == api, (entry, threads, dynamic, registers, shared)
