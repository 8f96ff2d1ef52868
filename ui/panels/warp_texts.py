"""The warp visualizer's texts: plain functions of a session and a cursor position.

No widget here, only words: what the status line, the step line, the lane hover and the GPU
tab say. Every text is translated in the ``WarpPanel`` context (where the committed
translations have them), so moving a text here keeps its Chinese.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from gpulab import kernels
from gpulab.experiments import warp as ws
from ui import i18n
from ui.widgets.lane_grid import state_name
from ui.widgets.memory_view import fill

# Always spelled out as translate("WarpPanel", "..."): lupdate finds the texts by that call.
translate = QCoreApplication.translate


def error_text(exc: BaseException) -> tuple[int | None, str]:
    """(line, message in plain words, in the interface language) for an emulator error.

    A budget stop names the loop's line (``loop_line``), not the statement it stopped at.
    """
    details = getattr(exc, "details", None) or {}
    line = details.get("loop_line") or getattr(exc, "line", None)
    return line, i18n.engine_message(ws.error_message(exc))


def no_divergence_text(session: ws.WarpSession, g: int) -> str:
    """Why "next divergence" did not move: none later, or none in the whole run (steps 1-based)."""
    earlier = session.divergent_steps()
    if not earlier:
        return translate("WarpPanel", "This run has no divergent branch: every branch kept its warps together.")
    return fill(
        translate("WarpPanel", "No further divergent branch after step %1 (this run has %2; the last is step %3)."),
        g + 1, len(earlier), earlier[-1] + 1,
    )  # fmt: skip


def no_memory_text(g: int) -> str:
    return fill(translate("WarpPanel", "No further memory access after step %1."), g + 1)


def kernel_title(spec: kernels.KernelSpec) -> str:
    return i18n.engine_text(spec, "title")


def preset_text(preset: kernels.LaunchPreset) -> str:
    """'tiny (64 threads)': a launch preset in the size list."""
    names = {
        "tiny": translate("WarpPanel", "tiny"),
        "small": translate("WarpPanel", "small"),
        "medium": translate("WarpPanel", "medium"),
        "large": translate("WarpPanel", "large"),
    }
    return fill(translate("WarpPanel", "%1 (%2 threads)"), names.get(preset.name, preset.name), preset.threads)


def registers_text(registers: dict[str, Any], types: dict[str, str]) -> str:
    """'i = 37, v = 112, in = 0x1000': a lane's variables, pointers (byte addresses, in hex) last."""
    parts = []
    pointers_last = sorted(registers.items(), key=lambda item: types.get(item[0], "").endswith("*"))
    for name, value in pointers_last:
        if isinstance(value, bool):
            shown = "true" if value else "false"
        elif types.get(name, "").endswith("*") and isinstance(value, int):
            shown = hex(value)
        else:
            shown = str(value)
        parts.append(f"{name} = {shown}")
    return ", ".join(parts)


def kind_word(kind: str) -> str:
    """A trace step's kind (``stmt``, ``load``, ...) as a word."""
    words = {
        "stmt": translate("WarpPanel", "statement"),
        "branch": translate("WarpPanel", "branch"),
        "load": translate("WarpPanel", "load"),
        "store": translate("WarpPanel", "store"),
        "atomic": translate("WarpPanel", "atomic"),
        "barrier": translate("WarpPanel", "barrier"),
        "shuffle": translate("WarpPanel", "shuffle"),
    }
    return words.get(kind, kind)


def status_text(session: ws.WarpSession) -> str:
    """Which block was traced, how many warps and steps, and the verdict against numpy."""
    verdict = {
        True: translate("WarpPanel", "outputs match the numpy reference"),
        False: translate("WarpPanel", "outputs DIFFER from the numpy reference"),
        None: "",
    }[session.reference_match]
    text = fill(
        translate("WarpPanel", "Emulated block %1 of %2: %3 warps traced, %4 steps; %5."),
        session.block,
        session.shape.blocks,
        session.rows,
        len(session),
        verdict,
    )
    if session.truncated:
        text += " " + translate(
            "WarpPanel", "The trace stops early (the emulator keeps at most 20,000 steps per warp)."
        )
    return text


