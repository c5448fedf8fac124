"""``ctxtui report --html``: the report as one self-contained page to attach to a pull request.

Everything is inline (style, gauge, tables, the timeline as SVG) and a Content-Security-Policy
forbids any fetch or script, so it reads the same offline. Every figure is the ``report
--json`` document's, tagged with its key in ``data-figure``; session text is escaped and its
control characters shown.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import PurePath
from typing import Any

from ctxtui.commands.pipeline import build_policy, load
from ctxtui.core.engine import Engine
from ctxtui.core.literal import visible
from ctxtui.core.session.import_notes import event_lines
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.palette import SERIES_COLOURS
from ctxtui.system.count_cache import default_cache

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""Nothing but the page's own inline style: no script, no font, no request of any kind."""

SEGMENTS: tuple[tuple[str, str, str, str], ...] = (
    # (figure key, label, light colour, dark colour): the app's gauge, in its order
    ("system_tokens", "system prompt", "#7B61A8", "#B79BE0"),
    ("tool_defs_tokens", "tool definitions", "#9A6A00", "#E0B050"),
    ("summary_tokens", "summary", "#6B7280", "#A0A7B4"),
    ("dropped_tokens", "dropped", "#B3261E", "#F2867E"),
    ("kept_tokens", "kept", "#1F5FAD", "#6FA8F0"),
    ("tail_tokens", "fresh tail", "#1E7A46", "#5CCB8A"),
    ("output_reserve", "output reserve", "#C7A34A", "#8A7436"),
    ("free_tokens", "free", "#D9DDE3", "#3A3F47"),
)

CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, CHART_BOTTOM = 960, 260, 56, 24

STYLE = """
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #59636e; --bg: #ffffff;
  --rule: #d0d7de; --tail: #1E7A46; --kept: #1F5FAD; --dropped: #B3261E; --mark: #8a4b00; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9aa5b1; --bg: #0d1117; --rule: #30363d; --tail: #5CCB8A;
    --kept: #6FA8F0; --dropped: #F2867E; --mark: #f0b35a; }
}
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  margin: 2rem auto; max-width: 1000px; padding: 0 1rem; }
h1 { font-size: 1.3rem; margin: 0 0 .25rem; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
.muted { color: var(--muted); } .num { text-align: right; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; width: 100%; } caption { text-align: left; }
th, td { padding: .15rem .6rem; border-bottom: 1px solid var(--rule); }
th { text-align: left; font-weight: 600; }
.gauge { display: flex; height: 1.4rem; border: 1px solid var(--rule); margin: .5rem 0; }
.gauge span { display: block; height: 100%; min-width: 1px; }
.legend { display: flex; flex-wrap: wrap; gap: .3rem 1rem; margin: 0; padding: 0;
  list-style: none; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .3em;
  vertical-align: -.05em; }
.zone-tail { color: var(--tail); } .zone-kept { color: var(--kept); }
.zone-dropped { color: var(--dropped); } .mark { color: var(--mark); font-weight: 600; }
.warning { color: var(--mark); }
svg { width: 100%; height: auto; } svg text { fill: var(--muted); font-size: 11px; }
"""


def _text(value: object) -> str:
    """``value`` as HTML text: control characters shown (``␛[31m``), markup escaped."""
    return escape(visible(str(value)))


def _figure(key: str, value: int | float | str) -> str:
    """A figure as the page shows it, tagged with its ``report --json`` key."""
    shown = f"{value:,}" if isinstance(value, int) else _text(value)
    return f'<span data-figure="{escape(key)}">{shown}</span>'


def gauge_figures(report: dict[str, Any]) -> dict[str, int]:
    """The gauge's segments in tokens, read off the report document (they add up to the
    window when the request fits)."""
    totals = report["totals"]
    zones = {"kept": 0, "tail": 0}
    for m in report["messages"]:
        if m["zone"] in zones:
            zones[m["zone"]] += m["sent_tokens"]
    figures = {key: int(totals.get(key, 0)) for key, *_ in SEGMENTS if key in totals}
    figures["kept_tokens"] = zones["kept"]
    figures["tail_tokens"] = zones["tail"]
    figures["free_tokens"] = max(0, totals["window"] - totals["requested"])
    return figures


