"""What the Small LM Index pages show, computed here so templates only place finished text.

Pure functions turn the fitted index into rows, chart points, per-model data and escaped HTML;
``define_index_macros(env)`` registers them with mkdocs-macros. Every string that reaches HTML goes through
``engine.publish.html.esc`` (model names and notes come from data files and are not trusted).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from engine.index.data import DEFAULT_DATA_DIR, lab_scores, load_entries
from engine.index.hardware import DEVICES, Layout, calculator_models, calculator_tables, estimate
from engine.index.index import IndexResult, IndexRow
from engine.index.provenance import CANNOT_CHECK_HERE, UNCHECKED_WHY, unchecked_reason
from engine.index.published import published_index
from engine.index.schema import ALL_BENCHMARKS, CORE_BENCHMARKS, REGIONS, SIZE_CLASS_LIMITS, ModelEntry
from engine.index.validate import ValidationReport, validation_table_markdown
from engine.publish.board import Board
from engine.publish.glossary import aa_title, size_class_definitions, title_attr
from engine.publish.html import esc
from engine.publish.site.context import site_board
from engine.publish.site.own_runs import OwnRun, own_runs_from_board, runs_for

SHORT = {
    "MMLU-Pro": "MMLU-Pro",
    "GPQA Diamond": "GPQA◆",
    "HLE": "HLE",
    "AIME": "AIME",
    "LiveCodeBench": "LCB",
    "SWE-bench Verified": "SWE-V",
}
LABELS = {
    "lab": "Lab-reported",
    "other_lab": "Other lab",
    "independent": "Independent",
    "estimated": "Estimated",
}
SIZE_CLASSES = tuple(label for label, _ in SIZE_CLASS_LIMITS)
# What fills the columns and charts that are empty until then (.github/workflows/index-sync.yml).
WEEKLY_SYNC = "the weekly index sync (Mondays, 05:17 UTC)"
# The calculator opens on these; its model is the best-indexed one that fits them.
CALC_DEFAULT_QUANT = "Q4_K_M"
CALC_DEFAULT_CONTEXT = 8192
# Longer than any model's context window: a larger number is a typing slip, not a question.
CALC_MAX_CONTEXT = 10_000_000


def _num(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


# ------------------------------------------------------------------------------------------------ table


def cell(row: IndexRow, bench: str, excluded: dict[str, str] | None = None) -> dict:
    """One benchmark cell: the shown text, its kind and a hover title. ``excluded``: the core benchmarks the
    index does not estimate (a model that does not report one shows "—" saying so)."""
    score = row.chosen.get(bench)
    if score is not None:
        mark = {"independent": "✓", "other_lab": "*", "lab": ""}[score.measured_by]
        title = LABELS[score.measured_by]
        if score.evaluator:
            title += f": {score.evaluator}"
        if score.variant:
            title += f" ({score.variant})"
        return {
            "text": f"{score.value:.1f}{mark}",
            "kind": score.measured_by,
            "title": title,
            "sort": score.value,
        }
    est = row.estimates.get(bench)
    if est is not None:
        return {
            "text": f"{est.value:.1f}",
            "kind": "estimated",
            "title": f"Estimated, likely {est.low:.1f}–{est.high:.1f}",
            "sort": est.value,
        }
    if excluded and bench in excluded:
        title = "Not reported, and not estimated: the index leaves this benchmark out (see the methodology)"
        return {"text": "—", "kind": "none", "title": title, "sort": None}
    return {"text": "—", "kind": "none", "title": "Not reported", "sort": None}


def table_rows(result: IndexResult) -> list[dict]:
    rows = []
    for rank, row in enumerate(result.ranked(), start=1):
        entry = row.entry
        independent = any(s.measured_by == "independent" for s in row.chosen.values())
        rows.append(
            {
                "rank": rank if row.index is not None else None,
                "id": entry.id,
                "name": entry.name,
                "lab": entry.lab,
                "region": entry.region,
                "size_class": entry.size_class,
                "total_params_b": entry.total_params_b,
                "active_params_b": entry.active_params_b,
                "fully_open": entry.fully_open,
                "fine_tune": entry.fine_tune_of is not None,
                "independent": independent,
                "index": None if row.index is None else round(row.index, 1),
                "index_text": _num(row.index),
                "range_text": "" if row.index is None else f"{row.index_low:.1f}–{row.index_high:.1f}",
                "core_text": f"{row.core_count}/6",
                "cells": [cell(row, b, result.excluded) for b in CORE_BENCHMARKS],
                "blended_price": entry.pricing.blended_per_m if entry.pricing else None,
            }
        )
    return rows


def render_table_html(rows: list[dict], pages: dict[str, str] | None = None) -> str:
    """The sortable, filterable leaderboard; sorting and filters are in assets/index/index-table.js.

    ``pages`` maps a model id to its page folder under ``models/`` (``ModelPages.index_page``); an id not in
    it has its page at ``models/<id>/``.
    """
    pages = pages or {}
    region_opts = "".join(f'<option value="{esc(r)}">{esc(r)}</option>' for r in REGIONS)
    sizes = size_class_definitions()
    size_opts = "".join(f'<option value="{esc(s)}"{title_attr(sizes[s])}>{esc(s)}</option>' for s in SIZE_CLASSES)
    filters = (
        '<div class="sli-filters">'
        f'<label{title_attr("; ".join(sizes.values()))}>Size <select data-filter="size">'
        f'<option value="">All</option>{size_opts}</select></label> '
        '<label>Region <select data-filter="region"><option value="">All</option>'
        f"{region_opts}</select></label> "
        '<label><input type="checkbox" data-filter="open"> Fully open</label> '
        '<label><input type="checkbox" data-filter="hide-ft"> Hide fine-tunes</label> '
        '<label><input type="checkbox" data-filter="independent"> Independently measured</label>'
        "</div>"
    )
    # A column no model has a figure for yet is left out, and one line says what fills it.
    priced = any(r["blended_price"] is not None for r in rows)
    head = ["#", "Model", "Index", "Core", *[SHORT[b] for b in CORE_BENCHMARKS], "Params (B)"]
    kinds = ["num", "text", "num", "num", *["num"] * len(CORE_BENCHMARKS), "num"]
    if priced:
        head, kinds = [*head, "Price $/M"], [*kinds, "num"]
    titles = {SHORT[b]: b for b in CORE_BENCHMARKS}
    ths = "".join(
        f'<th scope="col" data-sort="{k}" tabindex="0" title="{esc(titles.get(h, h))}">{esc(h)}</th>'
        for h, k in zip(head, kinds, strict=True)
    )
    body = []
    for r in rows:
        index_title = "likely " + r["range_text"] if r["range_text"] else "fewer than 2 core benchmarks"
        attrs = (
            f'data-size="{esc(r["size_class"])}" data-region="{esc(r["region"])}" '
            f'data-open="{int(r["fully_open"])}" data-ft="{int(r["fine_tune"])}" '
            f'data-independent="{int(r["independent"])}"'
        )
        page = pages.get(r["id"], r["id"])
        name = f'<a href="../models/{esc(page)}/">{esc(r["name"])}</a><br><small>{esc(r["lab"])}</small>'
        tds = [
            f'<td data-value="{esc(r["rank"] or "")}">{esc(r["rank"] or "")}</td>',
            f'<td data-value="{esc(r["name"].lower())}">{name}</td>',
            f'<td data-value="{esc(r["index"] if r["index"] is not None else "")}" '
            f'title="{esc(index_title)}">'
            f"<strong>{esc(r['index_text'])}</strong></td>",
            f'<td data-value="{esc(r["core_text"][0])}">{esc(r["core_text"])}</td>',
        ]
        for c in r["cells"]:
            value = "" if c["sort"] is None else f"{c['sort']:.2f}"
            tds.append(
                f'<td class="sli-{esc(c["kind"])}" data-value="{esc(value)}" title="{esc(c["title"])}">'
                f"{esc(c['text'])}</td>"
            )
        params = r["total_params_b"]
        params_text = f"{params:g}" + (f" ({r['active_params_b']:g} active)" if r["active_params_b"] else "")
        tds.append(f'<td data-value="{esc(params)}">{esc(params_text)}</td>')
        if priced:
            price = r["blended_price"]
            tds.append(f'<td data-value="{esc("" if price is None else price)}">{esc(_num(price, 2))}</td>')
        body.append(f"<tr {attrs}>{''.join(tds)}</tr>")
    pending = (
        ""
        if priced
        else f'<p class="sli-pending">Prices are not shown yet: {WEEKLY_SYNC} fills them from OpenRouter.</p>'
    )
    return (
        f'<div class="sli-index">{filters}{table_legend()}<p class="sli-count" aria-live="polite"></p>'
        f'<div class="sli-scroll" tabindex="0" role="region" aria-label="Small LM Index table">'
        f'<table class="sli-table"><thead><tr>{ths}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{pending}</div>"
    )


def table_legend() -> str:
    """Every mark the table uses, once, beside it."""
    items = (
        ("<b>✓</b>", "independent measurement"),
        ("<b>*</b>", "from another lab's comparison"),
        ('<span class="sli-estimated">41.0</span>', "estimate (not reported)"),
        ("<b>—</b>", "not reported and not estimated"),
        ("<b>◆</b>", "GPQA◆ is GPQA Diamond"),
    )
    body = "".join(f"<li>{mark} {text}</li>" for mark, text in items)
    return f'<ul class="sli-legend" aria-label="Marks in the table">{body}</ul>'


def render_front_html(rows: list[dict], pages: dict[str, str], root: str, count: int) -> str:
    """The index's part of the front page: its best models with their likely ranges."""
    body = "".join(
        f"<tr><td>{r['rank']}</td>"
        f'<td><a href="{esc(root)}models/{esc(pages.get(r["id"], r["id"]))}/">{esc(r["name"])}</a></td>'
        f"<td>{esc(format(r['total_params_b'], 'g'))}B</td>"
        f"<td><strong>{esc(r['index_text'])}</strong> <small>({esc(r['range_text'])})</small></td></tr>"
        for r in rows
        if r["rank"] is not None
    )
    return (
        f"<p>The Small LM Index joins what labs and evaluators report on public benchmarks into one number for "
        f"<strong>{count}</strong> open-weight models. The top of it:</p>"
        "<table><thead><tr><th>#</th><th>Model</th><th>Params</th><th>Index (likely range)</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


# ------------------------------------------------------------------------------------------------ charts


def chart_points(result: IndexResult, x: str) -> list[dict]:
    """Points of a chart of the index against ``x``: "params" (total, B) or "price" (blended $/M)."""
    points = []
    for row in result.rows:
        if row.index is None:
            continue
        entry = row.entry
        if x == "params":
            value = entry.total_params_b
        elif x == "speed":
            if entry.speed is None:  # our measurements only; the axis appears once there are some
                continue
            value = entry.speed.output_tokens_per_s
        elif x == "price":
            if entry.pricing is None or entry.pricing.blended_per_m <= 0:
                continue
            value = entry.pricing.blended_per_m
        else:
            raise ValueError(f"unknown chart axis {x!r}")
        points.append(
            {"id": entry.id, "name": entry.name, "x": value, "y": round(row.index, 2), "region": entry.region}
        )
    return points


def render_scatter_svg(points: list[dict], x_label: str, width: int = 720, height: int = 420) -> str:
    """A static scatter (log x axis) as inline SVG: no script, no outside request."""
    if not points:
        return f'<p class="sli-empty">No model has this figure yet: {WEEKLY_SYNC} fills this chart.</p>'
    left, right, top, bottom = 56, 16, 16, 48
    xs = [math.log10(p["x"]) for p in points]
    x_lo, x_hi = math.floor(min(xs)), math.ceil(max(xs))
    if x_hi == x_lo:
        x_hi += 1
    y_lo, y_hi = 0.0, max(10.0, math.ceil(max(p["y"] for p in points) / 10) * 10)

    def px(v: float) -> float:
        return left + (math.log10(v) - x_lo) / (x_hi - x_lo) * (width - left - right)

    def py(v: float) -> float:
        return height - bottom - (v - y_lo) / (y_hi - y_lo) * (height - top - bottom)

    parts = [
        f'<svg class="sli-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{esc("Small LM Index against " + x_label)}">'
    ]
    for e in range(x_lo, x_hi + 1):
        x = px(10.0**e)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" class="grid"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">{esc(f"{10.0**e:g}")}</text>')
    for v in range(int(y_lo), int(y_hi) + 1, 10):
        y = py(v)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v}</text>')
    for p in points:
        parts.append(
            f'<circle cx="{px(p["x"]):.1f}" cy="{py(p["y"]):.1f}" r="4" '
            f'data-region="{esc(p["region"])}"><title>{esc(p["name"])}: {p["y"]:.1f} '
            f"at {esc(format(p['x'], 'g'))}</title></circle>"
        )
    parts.append(f'<text x="{(width + left) / 2:.0f}" y="{height - 8}" text-anchor="middle">{esc(x_label)}</text>')
    parts.append(
        f'<text x="14" y="{(height - bottom) / 2:.0f}" transform="rotate(-90 14 '
        f'{(height - bottom) / 2:.0f})" text-anchor="middle">Small LM Index</text>'
    )
    parts.append("</svg>")
    return "".join(parts) + chart_legend(sorted({p["region"] for p in points}, key=REGIONS.index))


