"""Xid errors: what the NVIDIA driver logged about each GPU since this boot.

The driver writes one kernel-log line per GPU error, ``NVRM: Xid (PCI:0000:18:00): 79, ...``:
the GPU's PCI address and the Xid code. This check reads the kernel log through the device layer
(``DeviceLayer.kernel_log``; :func:`read_kernel_log` on a real machine), matches each line to a
checked GPU by its PCI address, and classes the codes by ``resources/check/xid.toml`` (NVIDIA's
Xid catalogue): a hardware Xid fails, a reset Xid or a code gpulab does not know warns, a
program's Xid (a bad pointer in someone's kernel) is listed and passes. It runs after the loads
and timed checks, so an error they provoked is counted too.

A kernel log this process may not read (``dmesg`` restricted to root, no journal) is a skip that
says how to read it, never a pass.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Generator, Sequence
from functools import cache

from gpulab.catalogue import Message, msg, plain
from gpulab.paths import resource_path

from .device import GpuView, device_layer
from .gpu_health import gpu_row, targets
from .model import Row, Verdict
from .registry import Context, register

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

# "NVRM: Xid (PCI:0000:18:00): 79, pid=..., GPU has fallen off the bus." The PCI part has been
# written with and without "PCI:", and with and without the function number, across drivers.
_XID = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)(?:\.[0-9a-fA-F])?\): (\d+)")

KINDS = ("program", "reset", "hardware")


class KernelLogUnavailable(RuntimeError):
    """The kernel log cannot be read here; the message says why."""


@cache
def classes() -> dict[int, str]:
    """Xid code -> its kind ("program", "reset" or "hardware"), from resources/check/xid.toml."""
    with open(resource_path("check", "xid.toml"), "rb") as f:
        table = tomllib.load(f)
    return {int(code): kind for kind in KINDS for code in table.get(kind, [])}


def pci_key(address: str | None) -> tuple[int, int, int] | None:
    """(domain, bus, device) of a PCI address as NVML writes it (``00000000:18:00.0``) or the kernel
    log does (``0000:18:00``): the two spell the domain with different widths."""
    if not address:
        return None
    parts = re.fullmatch(r"([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)(?:\.[0-9a-fA-F])?", address.strip())
    return tuple(int(p, 16) for p in parts.groups()) if parts else None  # type: ignore[return-value]


def parse(lines: Sequence[str]) -> list[tuple[tuple[int, int, int], int]]:
    """Every Xid line's (PCI key, code), in log order."""
    found = []
    for line in lines:
        hit = _XID.search(line)
        if hit:
            domain, bus, device, code = hit.groups()
            found.append(((int(domain, 16), int(bus, 16), int(device, 16)), int(code)))
    return found


def read_kernel_log() -> list[str]:
    """The NVRM lines of this boot's kernel log: ``dmesg``, else ``journalctl -k -b``; raises
    :class:`KernelLogUnavailable` naming what each said (commonly: dmesg is for root only)."""
    tried = []
    for command in (["dmesg"], ["journalctl", "-k", "-b", "--no-pager", "-q"]):
        if shutil.which(command[0]) is None:
            tried.append(f"{command[0]}: not installed")
            continue
        try:
            done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            tried.append(f"{command[0]}: {exc}")
            continue
        if done.returncode == 0:
            return [line for line in done.stdout.splitlines() if "NVRM" in line]
        tried.append(f"{command[0]}: {(done.stderr.strip() or f'exit code {done.returncode}')[:160]}")
    raise KernelLogUnavailable("; ".join(tried))


def _name(code: int) -> Message:
    return msg(f"check.gpu.xid.name.{code}") if code in classes() else msg("check.gpu.xid.name-unknown", code=code)


def judge_xid(gpu: GpuView, codes: Counter[int]) -> Row:
    """One GPU's row from the Xid codes logged for it (code -> how many times)."""
    facts = {"xid_counts": {str(code): n for code, n in sorted(codes.items())}}
    fields = {"value": float(sum(codes.values())), "unit": "Xid", "source": "gpu.xid", "facts": facts}
    if not codes:
        return gpu_row("gpu.xid", gpu, Verdict.PASS, msg("check.gpu.xid.none"), **fields)
    seen = [msg("check.gpu.xid.seen", code=code, count=n, name=_name(code)) for code, n in sorted(codes.items())]
    kinds = {classes().get(code, "unknown") for code in codes}
    if "hardware" in kinds:
        return gpu_row("gpu.xid", gpu, Verdict.FAIL, msg("check.gpu.xid.hardware", seen=seen),
                       action=msg("check.gpu.xid.action-hardware"), **fields)
    if kinds & {"reset", "unknown"}:
        return gpu_row("gpu.xid", gpu, Verdict.WARN, msg("check.gpu.xid.reset", seen=seen),
                       action=msg("check.gpu.xid.action-reset", gpu=gpu.pci_bus_id or gpu.index), **fields)
    return gpu_row("gpu.xid", gpu, Verdict.PASS, msg("check.gpu.xid.program", seen=seen), **fields)


@register("gpu.xid")
def check_xid(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.gpu.xid.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    try:
        logged = parse(device_layer(ctx).kernel_log())
    except Exception as exc:  # KernelLogUnavailable, or a layer that broke: not readable is not clean
        why = str(exc) if isinstance(exc, KernelLogUnavailable) else f"{type(exc).__name__}: {exc}"
        return [gpu_row("gpu.xid", gpu, Verdict.SKIP, msg("check.gpu.xid.unreadable", why=plain(why[:300])),
                        source="gpu.xid") for gpu in gpus]
    return [judge_xid(gpu, Counter(code for key, code in logged if key == pci_key(gpu.pci_bus_id))) for gpu in gpus]