def _gauge(report: dict[str, Any]) -> str:
    figures = gauge_figures(report)
    total = max(1, sum(figures.values()))
    blocks, legend = [], []
    for key, label, light, dark in SEGMENTS:
        tokens = figures.get(key, 0)
        colour = f"light-dark({light}, {dark})"
        if tokens:
            share = 100 * tokens / total
            blocks.append(
                f'<span style="width:{share:.3f}%;background:{colour}" '
                f'title="{escape(label)}: {tokens:,} tok"></span>'
            )
        legend.append(
            f'<li><span class="swatch" style="background:{colour}"></span>{escape(label)} '
            f'<span class="num" data-gauge="{key}">{tokens:,}</span></li>'
        )
    return (
        f'<div class="gauge" role="img" aria-label="the window by segment">{"".join(blocks)}</div>'
        f'<ul class="legend">{"".join(legend)}</ul>'
    )


def _summary(report: dict[str, Any]) -> str:
    t = report["totals"]
    ratio = f"{t['used_ratio'] * 100:.1f}%"
    tail = report["fresh_tail"]
    compaction = report["compaction"]
    needed = "no compaction needed"
    if compaction["needed"]:
        needed = "compaction <strong>needed</strong>"
    lines = [
        f"request {_figure('totals.requested', t['requested'])} of "
        f"{_figure('totals.window', t['window'])} tok ({_figure('totals.used_ratio', ratio)}) "
        f"= prompt {_figure('totals.tokens', t['tokens'])} "
        f"+ output reserve {_figure('totals.output_reserve', t['output_reserve'])}",
        f"compaction trigger at {_figure('totals.trigger', t['trigger'])} tok · {needed}",
        f"fresh tail from #{_figure('fresh_tail.start', tail['start'])} · "
        f"{_figure('fresh_tail.tokens', tail['tokens'])} of {tail['budget']:,} tok",
    ]
    reported = report.get("reported")
    if reported:
        lines.append(
            f"the API reported {_figure('reported.prompt_tokens', reported['prompt_tokens'])} "
            # requests are numbered from 1 on every page, as report and the app number them
            f"prompt tok at request {_figure('reported.request', reported['request'] + 1)}"
        )
    return "".join(f"<p>{line}</p>" for line in lines)


def _cost(report: dict[str, Any]) -> str:
    """What the recorded requests cost (``report --json``'s ``cost``), by part; empty when the
    session has no priced usage."""
    cost = report.get("cost") or {}
    total = cost.get("total_usd")
    if total is None:
        return ""
    parts = "".join(
        f'<li>{escape(part.replace("_", " "))} <span class="num">${usd:,.4f}</span></li>'
        for part, usd in (cost.get("by_part_usd") or {}).items()
        if usd is not None
    )
    shown = f'recorded <span data-figure="cost.total_usd">${total:,.4f}</span>'
    subs = cost.get("subagents") or 0
    if subs:  # as report prints it: the session's sub-agents run in windows of their own
        with_subs = cost["total_with_subagents_usd"]
        shown += (
            f' · <span data-figure="cost.total_with_subagents_usd">${with_subs:,.4f}</span>'
            f" with {plural(subs, 'sub-agent')}"
        )
    ratio = (report.get("cache") or {}).get("hit_ratio")
    if ratio is not None:
        shown += f' · cache hit ratio <span data-figure="cache.hit_ratio">{ratio:.1%}</span>'
    source = _text(cost.get("price_source") or "")
    return (
        f"<h2>Cost</h2><p>{shown} over "
        f"{plural(cost.get('requests_priced', 0), 'priced request')} "
        f'<span class="muted">({source})</span></p><ul class="legend">{parts}</ul>'
    )