def chart_legend(regions: Sequence[str]) -> str:
    """Which colour is which region (index.css colours the dots by their data-region, in both palettes)."""
    items = "".join(f'<li><span class="sli-dot" data-region="{esc(r)}"></span>{esc(r)}</li>' for r in regions)
    return f'<ul class="sli-chart-legend" aria-label="Regions">{items}</ul>'


# ------------------------------------------------------------------------------------------------ model page


def speed_facts(entry: ModelEntry) -> dict | None:
    """The speed a model page shows: our measurement when we have one, else Artificial Analysis's median."""
    if entry.speed is not None:
        s = entry.speed
        return {
            "kind": "measured",
            "output_tokens_per_s": s.output_tokens_per_s,
            "ttft_s": s.ttft_s,
            "source": (
                f"our measurement: median of {s.runs} streamed runs of one fixed prompt "
                f"({s.prompt_tokens or '?'} prompt tokens, up to {s.max_output_tokens} output tokens) "
                f"through {s.endpoint}, served by {s.provider}, {s.measured.isoformat()}"
            ),
            "source_url": None,
            "date": s.measured.isoformat(),
        }
    if entry.aa_speed is not None:
        a = entry.aa_speed
        return {
            "kind": "aa",
            "output_tokens_per_s": a.output_tokens_per_s,
            "ttft_s": a.ttft_s,
            "source": f"Artificial Analysis, median across the providers they measure (synced {a.synced})",
            "source_url": a.source_url,
            "date": a.synced.isoformat(),
        }
    return None


