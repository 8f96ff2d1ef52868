"""``gpulab info``: what this machine has, and why a GPU is or is not usable."""

from __future__ import annotations

import argparse
import sys

from gpulab.devices import DeviceReport, GpuInfo, device_report


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("info", help="describe the CPU and CUDA devices of this machine")
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON (- for stdout)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        from gpulab.output import output_problem

        problem = output_problem(args.json)
        if problem:
            print(f"gpulab info: --json {args.json}: {problem}", file=sys.stderr)
            return 2
    report = device_report()
    if args.json:
        from gpulab.output import emit_json

        return emit_json(report.to_dict(), args.json, "gpulab info")
    else:
        print(format_report(report))
    return 0


def _gib(n: int | None) -> str:
    return "?" if n is None else f"{n / 2**30:.1f} GiB"


def _fmt(value: float | int | None, unit: str, digits: int = 0) -> str:
    return "not available" if value is None else f"{value:.{digits}f} {unit}"


def format_gpu(gpu: GpuInfo) -> list[str]:
    lines = [
        f"GPU {gpu.index}: {gpu.name} (compute capability {gpu.compute_capability})",
        f"  SMs: {gpu.sm_count}   memory: {_gib(gpu.memory_total_bytes)}",
        f"  SM clock: {_fmt(gpu.sm_clock_mhz, 'MHz')}   memory clock: {_fmt(gpu.memory_clock_mhz, 'MHz')}"
        f"   bus: {_fmt(gpu.memory_bus_width_bits, 'bits')}",
        f"  peak DRAM bandwidth (from clock x bus width): {_fmt(gpu.peak_bandwidth_gb_s, 'GB/s')}",
    ]
    if gpu.nvml is not None:
        nv = gpu.nvml
        lines.append(f"  PCIe: gen {nv.pcie_gen_current} x{nv.pcie_width_current} now, "
                     f"gen {nv.pcie_gen_max} x{nv.pcie_width_max} max")
        lines.append(f"  power: {_fmt(nv.power_draw_w, 'W')} of {_fmt(nv.power_limit_w, 'W')}"
                     f"   temperature: {_fmt(nv.temperature_c, '°C')}")
    return lines


def format_report(report: DeviceReport) -> str:
    cpu = report.cpu
    lines = [f"CPU: {cpu.model} ({cpu.physical_cores} cores, {cpu.logical_cores} threads), "
             f"memory {_gib(cpu.memory_total_bytes)}"]
    lines += [f"  BLAS: {b.vendor} {b.version or ''} on {b.threads} thread(s)".rstrip() for b in cpu.blas]
    cuda = report.cuda
    lines.append(f"CUDA: {'available' if cuda.available else 'not available'}: {cuda.reason}")
    if cuda.cupy_version:
        lines.append(f"  CuPy {cuda.cupy_version}, CUDA runtime {cuda.cuda_runtime_version}, "
                     f"driver supports CUDA {cuda.cuda_driver_version or 'none'}")
    for gpu in cuda.devices:
        lines += format_gpu(gpu)
    return "\n".join(lines)