def _marks(m: dict[str, Any]) -> str:
    marks = [word for word in ("pruned", "truncated") if m[word]]
    return f'<span class="mark">{" ".join(marks)}</span>' if marks else ""


def _messages(messages: Sequence[dict[str, Any]]) -> str:
    rows = []
    for m in messages:
        calls = ", ".join(m["tool_names"])  # names: a call id means nothing on the page
        rows.append(
            f'<tr class="zone-{escape(m["zone"])}"><td class="num">{m["index"]:,}</td>'
            f'<td>{escape(m["role"])}</td><td class="num">{m["tokens"]:,}</td>'
            f'<td class="num">{m["sent_tokens"]:,}</td><td>{escape(m["zone"])}</td>'
            f"<td>{_marks(m)}</td><td>{_text(calls)}</td></tr>"
        )
    return (
        '<table id="messages"><caption class="muted">per message: stored and sent tokens, '
        "zone (dropped, kept, fresh tail) and marks</caption>"
        '<thead><tr><th>#</th><th>role</th><th class="num">tokens</th>'
        '<th class="num">sent</th><th>zone</th><th>marks</th><th>tools</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _tools(tools: Sequence[dict[str, Any]]) -> str:
    if not tools:
        return '<p class="muted">no tool calls</p>'
    rows = "".join(
        f'<tr><td>{_text(t["name"])}</td><td class="num">{t["calls"]:,}</td>'
        f'<td class="num">{t["call_tokens"]:,}</td><td class="num">{t["output_tokens"]:,}</td>'
        f'<td class="num">{t["pruned_tokens"]:,}</td>'
        f'<td class="num">{t["truncated_tokens"]:,}</td>'
        f'<td class="num" data-tool-sent="{_text(t["name"])}">{t["sent_tokens"]:,}</td>'
        f'<td class="num">{t["share"] * 100:.1f}%</td></tr>'
        for t in tools
    )
    return (
        '<table id="tools"><thead><tr><th>tool</th><th class="num">calls</th>'
        '<th class="num">call tok</th><th class="num">output tok</th>'
        '<th class="num">pruned</th><th class="num">truncated</th><th class="num">sent</th>'
        f'<th class="num">of prompt</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def _points(values: Iterable[int | None], top: int) -> list[list[tuple[float, float]]]:
    """Polyline runs for ``values`` (a ``None`` breaks the line), in the plot's coordinates."""
    values = list(values)
    width = CHART_WIDTH - CHART_LEFT - 8
    height = CHART_HEIGHT - CHART_BOTTOM - 8
    step = width / max(1, len(values) - 1)
    runs: list[list[tuple[float, float]]] = [[]]
    for i, v in enumerate(values):
        if v is None:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append((CHART_LEFT + i * step, 8 + height * (1 - v / top)))
    return [run for run in runs if run]


def timeline_svg(timeline: dict[str, Any]) -> str:
    """The timeline chart as inline SVG: simulated and reported prompts per request, the
    window and trigger levels, a mark per compaction, each series in its own colour."""
    requests = timeline["requests"]
    simulated: list[int] = [r["simulated_tokens"] for r in requests]
    reported: list[int | None] = [r["reported_tokens"] for r in requests]
    window, trigger = timeline["window"], timeline["trigger_tokens"]
    levels = [(n, v, d) for n, v, d in (("window", window, ""), ("trigger", trigger, "6 4")) if v]
    top: int = max([window, trigger or 0, 1, *simulated, *(v for v in reported if v)])
    height = CHART_HEIGHT - CHART_BOTTOM - 8

    def y(value: int) -> float:
        return 8 + height * (1 - value / top)

    def stroke(name: str) -> str:
        c = SERIES_COLOURS[name]
        return f"light-dark({c['light']}, {c['dark']})"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" '
        f'role="img" aria-label="prompt tokens per request" id="timeline">'
    ]
    right = CHART_WIDTH - 8
    for name, level, dash in levels:
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<line data-series="{name}" x1="{CHART_LEFT}" x2="{right}" y1="{y(level):.1f}" '
            f'y2="{y(level):.1f}" style="stroke:{stroke(name)}" stroke-width="1.5"{dashes}/>'
        )
        parts.append(
            f'<text x="4" y="{y(level) + 4:.1f}" data-figure="timeline.{name}">{level:,}</text>'
        )
    for name, values in (("simulated", simulated), ("reported", reported)):
        for run in _points(values, top):
            points = " ".join(f"{px:.1f},{py:.1f}" for px, py in run)
            parts.append(
                f'<polyline data-series="{name}" points="{points}" fill="none" '
                f'style="stroke:{stroke(name)}" stroke-width="1.5"/>'
            )
    step = (CHART_WIDTH - CHART_LEFT - 8) / max(1, len(requests) - 1)
    for i, r in enumerate(requests):
        kinds = {e["kind"] for e in r["events"]}
        glyph = "R" if "recorded_compaction" in kinds else "C" if "compaction" in kinds else ""
        glyph = "!" if "overflow" in kinds and not glyph else glyph
        if glyph:
            parts.append(
                f'<text class="event" x="{CHART_LEFT + i * step - 3:.1f}" '
                f'y="{CHART_HEIGHT - 6}">{glyph}</text>'
            )
    parts.append(f'<text x="4" y="12">{top:,}</text>')
    parts.append(f'<text x="4" y="{8 + height + 4:.1f}">0</text></svg>')
    legend = "".join(
        f'<li><span class="swatch" style="background:{stroke(name)}"></span>{name}</li>'
        for name in SERIES_COLOURS
    )
    legend += "<li>C compaction</li><li>R recorded compaction</li><li>! over the window</li>"
    return "".join(parts) + f'<ul class="legend">{legend}</ul>'