# GitHub's issue forms read field values from the query string, keyed by each field's id.
CORRECTION_FORM = "correction.yml"
MODEL_REQUEST_FORM = "model-request.yml"


def correction_url(repo_url: str | None, model_id: str | None = None, model_name: str | None = None) -> str | None:
    """Link to the correction form, with the model filled in when one is named; None when the site has no
    repository address."""
    if not repo_url:
        return None
    fields = {"template": CORRECTION_FORM}
    if model_id is not None:
        fields |= {"title": f"Correction: {model_name or model_id}", "model": model_id}
    query = urlencode(fields)
    return f"{repo_url.rstrip('/')}/issues/new?{query}"


def model_page_data(
    result: IndexResult,
    model_id: str,
    own_runs: Sequence[OwnRun] = (),
    repo_url: str | None = None,
) -> dict:
    row = result.row(model_id)
    if row is None:
        raise KeyError(model_id)
    entry = row.entry
    lab_own = lab_scores(entry)
    reported, estimated = [], []
    for bench in ALL_BENCHMARKS:
        score = row.chosen.get(bench)
        if score is not None:
            replaced = lab_own.get(bench) if score.measured_by == "independent" else None
            reported.append(
                {
                    "benchmark": bench,
                    "core": bench in CORE_BENCHMARKS,
                    "value": score.value,
                    "label": LABELS[score.measured_by],
                    "kind": score.measured_by,
                    "variant": score.variant,
                    "evaluator": score.evaluator,
                    "source_url": score.source_url,
                    "checked": None if score.checked is None else score.checked.isoformat(),
                    "unchecked": unchecked_reason(score),
                    "unreadable": score.unreadable,
                    "secondary_url": score.secondary_url,
                    "needs_verification": score.needs_verification,
                    "lab_value": None if replaced is None else replaced.value,
                }
            )
        elif bench in row.estimates:
            est = row.estimates[bench]
            estimated.append(
                {
                    "benchmark": bench,
                    "core": bench in CORE_BENCHMARKS,
                    "value": round(est.value, 1),
                    "low": round(est.low, 1),
                    "high": round(est.high, 1),
                    "capped": est.capped,
                    "item": est.item,
                }
            )
    not_estimated = [
        {"benchmark": b, "reason": why} for b, why in result.excluded.items() if b not in row.chosen
    ]
    earlier = None
    if entry.earlier_version is not None:
        earlier = {
            "name": entry.earlier_version.name,
            "scores": [
                {"benchmark": s.benchmark, "value": s.value, "source_url": s.link}
                for s in entry.earlier_version.scores
            ],
        }
    sources = sorted({s.link for s in entry.scores})
    return {
        "id": entry.id,
        "name": entry.name,
        "lab": entry.lab,
        "region": entry.region,
        "size_class": entry.size_class,
        "total_params_b": entry.total_params_b,
        "active_params_b": entry.active_params_b,
        "fully_open": entry.fully_open,
        "fine_tune_of": entry.fine_tune_of,
        "hf_repo": entry.hf_repo,
        "checked": None if entry.checked is None else entry.checked.isoformat(),
        "verified": sum(1 for s in entry.scores if s.verified),
        "index_text": _num(row.index),
        "range_text": "" if row.index is None else f"{row.index_low:.1f}–{row.index_high:.1f}",
        "core_text": f"{row.core_count}/6",
        "reported": reported,
        "estimated": estimated,
        "not_estimated": not_estimated,
        "earlier": earlier,
        "sources": sources,
        "pricing": None if entry.pricing is None else entry.pricing.model_dump(mode="json"),
        "hub": None if entry.hub is None else entry.hub.model_dump(mode="json"),
        "needs_verification": sum(1 for s in entry.scores if s.needs_verification),
        "speed": speed_facts(entry),
        "own_runs": [r.__dict__ | {"label": r.label} for r in runs_for(entry, own_runs)],
        "correction_url": correction_url(repo_url, entry.id, entry.name),
    }