def step_text(session: ws.WarpSession, g: int, row: int) -> str:
    """'Line 9 (branch): 2 of 2 warps execute, 64 lanes active.' for timeline step ``g``."""
    step = session.step(g, row)
    rows = session.participants(g)
    active = sum(session.step(g, r).active_lanes for r in rows)
    return fill(
        translate("WarpPanel", "Line %1 (%2): %3 of %4 warps execute, %5 lanes active."),
        step.line,
        kind_word(step.kind),
        len(rows),
        session.rows,
        active,
    )


def lane_texts(session: ws.WarpSession, g: int, row: int, lane: int) -> tuple[str, str]:
    """(full, short) hover texts of one lane: who it is, its state, variables and address.

    The short one (for the label in large type) names the thread by its number only.
    """
    info = session.lane_info(g, row, lane)
    state = state_name(info.state)
    if info.thread is None:
        text = short = fill(translate("WarpPanel", "Warp %1, lane %2: %3."), info.warp, lane, state)
    else:
        text = fill(
            translate("WarpPanel", "Warp %1, lane %2: threadIdx %3, blockIdx %4, thread %5 of the grid — %6."),
            info.warp, lane, info.thread, info.block, info.global_thread, state,
        )  # fmt: skip
        short = fill(
            translate("WarpPanel", "Warp %1, lane %2 (thread %3): %4."), info.warp, lane, info.global_thread, state
        )
    extra = ""
    if info.registers:
        extra += " " + fill(
            translate("WarpPanel", "Variables: %1."),
            registers_text(dict(info.registers), session.register_types(g, row)),
        )
    if info.address is not None:
        extra += (
            " "
            + fill(translate("WarpPanel", "Address %1."), hex(info.address))
            + where_in_memory(session, g, row, lane)
        )
    return text + extra, short + extra


def where_in_memory(session: ws.WarpSession, g: int, row: int, lane: int) -> str:
    """' Bank 5.' or ' Sector 2 of line 0.' for a lane at a memory step, else ''."""
    memory = session.memory(g, row)
    if memory is None or memory.warp != session.warps[row]:
        return ""
    if memory.space == "shared" and memory.bank_of_lane[lane] >= 0:
        return " " + fill(translate("WarpPanel", "Bank %1."), memory.bank_of_lane[lane])
    if memory.space != "shared" and memory.line_of_lane and memory.line_of_lane[lane] >= 0:
        return " " + fill(
            translate("WarpPanel", "Sector %1 of line %2."), memory.sector_of_lane[lane], memory.line_of_lane[lane]
        )
    return ""


def emulated_counts_text(metrics: dict[str, float]) -> str:
    """The emulator's counts beside a GPU run: warp-steps, load sectors and requests."""
    return fill(
        translate(
            "WarpPanel",
            "Emulated counts, every warp of the launch: %1 warp-steps (nvprof inst_executed), "
            "%2 load sectors in %3 requests.",
        ),
        int(metrics.get("inst_executed", 0)),
        int(metrics.get("gld_transactions", 0)),
        int(metrics.get("gld_requests", 0)),
    )


def gpu_run_text(run: ws.GpuRun) -> str:
    """Device, outputs vs the emulator, and the median kernel time of a GPU run."""
    verdict = (
        translate("WarpPanel", "outputs MATCH the emulator")
        if run.all_match
        else translate("WarpPanel", "outputs DO NOT MATCH the emulator")
    )
    return fill(
        translate("WarpPanel", "%1: %2; kernel time %3 µs (median of %4 launches, CUDA events)."),
        run.device,
        verdict,
        f"{run.median_s * 1e6:.2f}",
        len(run.times_s),
    )


def no_gpu_run_text(usable: bool, reason: str | None) -> str:
    """What the GPU tab says before a run: why there is none, or how to make one."""
    if not usable:
        reason = reason if reason is not None else translate("WarpPanel", "the device check has not finished")
        return fill(translate("WarpPanel", "No GPU run: %1 The emulated results above stand alone."), reason)
    return translate("WarpPanel", "Run the same source on the GPU to compare outputs and time it.")