def timeline_figures(
    args: argparse.Namespace, history: Session | None = None
) -> dict[str, Any] | None:
    """The replay the chart draws, of the session's full history (``history`` when the caller
    has read it) under the report's policy (as ``ctxtui replay`` and the app's timeline read
    it); ``None`` when it cannot be counted."""
    session = history if history is not None else load(args, full_history=True)
    policy = build_policy(args, session)
    walked = Engine(session, default_cache()).run(policy)
    if walked is None:
        return None
    result = walked.replay
    return {
        "window": policy.context_window,
        # the trigger as report states it: the smallest prompt that compacts
        "trigger_tokens": result.policy.trigger,
        "requests": [
            {
                "simulated_tokens": r.simulated_tokens,
                "reported_tokens": r.reported_tokens,
                "events": [{"kind": e.kind.value} for e in r.events],
            }
            for r in result.requests
        ],
    }


def tune_svg(doc: dict[str, Any]) -> str:
    """The tune figure (``core.tuning.figure``) as inline SVG: dollars across, facts lost up,
    each candidate a circle with its compactions (filled on the front, hollow off it), the
    recommended, configured and observed points named R, C and O."""
    from ctxtui.core.tuning.figure import figure, glyph

    fig = figure(doc)
    width, height = CHART_WIDTH - CHART_LEFT - 16, CHART_HEIGHT - CHART_BOTTOM - 16
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" '
        'role="img" aria-label="dollars against facts lost, per candidate" id="tune">',
        f'<line x1="{CHART_LEFT}" x2="{CHART_LEFT}" y1="8" y2="{8 + height}" '
        'stroke="currentColor"/>',
        f'<line x1="{CHART_LEFT}" x2="{CHART_LEFT + width}" y1="{8 + height}" y2="{8 + height}" '
        'stroke="currentColor"/>',
    ]
    for p in sorted(fig.points, key=lambda p: (bool(p.marks), p.front)):
        x = CHART_LEFT + 8 + p.x * (width - 16)
        y = 8 + (1 - p.y) * (height - 16) + 8
        fill = "currentColor" if p.front else "none"
        parts.append(
            f'<circle data-candidate="{p.index}" cx="{x:.1f}" cy="{y:.1f}" r="9" '
            f'fill="{fill}" fill-opacity="0.25" stroke="currentColor"/>'
        )
        shown = escape(glyph(p)) if p.front or p.marks else ""
        parts.append(f'<text x="{x - 4:.1f}" y="{y + 4:.1f}">{shown}</text>')
    lost_low, lost_high = fig.lost_range
    parts.append(f'<text x="4" y="16">{lost_high:,}</text>')
    parts.append(f'<text x="4" y="{8 + height:.1f}">{lost_low:,}</text>')
    if fig.cost_range is None:
        words = escape(f"dollars {fig.cost_words}")
        parts.append(f'<text x="{CHART_LEFT}" y="{CHART_HEIGHT - 6}">{words}</text></svg>')
    else:
        low, high = fig.cost_range
        parts.append(f'<text x="{CHART_LEFT}" y="{CHART_HEIGHT - 6}">${low:,.4f}</text>')
        parts.append(
            f'<text x="{CHART_LEFT + width - 80}" y="{CHART_HEIGHT - 6}">${high:,.4f}</text></svg>'
        )
    legend = (
        "<li>across: dollars (what-if)</li><li>up: needed facts lost</li>"
        "<li>digit: compactions</li><li>R recommended</li><li>C configured</li>"
        "<li>O observed</li><li>hollow: off the front</li>"
    )
    return "".join(parts) + f'<ul class="legend">{legend}</ul>'