def render_model_html(data: dict) -> str:
    out = [f'<div class="sli-model" data-model="{esc(data["id"])}">']
    rng = f' <span class="sli-range">(likely {esc(data["range_text"])})</span>' if data["range_text"] else ""
    out.append(
        f'<p class="sli-headline">Small LM Index <strong>{esc(data["index_text"])}</strong>{rng} · '
        f"{esc(data['core_text'])} core benchmarks reported · {esc(data['lab'])} · {esc(data['region'])} · "
        f"{esc(format(data['total_params_b'], 'g'))}B</p>"
    )
    out.append(
        '<div class="sli-scroll" tabindex="0" role="region" aria-label="reported scores">'
        '<table class="sli-scores"><thead><tr><th>Benchmark</th><th>Score</th><th>Label</th>'
        "<th>Variant</th><th>Source</th></tr></thead><tbody>"
    )
    for s in data["reported"]:
        label = s["label"] + (f": {s['evaluator']}" if s["evaluator"] else "")
        lab_note = f"<br><small>lab reported {esc(s['lab_value'])}</small>" if s["lab_value"] is not None else ""
        flag = ' <small class="sli-verify">needs verification</small>' if s["needs_verification"] else ""
        out.append(
            f'<tr class="sli-{esc(s["kind"])}"><td>{esc(s["benchmark"])}{" ★" if s["core"] else ""}</td>'
            f"<td>{esc(format(s['value'], '.1f'))}{lab_note}</td>"
            f'<td title="{esc(label)}">{esc(s["label"])}</td>'
            f"<td{aa_title(s['variant'] or '')}>{esc(s['variant'] or '')}</td>"
            f"<td>{source_cell(s)}{flag}</td></tr>"
        )
    for r in data.get("own_runs", []):
        score = "—" if r["pass_k"] is None else format(r["pass_k"], ".1f")
        out.append(
            f'<tr class="sli-ours"><td>{esc(r["label"])}</td><td>{esc(score)}</td>'
            f'<td title="run on our own harness">Our measurement</td>'
            f"<td><small>{esc(r['settings'])}; {esc(r['tasks_scored'])} tasks scored</small></td>"
            f"<td><code>{esc(r['file'])}</code></td></tr>"
        )
    out.append("</tbody></table></div>")
    out.append(
        '<p class="sli-note"><small>★ one of the six core benchmarks; the index averages those it can estimate '
        "(see the methodology). Every score is on the 0–100 scale.</small></p>"
    )
    if data.get("own_runs"):
        out.append(
            '<p class="sli-note"><small>Our measurement is small-llm-bench\'s pass^k (0–100) from our '
            "own run of the model, the figure its leaderboard row shows (on the judged verdicts where the run "
            "was judged); it is not one of the index's benchmarks and does not enter the index.</small></p>"
        )
    out.append(render_speed_html(data.get("speed")))
    if data["estimated"]:
        out.append('<h3>Not reported: estimated</h3><ul class="sli-estimates">')
        for e in data["estimated"]:
            capped = " (capped at the best reported score)" if e["capped"] else ""
            name = e["benchmark"] + (f" (as {e['item']})" if e.get("item") else "")
            out.append(
                f'<li class="sli-estimated">{esc(name)}: {esc(format(e["value"], ".1f"))} '
                f"<small>likely {esc(format(e['low'], '.1f'))}–{esc(format(e['high'], '.1f'))}"
                f"{esc(capped)}</small></li>"
            )
        out.append("</ul>")
    if data.get("not_estimated"):
        names = ", ".join(esc(n["benchmark"]) for n in data["not_estimated"])
        out.append(
            f'<p class="sli-note"><small>Not reported and not estimated: {names}. Its held-out estimates were '
            "no better than knowing nothing, so the index leaves it out of its average for every model (see the "
            "methodology).</small></p>"
        )
    # The section the methodology describes is on every page, so a reader knows where to look for one.
    if data["earlier"]:
        out.append(
            f'<h3 id="earlier-version">Earlier version: {esc(data["earlier"]["name"])}</h3><p><small>Context only: '
            "these never count toward the index.</small></p><ul>"
        )
        for s in data["earlier"]["scores"]:
            out.append(
                f"<li>{esc(s['benchmark'])}: {esc(s['value'])} "
                f'(<a href="{esc(s["source_url"])}" rel="nofollow">source</a>)</li>'
            )
        out.append("</ul>")
    else:
        out.append(
            '<h3 id="earlier-version">Earlier version</h3><p class="sli-note"><small>No earlier version\'s scores '
            "are recorded for this model. When there are, they are listed here for context and never count "
            "toward the index.</small></p>"
        )
    out.append(
        f"<p><small>{esc(checked_line(data))}</small></p><h3>Sources</h3>"
        '<ol class="sli-sources">'
    )
    out.extend(f'<li><a href="{esc(u)}" rel="nofollow">{esc(u)}</a></li>' for u in data["sources"])
    out.append("</ol>")
    if data.get("correction_url"):
        out.append(
            f'<p class="sli-correct"><a href="{esc(data["correction_url"])}" rel="nofollow">Report a wrong '
            "figure for this model</a> (a link to the source is required).</p>"
        )
    out.append("</div>")
    return "".join(out)


