"""The check report as one self-contained HTML page (no scripts, fonts or images from a network).

A traffic-light table (verdict, check, device, measured value against its threshold, reason,
next action, the threshold's source), the totals and the exit code, then the machine, the
versions and the date: what a sysadmin attaches to a ticket. Every sentence is rendered in the
chosen language from the catalogue; every value is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from gpulab.catalogue import msg, render

from .model import CheckReport, Row, Verdict
from .registry import threshold

VERDICT_COLOURS = {Verdict.PASS: "#1a7f37", Verdict.WARN: "#9a6700", Verdict.FAIL: "#cf222e", Verdict.SKIP: "#6e7781"}

_STYLE = """
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; margin: 2em; color: #1f2328; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
.summary { font-size: 1.15em; margin: 0.6em 0 1.2em; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #d0d7de; padding: 0.45em 0.6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.verdict { color: #fff; font-weight: bold; border-radius: 4px; padding: 0.1em 0.5em; white-space: nowrap; }
.source { color: #57606a; font-size: 0.85em; }
.action { margin-top: 0.3em; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em; }
dt { color: #57606a; }
"""


def source_text(key: str) -> str:
    """The citation beside a threshold (empty when the row names none or the entry has none)."""
    if not key:
        return ""
    try:
        return str(threshold(key).get("source", ""))
    except KeyError:
        return ""


def _row_html(row: Row, lang: str) -> str:
    verdict = render(msg(f"check.verdict.{row.verdict.value}"), lang)
    action = f'<div class="action">→ {html.escape(render(row.action, lang))}</div>' if row.action else ""
    source = source_text(row.source)
    cite = f'<div class="source">{html.escape(source)}</div>' if source else ""
    badge = f'<span class="verdict" style="background:{VERDICT_COLOURS[row.verdict]}">{html.escape(verdict)}</span>'
    return (f"<tr><td>{badge}</td>"
            f"<td>{html.escape(render(msg(f'check.{row.check}.title'), lang))}</td>"
            f"<td>{html.escape(row.host)} {html.escape(row.device)}</td>"
            f"<td>{html.escape(row.value_text())}</td>"
            f"<td>{html.escape(render(row.reason, lang))}{action}{cite}</td></tr>")


def _facts(title: str, facts: Mapping[str, Any]) -> str:
    items = "".join(f"<dt>{html.escape(str(k))}</dt><dd>{html.escape(str(v))}</dd>" for k, v in facts.items())
    return f"<h2>{html.escape(title)}</h2><dl>{items}</dl>"


def render_html(report: CheckReport, lang: str = "en") -> str:
    """The whole page as a string."""
    t = lambda key, **args: render(msg(key, **args), lang)  # noqa: E731 - a local shorthand
    summary = render(report.summary(), lang)
    head = "".join(f"<th>{html.escape(t(f'check.html.column.{c}'))}</th>"
                   for c in ("verdict", "check", "device", "value", "reason"))
    rows = "".join(_row_html(row, lang) for row in report.rows)
    when = {t("check.html.started"): report.started, t("check.html.mode"): report.mode}
    return (f'<!DOCTYPE html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            f"<title>{html.escape(t('check.html.title'))}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(t('check.html.title'))}</h1>"
            f'<div class="summary">{html.escape(summary)}</div>'
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
            f"{_facts(t('check.html.machine'), {**report.machine, **when})}"
            f"{_facts(t('check.html.versions'), report.versions)}</body></html>\n")
