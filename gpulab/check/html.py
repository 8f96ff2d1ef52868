"""The check report as one self-contained HTML page (no scripts, fonts or images from a network).

What a sysadmin attaches to a ticket: the summary and exit code; the node × device table (the
worst verdict in each cell, outliers marked and named); a small inline SVG plot of every measured
rate against its threshold; the traffic-light table of every row (verdict, check, rank, host and
device, measured value against its threshold, reason, next action, the threshold's source as a
numbered note); the sources; then the machine (each node's, in fleet mode), the versions and the
date. Every sentence and every label is rendered in the chosen language from the catalogue; every
value is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from gpulab.catalogue import has, msg, render

from .model import CheckReport, Row, Verdict
from .nodes import NodeTable, is_fleet, node_table, outlier_text, outliers, source_numbers, source_text

__all__ = ["VERDICT_COLOURS", "render_html", "source_text"]

VERDICT_COLOURS = {Verdict.PASS: "#1a7f37", Verdict.WARN: "#9a6700", Verdict.FAIL: "#cf222e", Verdict.SKIP: "#6e7781"}

_STYLE = """
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; margin: 2em; color: #1f2328; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; }
.summary { font-size: 1.15em; margin: 0.6em 0 1.2em; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #d0d7de; padding: 0.45em 0.6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
table.nodes, table.plot { width: auto; }
table.nodes td, table.nodes th { text-align: center; }
table.nodes td:first-child, table.nodes th:first-child { text-align: left; }
.verdict { color: #fff; font-weight: bold; border-radius: 4px; padding: 0.1em 0.5em; white-space: nowrap; }
.none { color: #8c959f; }
.note { color: #57606a; font-size: 0.9em; }
.source { color: #57606a; font-size: 0.85em; }
.action { margin-top: 0.3em; }
.where, .value { white-space: nowrap; }
table.plot td { vertical-align: middle; }
table.plot svg { display: block; }
ol.sources li { margin-bottom: 0.4em; color: #57606a; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em; }
dt { color: #57606a; }
"""


def _t(lang: str, key: str, **fields: Any) -> str:
    return html.escape(render(msg(key, **fields), lang))


def _badge(verdict: Verdict, lang: str, mark: str = "") -> str:
    word = _t(lang, f"check.verdict.{verdict.value}")
    return f'<span class="verdict" style="background:{VERDICT_COLOURS[verdict]}">{word}{mark}</span>'


def _where(row: Row, fleet: bool, lang: str) -> str:
    if fleet and row.rank is not None:
        return _t(lang, "check.html.where", rank=row.rank, host=row.host, device=row.device)
    return html.escape(" · ".join(p for p in (row.host, row.device) if p))


def _row_html(row: Row, lang: str, fleet: bool, sources: Mapping[str, int]) -> str:
    action = f'<div class="action">→ {html.escape(render(row.action, lang))}</div>' if row.action else ""
    number = sources.get(row.source)
    cite = f'<div class="source"><a href="#source-{number}">[{number}]</a></div>' if number else ""
    return (f"<tr><td>{_badge(row.verdict, lang)}</td>"
            f"<td>{html.escape(row.title(lang))}</td>"
            f'<td class="where">{_where(row, fleet, lang)}</td>'
            f'<td class="value">{html.escape(row.value_text(lang))}</td>'
            f"<td>{html.escape(render(row.reason, lang))}{action}{cite}</td></tr>")


def _node_table_html(table: NodeTable, report: CheckReport, lang: str) -> str:
    head = "".join(f"<th>{html.escape(d)}</th>" for d in table.devices)
    body = []
    for node in table.nodes:
        cells = []
        for device in table.devices:
            cell = table.cell(node, device)
            cells.append('<td class="none">—</td>' if cell is None
                         else f"<td>{_badge(cell.verdict, lang, '*' if cell.outlier else '')}</td>")
        body.append(f"<tr><td>{html.escape(node)}</td>{''.join(cells)}</tr>")
    far = outliers(report.rows)
    named = "".join(f"<li>{html.escape(outlier_text(r, lang))}</li>" for r in far)
    listed = f'<p class="note">{_t(lang, "check.report.outliers")}</p><ul>{named}</ul>' if far else ""
    return (f"<h2>{_t(lang, 'check.html.node-table')}</h2>"
            f'<p class="note">{_t(lang, "check.report.nodes")}</p>'
            f'<table class="nodes"><thead><tr><th>{_t(lang, "check.html.column.node")}</th>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>{listed}")


# ------------------------------------------------------------------ the plot

_BAR_W, _BAR_H = 360, 22


def _rate_rows(rows: list[Row]) -> list[Row]:
    """The rows the plot shows: a measured, finite, positive rate (a unit per second)."""
    return [r for r in rows if r.value is not None and math.isfinite(r.value) and r.value > 0 and r.unit.endswith("/s")]


def _scale_key(row: Row) -> tuple[str, str, str]:
    return row.check, row.unit, str(row.facts.get("dtype", ""))


def _scales(rows: list[Row]) -> dict[tuple[str, str, str], float]:
    """One scale per measurement (check, unit, data type): its largest value or threshold, so the
    bars of sibling devices compare at a glance and one far behind the others shows short."""
    tops: dict[tuple[str, str, str], float] = {}
    for row in rows:
        key = _scale_key(row)
        tops[key] = max(tops.get(key, 0.0), row.value or 0.0, row.threshold or 0.0)
    return tops


def _bar_svg(row: Row, label: str, top: float) -> str:
    """One row's bar (its verdict's colour) on its measurement's scale, and its threshold as a black tick."""
    value = row.value or 0.0
    top = max(top, value, row.threshold or 0.0) * 1.15
    width = _BAR_W * value / top
    tick = ""
    if row.threshold is not None and row.threshold > 0:
        x = _BAR_W * row.threshold / top
        tick = f'<line x1="{x:.1f}" y1="1" x2="{x:.1f}" y2="{_BAR_H - 1}" stroke="#1f2328" stroke-width="3"/>'
    return (f'<svg width="{_BAR_W}" height="{_BAR_H}" role="img" '
            f'aria-label="{html.escape(label)}"><rect x="0" y="0" width="{_BAR_W}" height="{_BAR_H}" fill="#f6f8fa"/>'
            f'<rect x="0" y="3" width="{width:.1f}" height="{_BAR_H - 6}" '
            f'fill="{VERDICT_COLOURS[row.verdict]}"/>{tick}</svg>')


def _plot_html(rows: list[Row], lang: str, fleet: bool) -> str:
    rates = _rate_rows(rows)
    if not rates:
        return ""
    lines = []
    tops = _scales(rates)
    for row in rates:
        title = row.title(lang)
        bar = _bar_svg(row, f"{title}: {row.value_text(lang)}", tops[_scale_key(row)])
        lines.append(f"<tr><td>{html.escape(title)}<br><span class=\"note\">{_where(row, fleet, lang)}</span></td>"
                     f"<td>{bar}</td>"
                     f"<td>{html.escape(row.value_text(lang))}</td></tr>")
    return (f"<h2>{_t(lang, 'check.html.plot')}</h2><p class=\"note\">{_t(lang, 'check.html.plot-note')}</p>"
            f'<table class="plot"><tbody>{"".join(lines)}</tbody></table>')


# ------------------------------------------------------------------ machine, versions, sources


def _label(key: str, lang: str) -> str:
    """A field's label in ``lang`` (its catalogue entry; the key itself for a field it does not know)."""
    entry = f"check.html.field.{key}"
    return _t(lang, entry) if has(entry) else html.escape(key)


def _value(key: str, value: Any) -> str:
    if key == "memory_bytes" and isinstance(value, (int, float)) and value > 0:
        return f"{value / 2**30:.1f} GiB"
    if isinstance(value, (list, tuple)):
        return html.escape(", ".join(str(v) for v in value))
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return html.escape(str(value))


def _facts(title: str, facts: Mapping[str, Any], lang: str) -> str:
    items = "".join(f"<dt>{_label(k, lang)}</dt><dd>{_value(k, v)}</dd>" for k, v in facts.items())
    return f"<h2>{html.escape(title)}</h2><dl>{items}</dl>"


def _nodes_html(nodes: Mapping[str, Mapping[str, Any]], lang: str) -> str:
    """Each node's machine, one row a node."""
    keys = [k for k in ("host", "os", "cpu", "logical_cores", "memory_bytes")
            if any(k in m for m in nodes.values())]
    keys += sorted({k for m in nodes.values() for k in m} - set(keys))
    head = "".join(f"<th>{_label(k, lang)}</th>" for k in keys)
    body = "".join(f"<tr><td>{html.escape(node)}</td>" + "".join(f"<td>{_value(k, m.get(k, ''))}</td>" for k in keys)
                   + "</tr>" for node, m in nodes.items())
    return (f"<h2>{_t(lang, 'check.html.machine')}</h2><table><thead><tr><th>{_t(lang, 'check.html.column.node')}"
            f"</th>{head}</tr></thead><tbody>{body}</tbody></table>")


def _sources_html(sources: Mapping[str, int], lang: str) -> str:
    if not sources:
        return ""
    items = "".join(f'<li id="source-{n}">{html.escape(source_text(key))}</li>' for key, n in sources.items())
    return f'<h2>{_t(lang, "check.html.sources")}</h2><ol class="sources">{items}</ol>'


def render_html(report: CheckReport, lang: str = "en") -> str:
    """The whole page as a string."""
    fleet = is_fleet(report.machine)
    sources = source_numbers(report.rows)
    summary = html.escape(render(report.summary(), lang))
    head = "".join(f"<th>{_t(lang, f'check.html.column.{c}')}</th>"
                   for c in ("verdict", "check", "device", "value", "reason"))
    rows = "".join(_row_html(row, lang, fleet, sources) for row in report.rows)
    when = {_t(lang, "check.html.started"): report.started, _t(lang, "check.html.mode"): report.mode}
    machine = dict(report.machine)
    if fleet:
        fleet_facts = machine.get("fleet", {})
        about = _nodes_html(machine.get("nodes", {}), lang) + _facts(_t(lang, "check.html.fleet"), fleet_facts, lang)
    else:
        about = _facts(_t(lang, "check.html.machine"), machine, lang)
    dated = "".join(f"<dt>{k}</dt><dd>{html.escape(str(v))}</dd>" for k, v in when.items())
    return (f'<!DOCTYPE html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            f"<title>{_t(lang, 'check.html.title')}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{_t(lang, 'check.html.title')}</h1>"
            f'<div class="summary">{summary}</div>'
            f"{_node_table_html(node_table(report.rows), report, lang)}"
            f"{_plot_html(report.rows, lang, fleet)}"
            f"<h2>{_t(lang, 'check.html.rows')}</h2>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
            f"{_sources_html(sources, lang)}"
            f"{about}"
            f"{_facts(_t(lang, 'check.html.versions'), report.versions, lang)}"
            f"<h2>{_t(lang, 'check.html.date')}</h2><dl>{dated}</dl></body></html>\n")