def source_cell(s: dict) -> str:
    """The primary document's link with the date it was checked, or the copy the figure was read from."""
    parts = []
    if s["source_url"]:
        parts.append(f'<a href="{esc(s["source_url"])}" rel="nofollow">source</a>')
    if s.get("secondary_url"):
        parts.append(f'<a href="{esc(s["secondary_url"])}" rel="nofollow">read from a copy</a>')
    if s.get("checked"):
        parts.append(f"<small>checked {esc(s['checked'])}</small>")
    elif s.get("unreadable"):
        parts.append(f"<small>not readable here: {esc(s['unreadable'])}</small>")
    return " · ".join(parts)


def checked_line(data: dict) -> str:
    """How many of the figures shown were compared with their primary document, and why the others were not.

    The date is the latest check of a figure shown, never of one this page does not show (a lab's figure an
    independent one replaced), so "none checked" never comes with a date.
    """
    shown = data["reported"]
    dates = sorted(s["checked"] for s in shown if s.get("checked"))
    if not shown:
        return "No figure is reported for this model."
    if dates:
        head = (
            f"Checked against their primary document: {len(dates)} of the {len(shown)} figures shown "
            f"(latest check {dates[-1]})."
        )
    else:
        head = f"None of the {len(shown)} figures shown has been checked against its primary document yet."
    counts: dict[str, int] = {}
    for s in shown:
        if s.get("unchecked"):
            counts[s["unchecked"]] = counts.get(s["unchecked"], 0) + 1
    parts = [f"{n} {UNCHECKED_WHY[why]}" for why, n in counts.items()]
    return head + ("" if not parts else " Unchecked: " + "; ".join(parts) + ".")


