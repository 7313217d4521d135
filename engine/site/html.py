"""HTML for the leaderboard, the model cards and the separability tables, from a ``Board`` and nothing else.

The site's macros and hook and the single-file ``leaderboard.html`` all call these functions, so the three
show the same thing. Rules kept here:

* Every string that came from a result file or models.yaml goes through ``esc`` (model names, notes,
  settings, task ids); a URL from models.yaml is shown only when it is http(s). JSON placed in a page has
  ``<``, ``>`` and ``&`` written as unicode escapes, so no data can close its script element.
* No arithmetic: every number is a ``Board`` field, only formatted here (digits, percent sign).
* Links are made by a ``Links`` object, since the site links to pages and the single file to anchors.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.board import Board, PairRow, Row

STATIC_DIR = Path(__file__).resolve().parent / "static"
# Shown at most on the separability page; the full list is in leaderboard.json.
MAX_PAIRS_SHOWN = 300


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def safe_json(data: Any) -> str:
    """JSON that is safe inside a <script type="application/json"> element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def safe_url(url: str | None) -> str | None:
    if url and (url.startswith("https://") or url.startswith("http://")):
        return url
    return None


def fmt(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def fmt_share(value: float | None) -> str:
    """A 0-1 share shown as a percent (the board stores shares; showing one is formatting)."""
    return "—" if value is None else f"{value:.0%}"


def data_v(value: float | None) -> str:
    """The sort attribute of a numeric cell; a cell without one sorts last."""
    return "" if value is None else f' data-v="{round(value, 4)!r}"'


def static_text(name: str) -> str:
    return (STATIC_DIR / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Links:
    """Where links point. ``root`` is the relative path from the current page to the site root."""

    root: str = ""
    # "page": site pages (models/<slug>/); "anchor": sections of one file (#m-<slug>).
    mode: str = "page"

    def model(self, slug: str) -> str:
        return f"#m-{slug}" if self.mode == "anchor" else f"{self.root}models/{slug}/"

    def separability(self) -> str:
        return "#separability" if self.mode == "anchor" else f"{self.root}separability/"

    def reading(self) -> str:
        return "#reading" if self.mode == "anchor" else f"{self.root}reading-the-leaderboard/"

    def plotly(self) -> str:
        return "" if self.mode == "anchor" else f"{self.root}assets/plotly.min.js"


# ----------------------------------------------------------------------------------------------------------
# Small pieces


def chip(board: Board, links: Links) -> str:
    s = board.separability
    return (
        f'<a class="lb-chip" href="{esc(links.separability())}" title="pairs the bank can tell apart: sign '
        f'test over shared tasks, Holm-corrected across all pairs">{s.separable_count} of {s.pair_count} '
        f"pairs separable</a>"
    )


def tier_badge(tier: str | None) -> str:
    return f'<span class="lb-tb t-{esc(tier)}">{esc(tier)}</span>' if tier else ""


def size_badge(row: Row) -> str:
    return f'<span class="lb-badge">{esc(row.size.badge)}</span>' if row.size.badge else ""


def warn_mark(row: Row) -> str:
    marks = []
    if row.judge_state == "partial":
        mods = ", ".join(row.uncovered_modules)
        marks.append(f'<span class="lb-warn" title="judge did not cover every trial: {esc(mods)}">⚠</span>')
    if row.judge_state == "fallback":
        marks.append('<span class="lb-unj">unjudged</span>')
    if row.flags:
        text = "; ".join(f"{f.field}: {f.value} (most rows: {f.common})" for f in row.flags)
        marks.append(f'<span class="lb-flag" title="settings differ from the board: {esc(text)}">⚑</span>')
    return "".join(marks)


def _bar(row: Row, links: Links) -> str:
    hatch = " h" if row.judge_state == "fallback" else ""
    width = fmt(row.headline)
    return (
        f'<a class="lb-b" href="{esc(links.model(row.slug))}"><span class="n">{esc(row.model)}'
        f"{size_badge(row)}{warn_mark(row)}</span>"
        f'<span class="t"><i class="f{hatch}" style="width:{width}%"></i></span>'
        f"<b>{fmt(row.headline)}</b></a>"
    )


def _axis() -> str:
    ticks = "".join(f'<span style="left:{v}%">{v}</span>' for v in (0, 30, 45, 60, 70, 80, 90, 100))
    return f'<div class="lb-axis"><span class="n"></span><span class="t">{ticks}</span><b></b></div>'


# ----------------------------------------------------------------------------------------------------------
# The leaderboard


def tiers_panel(board: Board, links: Links) -> str:
    by_slug = {r.slug: r for r in board.rows}
    parts = [_axis()]
    for group in board.tiers:
        bars = "".join(_bar(by_slug[s], links) for s in group.slugs)
        empty = "" if group.slugs else '<p class="lb-empty">No model in this tier.</p>'
        parts.append(
            f'<div class="lb-tier" data-tier="{esc(group.name)}"><h3>{tier_badge(group.name)} '
            f"<small>{esc(group.label)} · {len(group.slugs)}</small></h3>{bars}{empty}</div>"
        )
    unscored = [r for r in board.rows if r.headline is None]
    if unscored:
        names = ", ".join(f'<a href="{esc(links.model(r.slug))}">{esc(r.model)}</a>' for r in unscored)
        parts.append(f'<p class="lb-empty">Not scored (no task reached k scorable trials): {names}</p>')
    return "".join(parts)


def _param_rows(slugs: Iterable[str], by_slug: dict[str, Row], links: Links) -> str:
    out = []
    for slug in slugs:
        r = by_slug[slug]
        out.append(
            f"<tr><td>{esc(r.size.label)}</td>"
            f'<td><a href="{esc(links.model(r.slug))}">{esc(r.model)}</a>{size_badge(r)}{warn_mark(r)}</td>'
            f"<td>{tier_badge(r.tier)}</td>"
            f"<td>{fmt(r.headline)}</td></tr>"
        )
    return "".join(out)


def params_panel(board: Board, links: Links) -> str:
    by_slug = {r.slug: r for r in board.rows}
    head = "<thead><tr><th>Params</th><th>Model</th><th>Tier</th><th>Score</th></tr></thead>"
    parts = []
    for bucket in board.buckets:
        halves = []
        for title, slugs in (("Dense", bucket.dense), ("Sparse (MoE / PLE)", bucket.sparse)):
            body = _param_rows(slugs, by_slug, links) if slugs else '<tr><td colspan="4">none</td></tr>'
            halves.append(
                f'<div class="lb-half"><h4>{title} · {len(slugs)}</h4>'
                f'<table class="lb-t">{head}<tbody>{body}</tbody></table></div>'
            )
        parts.append(
            f'<div class="lb-bucket"><h3>{esc(bucket.label)}</h3><div class="lb-halves">'
            f"{''.join(halves)}</div></div>"
        )
    if not parts:
        parts.append('<p class="lb-empty">No models yet.</p>')
    return (
        '<p class="lb-note">Buckets cut on total parameters (what has to be loaded); inside each, rows are '
        "ordered by active parameters (what a forward pass costs). An unbadged row is dense.</p>"
        + "".join(parts)
    )


def _module_cell(cell: Any) -> str:
    star = '<sup class="lb-star" title="judge did not cover every trial">*</sup>' if cell.starred else ""
    pill = ""
    if cell.delta is not None:
        sign = "up" if cell.delta > 0 else "down"
        pill = f'<span class="lb-pill {sign}">{cell.delta:+.2f}</span>'
    return f"<td{data_v(cell.det)}>{fmt(cell.det, 2)}{star}{pill}</td>"


def detail_panel(board: Board, links: Links) -> str:
    mod_heads = "".join(
        f'<th data-sort="num" title="raw det score, {esc(m)}">{esc(board.module_labels[m])}</th>'
        for m in board.modules
    )
    heads = (
        '<th data-sort="num">#</th><th data-sort="text">Model</th><th data-sort="num">Params</th>'
        f'{mod_heads}<th data-sort="num">Det score</th><th data-sort="num">Pass</th>'
        '<th data-sort="num">Judged det</th><th data-sort="num">Judged pass</th>'
        '<th data-sort="num">Tasks</th><th data-sort="num">Run time (min)</th>'
        '<th data-sort="num">tok/s</th><th data-sort="num">First-try code</th>'
    )
    rows = []
    for r in board.rows:
        cells = "".join(_module_cell(c) for c in r.modules)
        rows.append(
            f"<tr><td{data_v(r.rank)}>{r.rank or '—'}</td>"
            f'<td><a href="{esc(links.model(r.slug))}">{esc(r.model)}</a>'
            f"{size_badge(r)}{warn_mark(r)}</td>"
            f"<td{data_v(r.size.sort_params)}>{esc(r.size.label)}</td>{cells}"
            f"<td{data_v(r.det)}>{fmt(r.det, 3)}</td>"
            f"<td{data_v(r.pass_k)}>{fmt(r.pass_k, 3)}</td>"
            f"<td{data_v(r.judged_det)}>{fmt(r.judged_det, 3)}</td>"
            f"<td{data_v(r.judged_pass)}>{fmt(r.judged_pass, 3)}</td>"
            f"<td{data_v(r.tasks_scored)}>{r.tasks_scored}</td>"
            f"<td{data_v(r.run_time_min)}>{fmt(r.run_time_min)}</td>"
            f"<td{data_v(r.decode_tps)}>{fmt(r.decode_tps)}</td>"
            f"<td{data_v(r.first_try_code_rate)}>{fmt_share(r.first_try_code_rate)}</td></tr>"
        )
    return (
        '<p class="lb-note">Module columns: raw det score (0–1) with the judge’s change as a pill; '
        "* marks a module the judge did not fully cover; ⚠ a row whose judged columns are a blend. "
        "Click a header to sort.</p>"
        f'<div class="lb-scroll"><table class="lb-t lb-sort" data-lb-sort><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def leaderboard_html(board: Board, links: Links) -> str:
    """The whole leaderboard: the chip, the tabs and their panels."""
    if not board.rows:
        return (
            f'<div class="lb" data-lb><p class="lb-empty">No result files yet: run a model with '
            f"<code>sllmb run</code> and rebuild. {chip(board, links)}</p></div>"
        )
    tabs = [
        '<button type="button" role="tab" aria-selected="true" data-tab="tiers" data-only="">'
        "All tiers</button>"
    ]
    for group in board.tiers:
        tabs.append(
            f'<button type="button" role="tab" aria-selected="false" data-tab="tiers" '
            f'data-only="{esc(group.name)}">{esc(group.name)} <small>{len(group.slugs)}</small></button>'
        )
    tabs.append('<button type="button" role="tab" aria-selected="false" data-tab="params">By params</button>')
    tabs.append('<button type="button" role="tab" aria-selected="false" data-tab="detail">Detailed</button>')
    meta = (
        f"judged pass^{board.k} on a fixed 0–100 axis · weights {esc(board.weights_preset)} · "
        f"{len(board.rows)} models ({board.judged_rows} judged, {board.partial_rows} partly judged, "
        f"{board.fallback_rows} unjudged and hatched)"
    )
    if board.flagged_rows:
        meta += f" · {board.flagged_rows} flagged ⚑ for settings that differ from the rest"
    return (
        f'<div class="lb" data-lb><div class="lb-head">{chip(board, links)}'
        f'<span class="lb-meta">{meta}</span>'
        f'</div><div class="lb-tabs" role="tablist">{"".join(tabs)}</div>'
        f'<section class="lb-panel" data-panel="tiers" data-only="">{tiers_panel(board, links)}</section>'
        f'<section class="lb-panel" data-panel="params" hidden>{params_panel(board, links)}</section>'
        f'<section class="lb-panel" data-panel="detail" hidden>{detail_panel(board, links)}</section></div>'
    )


# ----------------------------------------------------------------------------------------------------------
# A model card


def _facts(items: Iterable[tuple[str, str]]) -> str:
    return (
        '<dl class="lb-facts">' + "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in items) + "</dl>"
    )


def radar_html(row: Row, links: Links) -> str:
    # The data rides in an attribute, not a <script type="application/json">: Material's instant navigation
    # re-creates script elements of a new page, and would drop that type.
    data = {"theta": row.radar.labels, "r": row.radar.values}
    return (
        f'<div class="lb-radar" data-plotly-src="{esc(links.plotly())}" data-radar="{esc(safe_json(data))}" '
        'role="img" aria-label="radar of per-module pass^k"></div>'
    )


def card_html(board: Board, row: Row, links: Links, heading_level: int = 2) -> str:
    """Everything on a model's card, below its title."""
    h = f"h{heading_level}"
    notes = []
    if row.judge_state == "fallback":
        notes.append(
            '<p class="lb-callout">Not judged: the score is the raw pass^k, drawn hatched on the board, '
            "and is not strictly comparable with a judged one.</p>"
        )
    elif row.judge_state == "partial":
        notes.append(
            f'<p class="lb-callout">⚠ The judge did not cover every trial of '
            f"{esc(', '.join(row.uncovered_modules))}: those modules keep their det scores, so the "
            "judged numbers of this row are a blend.</p>"
        )
    if row.flags:
        items = "".join(
            f"<li>{esc(f.field)}: <code>{esc(f.value)}</code> (most rows: <code>{esc(f.common)}</code>)</li>"
            for f in row.flags
        )
        notes.append(
            f'<div class="lb-callout">⚑ Settings differ from the rest of the board:<ul>{items}</ul></div>'
        )
    score_label = "judged pass^" if row.judge_state != "fallback" else "raw pass^"
    interval = (
        ""
        if row.interval_low is None
        else f" · 95% interval {fmt(row.interval_low)}–{fmt(row.interval_high)}"
    )
    rank = f"rank {row.rank} of {len(board.rows)}" if row.rank else "not ranked"
    head = (
        f'<p class="lb-card-head">{tier_badge(row.tier)} <strong class="lb-big">{fmt(row.headline)}</strong> '
        f"{score_label}{board.k} · {rank}{interval} · "
        f'<a href="{esc(links.separability())}">which pairs are separable</a></p>'
    )
    coverage = "not judged" if row.judge_state == "fallback" else fmt_share(row.judge_coverage)
    facts = _facts(
        [
            ("Run time", f"{fmt(row.run_time_min)} min"),
            ("Decode", f"{fmt(row.decode_tps)} tok/s"),
            ("Prefill", f"{fmt(row.prefill_tps)} tok/s"),
            ("First-try code", fmt_share(row.first_try_code_rate)),
            ("Judge coverage", coverage),
            ("Verdicts changed by judge", str(row.changed_verdicts)),
            ("Tasks scored", f"{row.tasks_scored} ({row.tasks_excluded} dropped)"),
            ("Trials excluded (infra)", str(row.trials_excluded)),
        ]
    )
    star = '<sup class="lb-star">*</sup>'
    mod_rows = "".join(
        f"<tr><td>{esc(c.label)}{star if c.starred else ''}</td>"
        f"<td>{fmt(c.weight, 3)}</td><td>{c.tasks_scored}</td><td>{fmt(c.pass_k, 3)}</td>"
        f"<td>{fmt(c.det, 3)}</td>"
        f"<td>{fmt(c.judged_pass_k, 3)}</td><td>{fmt(c.judged_det, 3)}</td>"
        f"<td>{'' if c.judgeable else 'never judged'}</td></tr>"
        for c in row.modules
    )
    modules = (
        '<table class="lb-t"><thead><tr><th>Module</th><th>Weight</th><th>Tasks</th><th>pass^k</th>'
        "<th>Det</th><th>Judged pass^k</th><th>Judged det</th><th></th></tr></thead>"
        f"<tbody>{mod_rows}</tbody></table>"
    )
    flagged = {f.field for f in row.flags}
    set_rows = "".join(
        f"<tr{' class=lb-flagged' if s.field in flagged else ''}><td>{esc(s.label)}</td><td>{esc(s.value)}"
        f"{' ⚑' if s.field in flagged else ''}</td></tr>"
        for s in row.settings
    )
    settings = (
        f'<table class="lb-t"><tbody>{set_rows}<tr><td>Result file</td><td><code>{esc(row.source_file)}'
        f"</code></td></tr><tr><td>Judged file</td><td>{esc(row.judged_file or 'none')}</td></tr>"
        "</tbody></table>"
    )
    sz = row.size
    card_url = safe_url(sz.card_url)
    size_rows = [
        ("Parameters", esc(sz.label)),
        ("Total", f"{fmt(sz.total_params_b, 3)} B" if sz.total_params_b else "?"),
        ("Active", f"{fmt(sz.active_params_b, 3)} B" if sz.active_params_b else "?"),
        ("Architecture", esc(sz.architecture or "?")),
        ("Size bucket", esc(sz.bucket)),
        ("Family", esc(sz.family or "?")),
        ("Quantisation", esc(sz.quantisation or "?")),
        ("Context", str(sz.context) if sz.context else "?"),
        (
            "Model card",
            f'<a href="{esc(card_url)}" rel="nofollow noopener">{esc(card_url)}</a>' if card_url else "—",
        ),
    ]
    size = "" if sz.known else '<p class="lb-note">Not in models.yaml (or no size there): size shows "?".</p>'
    size += '<table class="lb-t"><tbody>' + "".join(
        f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in size_rows
    )
    size += "</tbody></table>"
    task_rows = []
    for t in row.tasks:
        pills = "".join(
            f'<span class="lb-trial {c.outcome}{" moved" if c.judge_changed else ""}" '
            f'title="trial {c.trial}: {c.outcome}{(" · " + esc(c.note)) if c.note else ""}'
            f"{' · score ' + fmt(c.score, 2) if c.score is not None else ''}"
            f'{" · verdict moved by the judge" if c.judge_changed else ""}">'
            f"{'✓' if c.outcome == 'pass' else '✗' if c.outcome == 'fail' else '–'}</span>"
            for c in t.trials
        )
        task_rows.append(
            f"<tr><td><code>{esc(t.task_id)}</code></td><td>{esc(t.module)}</td>"
            f"<td>{fmt(t.pass_k, 2) if t.scored else 'dropped'}</td><td>{fmt(t.det, 2)}</td>"
            f"<td>{t.passed}/{t.scorable}</td><td>{pills}</td></tr>"
        )
    tasks = (
        '<table class="lb-t lb-tasks"><thead><tr><th>Task</th><th>Module</th><th>pass^k</th><th>Det</th>'
        f"<th>Passed</th><th>Trials</th></tr></thead><tbody>{''.join(task_rows)}</tbody></table>"
    )
    return (
        f'<div class="lb-card">{head}{"".join(notes)}{facts}'
        f'<{h}>Modules</{h}><div class="lb-cardgrid">{radar_html(row, links)}{modules}</div>'
        f"<{h}>Settings</{h}>{settings}<{h}>Size</{h}>{size}"
        f'<{h}>Tasks</{h}><p class="lb-note">✓ pass · ✗ fail · – excluded (infra or invalid); a ringed '
        f"mark is a verdict the judge moved.</p>{tasks}</div>"
    )


# ----------------------------------------------------------------------------------------------------------
# Separability


def _pair_tr(p: PairRow, links: Links) -> str:
    yes = '<span class="lb-yes">separable</span>' if p.separable else "not separable"
    return (
        f'<tr><td><a href="{esc(links.model(p.slug_a))}">{esc(p.a)}</a></td>'
        f'<td><a href="{esc(links.model(p.slug_b))}">{esc(p.b)}</a></td>'
        f"<td>{p.wins_a}–{p.wins_b} ({p.ties} ties)</td><td>{p.p_value:.3g}</td><td>{p.p_adjusted:.3g}</td>"
        f"<td>{yes}</td><td>{p.tasks_needed if p.tasks_needed is not None else '—'}</td></tr>"
    )


def separability_html(board: Board, links: Links) -> str:
    s = board.separability
    if not board.rows:
        return '<p class="lb-empty">No result files yet, so no pairs to test.</p>'
    head = (
        "<thead><tr><th>Higher</th><th>Lower</th><th>Task wins</th><th>p</th><th>Holm p</th><th>Verdict</th>"
        "<th>Tasks needed</th></tr></thead>"
    )
    summary = (
        f'<p class="lb-card-head"><strong class="lb-big">{s.separable_count}</strong> of {s.pair_count} '
        f"pairs separable at α = {s.alpha:g} (Holm across all {s.pair_count}); "
        f"{s.adjacent_separable} of {s.adjacent_count} adjacent pairs.</p>"
    )
    adjacent = "".join(_pair_tr(p, links) for p in s.adjacent)
    separable = [p for p in s.pairs if p.separable]
    shown = separable[:MAX_PAIRS_SHOWN]
    more = (
        ""
        if len(separable) <= MAX_PAIRS_SHOWN
        else f'<p class="lb-note">Showing the first {MAX_PAIRS_SHOWN} of {len(separable)} separable pairs, '
        "in board "
        "order; every pair is in leaderboard.json.</p>"
    )
    return (
        f'{summary}<h2>Adjacent pairs</h2><p class="lb-note">Each model against the one just below it. '
        "Tasks needed: how many tasks a bank would need to separate the pair at this gap (McNemar, 80% "
        f'power).</p><div class="lb-scroll"><table class="lb-t">{head}<tbody>{adjacent}</tbody></table></div>'
        f'<h2>Separable pairs</h2>{more}<div class="lb-scroll"><table class="lb-t">{head}<tbody>'
        f"{''.join(_pair_tr(p, links) for p in shown) or '<tr><td colspan=7>none</td></tr>'}</tbody></table>"
        "</div>"
    )


# ----------------------------------------------------------------------------------------------------------
# The single-file leaderboard


def plotly_js() -> str:
    """plotly.js as the ``plotly`` package ships it, never fetched from a network."""
    import plotly

    path = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
    return path.read_text(encoding="utf-8")


def standalone_html(board: Board, title: str = "small-llm-bench leaderboard") -> str:
    """One self-contained file: no server, no request to anything outside it."""
    links = Links(mode="anchor")
    cards = "".join(
        f'<section class="lb-cardsec" id="m-{esc(r.slug)}"><p><a href="#top">← leaderboard</a></p>'
        f"<h2>{esc(r.model)}</h2>{card_html(board, r, links, heading_level=3)}</section>"
        for r in board.rows
    )
    scripts = [plotly_js().replace("</script", "<\\/script"), static_text("board.js")]
    # Only these two scripts may run: inline event handlers and injected scripts are refused by the browser.
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts
    )
    csp = (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; "
        "font-src data:; connect-src 'none'"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">'
        f"<title>{esc(title)}</title><style>{static_text('standalone.css')}{static_text('board.css')}</style>"
        f'</head><body><main id="top"><h1>{esc(title)}</h1>{leaderboard_html(board, links)}'
        f'<section id="separability"><h2>Separability</h2>{separability_html(board, links)}</section>'
        f"{cards}</main>" + "".join(f"<script>{s}</script>" for s in scripts) + "</body></html>\n"
    )