def _tuning(report: dict[str, Any]) -> str:
    """The configured values, the observed band, and the tune figure when there is one."""
    from ctxtui.commands.report_blocks import tuning_lines

    lines = "".join(f"<li>{_text(line)}</li>" for line in tuning_lines(report))
    doc = report.get("tune")
    figure = tune_svg(doc) if doc is not None and doc["candidates"] else ""
    if not lines and not figure:
        return ""
    return f"<h2>Tuning</h2>{f'<ul>{lines}</ul>' if lines else ''}{figure}"


def render_html(report: dict[str, Any], timeline: dict[str, Any] | None) -> str:
    """The page: title, figures, gauge, timeline, tables, warnings; nothing loaded."""
    session = report["session"]
    name = session["path"] or "(in memory)"
    policy = report["policy"]
    # The file's name only: a page meant to be shared does not carry the user's directories.
    title = f"ctxtui report · {PurePath(visible(str(name))).name}"
    warnings = "".join(f"<li>{_text(e)}</li>" for e in event_lines(session["events"]))
    warnings += "".join(f'<li class="warning">{_text(w)}</li>' for w in session["warnings"])
    chart = (
        timeline_svg(timeline)
        if timeline is not None and timeline["requests"]
        else '<p class="muted">no requests to replay</p>'
    )
    requests = f" · {plural(len(timeline['requests']), 'request')}" if timeline else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{STYLE}</style>
</head>
<body>
<h1>{escape(title)}</h1>
<p class="muted">{_text(session["format"])} ·
{_figure("session.message_count", session["message_count"])} messages · preset
{_text(policy.get("preset", ""))} · tokenizer {_text(report["tokenizer"]["used"])}</p>
<h2>The next request</h2>
{_summary(report)}
{_gauge(report)}
{_cost(report)}
<h2>Timeline{requests}</h2>
{chart}
<h2>Messages</h2>
{_messages(report["messages"])}
<h2>Tools</h2>
{_tools(report["tools"])}
{_tuning(report)}
{f"<h2>Events and warnings</h2><ul>{warnings}</ul>" if warnings else ""}
<p class="muted">written by ctxtui report --html</p>
</body>
</html>
"""