def render_speed_html(speed: dict | None) -> str:
    if speed is None:
        return (
            '<h3>Speed</h3><p class="sli-speed sli-speed-none">No speed figure yet: we have not measured this '
            f"model, and {WEEKLY_SYNC} adds Artificial Analysis's median once they list it.</p>"
        )
    tps = "—" if speed["output_tokens_per_s"] is None else f"{speed['output_tokens_per_s']:.1f} tokens/s"
    ttft = "—" if speed["ttft_s"] is None else f"{speed['ttft_s']:.2f} s"
    source = esc(speed["source"])
    if speed["source_url"]:
        source = f'<a href="{esc(speed["source_url"])}" rel="nofollow">{source}</a>'
    return (
        f'<h3>Speed</h3><p class="sli-speed sli-speed-{esc(speed["kind"])}">Output {esc(tps)} · '
        f"time to first token {esc(ttft)}<br><small>Source: {source}</small></p>"
    )


# ------------------------------------------------------------------------------------------------ page plan


@dataclass(frozen=True)
class ModelPages:
    """Where each model's page lives under ``models/``, when the board and the index share one folder.

    A board row (one of our runs, page ``models/<slug>/``) belongs to an index model when the run's model name
    is the model's id or is listed in its ``bench_models`` (the rule ``runs_for`` uses). Such a model gets one
    page, at the row's slug, holding the card and the index section; a model with several matching rows has
    its page at the first slug, and the other rows' pages link to it. An index model with no row has its page
    at its id, or at ``<id>-index`` (then ``-index-2`` ...) when a board slug already takes that folder or the
    id is ``index`` (``models/index.md`` would be ``models/`` itself).
    """

    index_page: dict[str, str]  # index id -> page folder
    merged: dict[str, str]  # board slug -> index id shown in full on that page
    also: dict[str, str]  # board slug -> index id whose page is another row's

    def index_only(self) -> list[str]:
        """The ids whose page the board does not make: every id not shown in full on a row's page."""
        shown = set(self.merged.values())
        return [i for i in self.index_page if i not in shown]


def plan_model_pages(rows: Sequence[tuple[str, str]], entries: Sequence[ModelEntry]) -> ModelPages:
    """``rows`` are the board's (run model name, slug) pairs; ``entries`` the index models."""
    ids = sorted(e.id for e in entries)
    by_bench: dict[str, list[str]] = {}
    for e in sorted(entries, key=lambda e: e.id):
        for name in e.bench_models:
            by_bench.setdefault(name, []).append(e.id)
    known = set(ids)
    matched: dict[str, list[str]] = {}
    for name, slug in sorted(rows, key=lambda r: r[1]):
        # The id itself wins over another model's bench_models; between bench_models, the first id.
        model_id = name if name in known else next(iter(by_bench.get(name, [])), None)
        if model_id is not None:
            matched.setdefault(model_id, []).append(slug)
    index_page: dict[str, str] = {}
    merged: dict[str, str] = {}
    also: dict[str, str] = {}
    for model_id, slugs in matched.items():
        index_page[model_id] = slugs[0]
        merged[slugs[0]] = model_id
        also.update({slug: model_id for slug in slugs[1:]})
    taken = {slug for _, slug in rows} | known
    for model_id in ids:
        if model_id in index_page:
            continue
        folder = model_id
        # models/index.md would be the folder's own page (models/), not models/index/.
        if folder in {slug for _, slug in rows} or folder == "index":
            folder, n = f"{model_id}-index", 1
            while folder in taken:
                n += 1
                folder = f"{model_id}-index-{n}"
            taken.add(folder)
        index_page[model_id] = folder
    return ModelPages(index_page=dict(sorted(index_page.items())), merged=merged, also=also)


# ------------------------------------------------------------------------------------------------ calculator


def calculator_default(models: list[dict], index: dict[str, float] | None = None) -> int:
    """The model the calculator opens on: the best-indexed one that fits the first device at the default
    quantisation and context (the first that fits when no index is given); 0 when none fits."""
    device = DEVICES[0]
    fitting = [
        i
        for i, m in enumerate(models)
        if estimate(
            Layout(**{k: v for k, v in m.items() if k not in ("id", "name")}),
            CALC_DEFAULT_QUANT,
            CALC_DEFAULT_CONTEXT,
            device,
        ).fits
    ]
    if not fitting:
        return 0
    scores = index or {}
    return max(fitting, key=lambda i: (scores.get(models[i]["id"], -1.0), -i))


def calculator_json(entries: list[ModelEntry], index: dict[str, float] | None = None) -> str:
    """Data for the calculator page: JSON with no ``<``, ``>`` or ``&`` (the page holds it, HTML-escaped, in
    a ``data-`` attribute). ``index`` maps a model id to its index, to choose the model the page opens on."""
    models = calculator_models(entries)
    defaults = {
        "model": calculator_default(models, index),
        "quant": CALC_DEFAULT_QUANT,
        "context": CALC_DEFAULT_CONTEXT,
    }
    text = json.dumps({"tables": calculator_tables(), "models": models, "defaults": defaults}, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render_calculator_html(entries: list[ModelEntry], index: dict[str, float] | None = None) -> str:
    # The data sits in an attribute, not in a <script type="application/json">: Material's instant navigation
    # re-creates every <script> of the page without its type and id, which would run the JSON and lose it.
    return (
        f'<div class="cir-form" id="cir-data" data-cir="{esc(calculator_json(entries, index))}">'
        '<label>Model <select id="cir-model"></select></label>'
        '<label>Device <select id="cir-device"></select></label>'
        '<label>Quantisation <select id="cir-quant"></select></label>'
        "<label>Context (tokens) "
        f'<input id="cir-context" type="number" min="1" max="{CALC_MAX_CONTEXT}" step="1024" '
        f'value="{CALC_DEFAULT_CONTEXT}" aria-describedby="cir-error"></label>'
        "</div>"
        '<p id="cir-error" class="cir-error" role="alert" hidden></p>'
        '<table class="cir-result"><tbody>'
        '<tr><th>Weights</th><td id="cir-weights"></td></tr>'
        '<tr><th>Context cache</th><td id="cir-cache"></td></tr>'
        '<tr><th>Runtime buffers</th><td id="cir-runtime"></td></tr>'
        '<tr><th>Total</th><td id="cir-total"></td></tr>'
        '<tr><th>Verdict</th><td id="cir-fits"></td></tr>'
        '<tr><th>Decode speed</th><td id="cir-speed"></td></tr>'
        "</tbody></table>"
    )


# ------------------------------------------------------------------------------------------------ macros


class IndexSite:
    """Everything the index pages need, loaded and fitted once per build; no key or network involved.

    ``project_dir`` is the repository root; the hook that writes one page per index model can use
    ``IndexSite(root).model_html(model_id)`` for each id in ``model_ids``. ``board`` gives the site's Board
    (asked for once, on the first page that needs our own runs); without it no page shows one.
    """

    def __init__(
        self,
        project_dir: Path | None = None,
        data_dir: Path = DEFAULT_DATA_DIR,
        repo_url: str | None = None,
        board: Callable[[], Board] | None = None,
    ) -> None:
        self.data_dir = data_dir if project_dir is None or data_dir.is_absolute() else project_dir / data_dir
        self.repo_url = repo_url
        self.board = board
        self._cache: dict[str, Any] = {}

    def entries(self) -> list[ModelEntry]:
        if "entries" not in self._cache:
            self._cache["entries"] = load_entries(self.data_dir)
        return self._cache["entries"]

    def result(self) -> IndexResult:
        if "result" not in self._cache:
            self._cache["result"], self._cache["validation"] = published_index(self.entries())
        return self._cache["result"]

    def own_runs(self) -> list[OwnRun]:
        """Our runs as the Board has them: its rows, not a second reading of the result files."""
        if "runs" not in self._cache:
            self._cache["runs"] = [] if self.board is None else own_runs_from_board(self.board())
        return self._cache["runs"]

    @property
    def model_ids(self) -> list[str]:
        return [e.id for e in self.entries()]

    def model_data(self, model_id: str) -> dict:
        return model_page_data(self.result(), model_id, self.own_runs(), self.repo_url)

    def model_html(self, model_id: str) -> str:
        return render_model_html(self.model_data(model_id))

    def has_speed(self) -> bool:
        return any(e.speed is not None for e in self.entries())

    def validation(self) -> ValidationReport:
        if "validation" not in self._cache:
            self.result()
        return self._cache["validation"]


CHART_LABELS = {
    "params": "Total parameters (billions, log scale)",
    "price": "Blended price, USD per million tokens (log scale)",
    "speed": "Measured output speed, tokens per second (log scale)",
}


def chosen_core(row: IndexRow) -> list:
    return [s for b, s in row.chosen.items() if b in CORE_BENCHMARKS]


def define_index_macros(env: Any, data_dir: Path = DEFAULT_DATA_DIR) -> None:
    """Register the index macros. Data is loaded and fitted once, on first use, per site build."""
    project = Path(env.project_dir) if hasattr(env, "project_dir") else None
    conf = getattr(env, "conf", None) or {}
    # The Board is there only in a real build (a config file to find the results from).
    in_build = hasattr(conf, "get") and conf.get("config_file_path")
    site = IndexSite(
        project,
        data_dir,
        repo_url=conf.get("repo_url") if hasattr(conf, "get") else None,
        board=(lambda: site_board(conf)) if in_build else None,
    )

    def page_folders() -> dict[str, str]:
        """Each index model's page folder, as the hook planned it (the board's rows can take a folder)."""
        if site.board is None:
            return {}
        rows = [(r.model, r.slug) for r in site.board().rows]
        return plan_model_pages(rows, site.entries()).index_page

    @env.macro
    def index_table() -> str:
        return render_table_html(table_rows(site.result()), page_folders())

    @env.macro
    def index_front(limit: int = 5) -> str:
        page = getattr(env, "page", None)
        root = "../" * (getattr(page, "url", "") or "").count("/")
        rows = [r for r in table_rows(site.result()) if r["rank"] is not None][:limit]
        return render_front_html(rows, page_folders(), root, len(site.result().rows))

    @env.macro
    def index_chart(axis: str) -> str:
        if axis == "speed" and not site.has_speed():
            return ""
        return render_scatter_svg(chart_points(site.result(), axis), CHART_LABELS[axis])

    @env.macro
    def index_has_speed() -> bool:
        return site.has_speed()

    @env.macro
    def index_model(model_id: str) -> str:
        return site.model_html(model_id)

    @env.macro
    def can_i_run() -> str:
        index = {r.entry.id: r.index for r in site.result().rows if r.index is not None}
        return render_calculator_html(site.entries(), index)

    @env.macro
    def index_validation_table() -> str:
        return validation_table_markdown(site.validation())

    @env.macro
    def index_counts() -> dict:
        result = site.result()
        rows = result.rows
        return {
            "index_benchmarks": list(result.index_benchmarks),
            "excluded": list(result.excluded),
            "models": len(rows),
            "with_index": sum(1 for r in rows if r.index is not None),
            "needs_verification": sum(1 for r in rows if any(s.needs_verification for s in r.entry.scores)),
            "figures": sum(len(chosen_core(r)) for r in rows),
            "verified": sum(1 for r in rows for s in chosen_core(r) if s.verified),
            # Unverified figures no one can check from here (provenance.CANNOT_CHECK_HERE says which).
            "cannot_check": sum(1 for r in rows for s in chosen_core(r) if unchecked_reason(s) in CANNOT_CHECK_HERE),
            "with_speed": sum(1 for r in rows if r.entry.speed is not None),
            "with_aa_speed": sum(1 for r in rows if r.entry.speed is None and r.entry.aa_speed is not None),
        }

    env.variables["index_model_ids"] = site.model_ids
