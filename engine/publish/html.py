"""HTML for the leaderboard, the model cards and the separability tables, from a ``Board`` and nothing else.

The site's macros and hook and the single-file ``leaderboard.html`` all call these functions, so the three
show the same thing. Rules kept here:

* Every string that came from a result file or models.yaml goes through ``esc`` (model names, notes,
  settings, task ids), which escapes HTML and writes braces as character references; a URL from models.yaml
  is shown only when it is http(s). JSON placed in a page has ``<``, ``>`` and ``&`` written as unicode
  escapes, so no data can close its script element.
* No arithmetic: every number is a ``Board`` field, only formatted here (digits, percent sign, and a 0-1 score
  shown on the site's one 0-100 scale by ``fmt_pts``).
* Links are made by a ``Links`` object, since the site links to pages and the single file to anchors.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from engine.publish.board import Board, PairRow, Row
from engine.publish.dates import date_text
from engine.publish.escape import esc
from engine.publish.evidence import task_slug
from engine.publish.glossary import DET, JUDGED_DET, RUN_TIME, abbr, title_attr
from engine.publish.reference import flag_text

STATIC_DIR = Path(__file__).resolve().parent / "site" / "static"
# A table wider than a phone scrolls in this box; focusable, so a keyboard can scroll it too.
SCROLL = '<div class="lb-scroll" tabindex="0" role="region" aria-label="table">'
# Shown at most on the separability page; the full list is in leaderboard.json.
MAX_PAIRS_SHOWN = 300


def safe_json(data: Any) -> str:
    """JSON that is safe inside a <script type="application/json"> element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def safe_url(url: str | None) -> str | None:
    if url and (url.startswith("https://") or url.startswith("http://")):
        return url
    return None


def plural(n: int, word: str, words: str | None = None) -> str:
    """"1 model", "2 models": a count with its noun (``words`` for a plural that is not word + s)."""
    return f"{n} {word}" if n == 1 else f"{n} {words or word + 's'}"


# What fills an empty pair table: said wherever the board has fewer than two models.
NO_PAIRS = "no pairs to test yet: a second model's result file makes the first"


def separable_text(board: Board) -> str:
    """"3 of 10 pairs separable", or, below two models, that there is nothing to test yet and what fills it:
    the board's chip, `sllmb leaderboard` and the PR check all say it this way ("0 of 0 pairs separable" read
    as a verdict)."""
    s = board.separability
    if s.pair_count == 0:
        return NO_PAIRS
    return f"{s.separable_count} of {plural(s.pair_count, 'pair')} separable"


def fmt(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def fmt_pts(value: float | None) -> str:
    """A 0-1 score on the 0-100 scale every score on the site uses (the board stores module and task scores as
    shares; the headline is already 0-100)."""
    return "—" if value is None else f"{value * 100:.1f}"


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
    # The repository (mkdocs.yml's repo_url): where a reader reports a problem. None: no such link.
    repo: str | None = None

    def model(self, slug: str) -> str:
        return f"#m-{slug}" if self.mode == "anchor" else f"{self.root}models/{slug}/"

    def separability(self) -> str:
        return "#separability" if self.mode == "anchor" else f"{self.root}separability/"

    def reading(self) -> str:
        return "#reading" if self.mode == "anchor" else f"{self.root}reading-the-leaderboard/"

    def task(self, task_slug: str, model_slug: str) -> str | None:
        """A task's page, at one model's trials; None in the single file (it carries no transcripts)."""
        return None if self.mode == "anchor" else f"{self.root}tasks/{task_slug}/#m-{model_slug}"

    def module_tasks(self, module: str, model_slug: str) -> str | None:
        """The task list at one module's tasks, its links opening one model's trials (``?a=``, which the task
        list's script carries into each link); None in the single file, which has no task pages."""
        if self.mode == "anchor":
            return None
        return f"{self.root}tasks/?{urlencode({'a': model_slug})}#mod-{module}"

    def report(self, model: str) -> str | None:
        """A new issue about one model's run, its title filled in; None without a repository."""
        url = safe_url(self.repo)
        if url is None:
            return None
        return f"{url.rstrip('/')}/issues/new?{urlencode({'title': f'Run: {model}'})}"


# ----------------------------------------------------------------------------------------------------------
# Small pieces


def chip(board: Board, links: Links) -> str:
    return (
        f'<a class="lb-chip" href="{esc(links.separability())}" title="pairs the bank can tell apart: sign '
        f'test over shared tasks, Holm-corrected across all pairs">{esc(separable_text(board))}</a>'

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
        text = "; ".join(flag_text(f) for f in row.flags)
        marks.append(f'<span class="lb-flag" title="settings differ from the reference setting: {esc(text)}">⚑</span>')
    return "".join(marks)


def filter_attrs(row: Row) -> str:
    """What the board's filters compare (board.js), written once per row from the board model's own fields."""
    return (
        f' data-size="{esc(row.size.bucket)}" data-family="{esc(row.size.family or "")}"'
        f' data-judge="{esc(row.judge_state)}"'
    )


def _bar(row: Row, links: Links) -> str:
    hatch = " h" if row.judge_state == "fallback" else ""
    width = fmt(row.headline)
    return (
        f'<a class="lb-b" href="{esc(links.model(row.slug))}"{filter_attrs(row)}><span class="n">{esc(row.model)}'
        f"{size_badge(row)}{warn_mark(row)}</span>"
        f'<span class="t"><i class="f{hatch}" style="width:{width}%"></i></span>'
        f"<b>{fmt(row.headline)}</b></a>"
    )


# The axis marks every tier boundary; on a phone only the major ones have room (board.css hides the rest).
AXIS_TICKS = (0, 30, 45, 60, 70, 80, 90, 100)
MAJOR_TICKS = (0, 30, 60, 80, 100)


def _axis() -> str:
    ticks = "".join(
        f'<span{"" if v in MAJOR_TICKS else " class=minor"} style="left:{v}%">{v}</span>' for v in AXIS_TICKS
    )
    return f'<div class="lb-axis"><span class="n"></span><span class="t">{ticks}</span><b></b></div>'


# ----------------------------------------------------------------------------------------------------------
# The leaderboard


def tiers_panel(board: Board, links: Links) -> str:
    by_slug = {r.slug: r for r in board.rows}
    parts = [_axis()]
    # A tier no model reached is not drawn: the axis already shows where its band lies.
    for group in (g for g in board.tiers if g.slugs):
        bars = "".join(_bar(by_slug[s], links) for s in group.slugs)
        parts.append(
            f'<div class="lb-tier" data-tier="{esc(group.name)}"><h3>{tier_badge(group.name)} '
            f"<small>{esc(group.label)} · {len(group.slugs)}</small></h3>{bars}</div>"
        )
    unscored = [r for r in board.rows if r.headline is None]
    if unscored:
        items = "".join(
            f'<li{filter_attrs(r)}><a href="{esc(links.model(r.slug))}">{esc(r.model)}</a>: '
            f'{esc(r.unranked_reason or "")}</li>'
            for r in unscored
        )
        parts.append(f'<div class="lb-empty">Not ranked:<ul>{items}</ul></div>')
    return "".join(parts)


def _param_rows(slugs: Iterable[str], by_slug: dict[str, Row], links: Links) -> str:
    out = []
    for slug in slugs:
        r = by_slug[slug]
        out.append(
            f"<tr{filter_attrs(r)}><td>{esc(r.size.label)}</td>"
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
                f'{SCROLL}<table class="lb-t">{head}<tbody>{body}</tbody></table></div></div>'
            )
        parts.append(
            f'<div class="lb-bucket"><h3>{esc(bucket.label)}</h3><div class="lb-halves">{"".join(halves)}</div></div>'
        )
    if not parts:
        parts.append('<p class="lb-empty">No models yet.</p>')
    return (
        '<p class="lb-note">Buckets cut on total parameters (what has to be loaded); inside each, rows are '
        "ordered by active parameters (what a forward pass costs). An unbadged row is dense.</p>" + "".join(parts)
    )


def _module_cell(cell: Any, href: str | None = None, model: str = "") -> str:
    star = '<sup class="lb-star" title="judge did not cover every trial">*</sup>' if cell.starred else ""
    pill = ""
    if cell.delta is not None:
        sign = "up" if cell.delta > 0 else "down"
        pill = f'<span class="lb-pill {sign}">{cell.delta * 100:+.1f}</span>'
    score = fmt_pts(cell.det)
    if href is not None and cell.det is not None:
        # The cell opens the module's tasks, each linking to that model's trials of it.
        score = (f'<a href="{esc(href)}" title="{esc(model)}: the {esc(cell.label)} tasks, each with its '
                 f'trials">{score}</a>')
    return f"<td{data_v(cell.det)}>{score}{star}{pill}</td>"


def run_finished_line(row: Row) -> str:
    """The day the row's run finished, under its name in the Detailed tab (a column of its own pushed the table
    past a laptop's width)."""
    return f'<br><small class="lb-when">run finished {esc(date_text(row.finished_at))}</small>'


def detail_panel(board: Board, links: Links) -> str:
    # data-key names a column in a shared link (?sort=det&dir=asc): stable words, not positions.
    mod_heads = "".join(
        f'<th data-sort="num" data-key="{esc(m)}" title="raw det score, {esc(m)}">{esc(board.module_labels[m])}</th>'
        for m in board.modules
    )
    heads = (
        '<th data-sort="num" data-key="rank">#</th><th data-sort="text" data-key="model">Model</th>'
        '<th data-sort="num" data-key="params">Params</th>'
        f'{mod_heads}<th data-sort="num" data-key="det"{title_attr(DET)}>Det score</th>'
        '<th data-sort="num" data-key="pass">Pass</th>'
        f'<th data-sort="num" data-key="judged-det"{title_attr(JUDGED_DET)}>Judged det</th>'
        '<th data-sort="num" data-key="judged-pass">Judged pass</th>'
        '<th data-sort="num" data-key="tasks">Tasks</th>'
        f'<th data-sort="num" data-key="run-time"{title_attr(RUN_TIME)}>Run time (min)</th>'
        '<th data-sort="num" data-key="tok-s">tok/s</th><th data-sort="num" data-key="first-try">First-try code</th>'
        '<th data-sort="num" data-key="unsure" title="share of verdicts resting on a check that could not decide">'
        "Unsure</th>"
    )
    rows = []
    for r in board.rows:
        cells = "".join(_module_cell(c, links.module_tasks(c.module, r.slug), r.model) for c in r.modules)
        rows.append(
            f"<tr{filter_attrs(r)}><td{data_v(r.rank)}>{r.rank or '—'}</td>"
            f'<td><a href="{esc(links.model(r.slug))}">{esc(r.model)}</a>'
            f"{size_badge(r)}{warn_mark(r)}{run_finished_line(r)}</td>"
            f"<td{data_v(r.size.sort_params)}>{esc(r.size.label)}</td>{cells}"
            f"<td{data_v(r.det)}>{fmt_pts(r.det)}</td>"
            f"<td{data_v(r.pass_k)}>{fmt_pts(r.pass_k)}</td>"
            f"<td{data_v(r.judged_det)}>{fmt_pts(r.judged_det)}</td>"
            f"<td{data_v(r.judged_pass)}>{fmt_pts(r.judged_pass)}</td>"
            f"<td{data_v(r.tasks_scored)}>{r.tasks_scored}</td>"
            f"<td{data_v(r.run_time_min)}>{fmt(r.run_time_min)}</td>"
            f"<td{data_v(r.decode_tps)}>{fmt(r.decode_tps)}</td>"
            f"<td{data_v(r.first_try_code_rate)}>{fmt_share(r.first_try_code_rate)}</td>"
            f"<td{data_v(r.unsure_share)}>{fmt_share(r.unsure_share)}</td></tr>"
        )
    return (
        '<p class="lb-note">Every score is on the 0–100 scale. Module columns: raw det score with the judge’s '
        "change in points as a pill; * marks a module the judge did not fully cover; ⚠ a row whose judged "
        "columns are a blend. Click a header (or focus it and press Enter) to sort."
        f"{'' if links.mode == 'anchor' else ' A module score opens its tasks, each with that model’s trials.'}</p>"
        '<div class="lb-scroll" tabindex="0" role="region" aria-label="detailed table">'
        f'<table class="lb-t lb-sort" data-lb-sort><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def last_changed_text(board: Board) -> str:
    """When the board last changed, and what that date means (only dates its files record)."""
    if board.last_changed is None:
        return "last changed: not recorded (no row's file records when its run finished)"
    return (
        f"last changed {esc(date_text(board.last_changed))}: the newest day (UTC) a row's run finished or its "
        "judged file was written"
    )


def leaderboard_html(board: Board, links: Links) -> str:
    """The whole leaderboard: the chip, the tabs and their panels."""
    if not board.rows:
        return (
            f'<div class="lb" data-lb><p class="lb-empty">No result files yet: run a model with '
            f"<code>sllmb run</code> and rebuild. {chip(board, links)}</p></div>"
        )
    specs = [("tiers", "", "All tiers")]
    specs += [("tiers", g.name, f"{esc(g.name)} <small>{len(g.slugs)}</small>") for g in board.tiers if g.slugs]
    specs += [("params", None, "By params"), ("detail", None, "Detailed")]
    # WAI-ARIA tabs: one tab in the Tab order (the selected one), arrow keys move between them (board.js).
    tabs = []
    for n, (panel, only, label) in enumerate(specs):
        selected = "true" if n == 0 else "false"
        only_attr = "" if only is None else f' data-only="{esc(only)}"'
        # data-key is the tab's name in a shared link (?tab=A): a tier's letter, or the panel's name.
        tabs.append(
            f'<button type="button" role="tab" id="lb-tab-{n}" aria-selected="{selected}" '
            f'aria-controls="lb-panel-{panel}" tabindex="{0 if n == 0 else -1}" data-tab="{panel}"{only_attr} '
            f'data-key="{esc(only or panel)}">{label}</button>'
        )
    meta = (
        f"judged pass^{board.k} on a fixed 0–100 axis · weights {esc(board.weights_preset)} · "
        f"{plural(len(board.rows), 'model')} ({board.judged_rows} judged, {board.partial_rows} partly judged, "
        f"{board.fallback_rows} unjudged and hatched)"
    )
    if board.flagged_rows:
        meta += f" · {board.flagged_rows} flagged ⚑ for settings that differ from the reference setting"
    meta += f" · {last_changed_text(board)}"
    return (
        f'<div class="lb" data-lb><div class="lb-head">{chip(board, links)}'
        f'<span class="lb-meta">{meta}</span>'
        f"</div>{filters_bar(board)}"
        f'<div class="lb-tabs" role="tablist" aria-label="Board views">{"".join(tabs)}</div>'
        + _panel("tiers", 0, tiers_panel(board, links), ' data-only=""')
        + _panel("params", len(specs) - 2, params_panel(board, links), " hidden")
        + _panel("detail", len(specs) - 1, detail_panel(board, links), " hidden")
        + board_legend()
        + "</div>"
    )


# (the query-string name, the label, the Board.filters field): the board's filters, in the order shown.
BOARD_FILTERS: tuple[tuple[str, str, str], ...] = (
    ("size", "Size", "buckets"),
    ("family", "Family", "families"),
    ("judge", "Judged", "judge"),
)


def filters_bar(board: Board) -> str:
    """The board's filters (board.js hides the rows they exclude and keeps them in the URL), the count of rows
    shown, and the line that says which filter hides every row when none is left."""
    parts = []
    for name, label, field in BOARD_FILTERS:
        opts = "".join(
            f'<option value="{esc(o.value)}">{esc(o.label)} ({o.count})</option>' for o in getattr(board.filters, field)
        )
        parts.append(
            f'<label>{label} <select data-lb-filter="{name}" data-label="{label}">'
            f'<option value="">All</option>{opts}</select></label>'
        )
    return (
        f'<div class="lb-filters" role="group" aria-label="Filter the board">{" ".join(parts)}</div>'
        f'<p class="lb-count" aria-live="polite">Showing {len(board.rows)} of {plural(len(board.rows), "model")}.</p>'
        '<p class="lb-empty lb-filtered-out" hidden></p>'
    )


def _panel(name: str, tab: int, body: str, attrs: str) -> str:
    return (
        f'<section class="lb-panel" id="lb-panel-{name}" role="tabpanel" aria-labelledby="lb-tab-{tab}" '
        f'data-panel="{name}"{attrs}>{body}</section>'
    )


def board_legend() -> str:
    """Every mark the board and its cards use, explained in one place."""
    items = (
        ('<span class="lb-legend-bar"></span>', "judged pass^k, 0–100"),
        ('<span class="lb-legend-bar h"></span>', "not judged: raw pass^k, hatched"),
        ('<span class="lb-unj">unjudged</span>', "no judged file for this run"),
        ('<span class="lb-warn">⚠</span>', "the judge did not cover every trial: judged columns are a blend"),
        ('<sup class="lb-star">*</sup>', "a module the judge did not fully cover"),
        ('<span class="lb-flag">⚑</span>', "run settings that differ from the board's declared reference setting"),
        ('<span class="lb-badge">MoE</span>', "sparse model (Mixture-of-Experts or per-layer embeddings)"),
    )
    body = "".join(f"<li>{mark} {text}</li>" for mark, text in items)
    return f'<details class="lb-legend"><summary>What the marks mean</summary><ul>{body}</ul></details>'


# ----------------------------------------------------------------------------------------------------------
# A model card


def _facts(items: Iterable[tuple[str, str]]) -> str:
    return '<dl class="lb-facts">' + "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in items) + "</dl>"


def radar_svg(row: Row, size: int = 320) -> str:
    """The radar as inline SVG, on the site's cards and in the single file alike: no script and no 4.6 MB
    library for one chart (plotly once made a card weigh 5.8 MB).

    Per-module pass^k on 0-100, one spoke per module, rings at 25, 50, 75 and 100; the values are placed, not
    computed: a point's distance from the centre is its score.
    """
    labels, values = row.radar.labels, row.radar.values
    if not labels:
        return '<p class="lb-empty">No module scored, so no radar.</p>'
    c, radius = size / 2, size / 2 - 56
    n = len(labels)

    def at(i: int, v: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * i / n
        r = radius * max(0.0, min(v, 100.0)) / 100
        return c + r * math.cos(angle), c + r * math.sin(angle)

    parts = [
        f'<svg class="lb-radar-svg" viewBox="0 0 {size} {size}" role="img" '
        f'aria-label="radar of per-module pass^k, 0 to 100">'
    ]
    for ring in (25, 50, 75, 100):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (at(i, ring) for i in range(n)))
        parts.append(f'<polygon class="ring" points="{pts}"/>')
    for i, label in enumerate(labels):
        x, y = at(i, 100)
        lx, ly = at(i, 118)
        anchor = "middle" if abs(lx - c) < 8 else ("start" if lx > c else "end")
        parts.append(f'<line class="spoke" x1="{c:.1f}" y1="{c:.1f}" x2="{x:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<text x="{lx:.1f}" y="{ly + 4:.1f}" text-anchor="{anchor}">{esc(label)}</text>')
    shape = " ".join(f"{x:.1f},{y:.1f}" for x, y in (at(i, v) for i, v in enumerate(values)))
    parts.append(f'<polygon class="area" points="{shape}"/>')
    for i, (label, v) in enumerate(zip(labels, values, strict=True)):
        x, y = at(i, v)
        parts.append(
            f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="3"><title>{esc(label)}: {v:.1f}</title></circle>'
        )
    parts.append("</svg>")
    return f'<div class="lb-radar lb-radar-static">{"".join(parts)}</div>'


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
            f"<li>{esc(f.label)}: <code>{esc(f.value)}</code> (reference setting: <code>{esc(f.reference)}</code>)"
            "</li>"
            for f in row.flags
        )
        notes.append(
            f'<div class="lb-callout">⚑ Settings differ from the reference setting:<ul>{items}</ul></div>'
        )
    if row.unranked_reason:
        notes.append(f'<p class="lb-callout">Not ranked: {esc(row.unranked_reason)}.</p>')
    score_label = "judged pass^" if row.judge_state != "fallback" else "raw pass^"
    interval = "" if row.interval_low is None else f" · 95% interval {fmt(row.interval_low)}–{fmt(row.interval_high)}"
    tied = row.rank is not None and sum(r.rank == row.rank for r in board.rows) > 1
    rank = f"rank {row.rank} of {len(board.rows)}{' (tied)' if tied else ''}" if row.rank else "not ranked"
    head = (
        f'<p class="lb-card-head">{tier_badge(row.tier)} <strong class="lb-big">{fmt(row.headline)}</strong> '
        f"{score_label}{board.k} · {rank}{interval} · "
        f'<a href="{esc(links.separability())}">which pairs are separable</a></p>'
    )
    coverage = "not judged" if row.judge_state == "fallback" else fmt_share(row.judge_coverage)
    facts = _facts(
        [
            ("Run finished", esc(date_text(row.finished_at))),
            *([("Judged", esc(date_text(row.judged_at)))] if row.judged_at else []),
            ("Run time", f"{fmt(row.run_time_min)} min"),
            ("Decode", f"{fmt(row.decode_tps)} tok/s"),
            ("Prefill", f"{fmt(row.prefill_tps)} tok/s"),
            ("First-try code", fmt_share(row.first_try_code_rate)),
            ("Judge coverage", coverage),
            ("Verdicts on an unsure check", fmt_share(row.unsure_share)),
            ("Verdicts changed by judge", str(row.changed_verdicts)),
            ("Tasks scored", f"{row.tasks_scored} ({row.tasks_excluded} dropped)"),
            ("Trials excluded (infra)", str(row.trials_excluded)),
        ]
    )
    star = '<sup class="lb-star">*</sup>'
    mod_rows = "".join(
        f"<tr><td>{esc(c.label)}{star if c.starred else ''}</td>"
        f"<td>{fmt(c.weight, 3)}</td><td>{c.tasks_scored}</td><td>{fmt_pts(c.pass_k)}</td>"
        f"<td>{fmt_pts(c.det)}</td>"
        f"<td>{fmt_pts(c.judged_pass_k)}</td><td>{fmt_pts(c.judged_det)}</td>"
        f"<td>{'' if c.judgeable else 'never judged'}</td></tr>"
        for c in row.modules
    )
    modules = (
        f'{SCROLL}<table class="lb-t"><thead><tr><th>Module</th><th>Weight</th><th>Tasks</th><th>pass^k</th>'
        f"<th>{abbr('Det', DET)}</th><th>Judged pass^k</th><th>{abbr('Judged det', JUDGED_DET)}</th><th></th>"
        "</tr></thead>"
        f"<tbody>{mod_rows}</tbody></table></div>"
    )
    flagged = {f.field for f in row.flags}
    set_rows = "".join(
        f"<tr{' class=lb-flagged' if s.field in flagged else ''}><td>{esc(s.label)}</td><td>{esc(s.value)}"
        f"{' ⚑' if s.field in flagged else ''}</td></tr>"
        for s in row.settings
    )
    settings = (
        f'{SCROLL}<table class="lb-t lb-kv"><tbody>{set_rows}<tr><td>Result file</td><td><code>{esc(row.source_file)}'
        f"</code></td></tr><tr><td>Judged file</td><td>{esc(row.judged_file or 'none')}</td></tr>"
        "</tbody></table></div>"
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
    size += f'{SCROLL}<table class="lb-t lb-kv"><tbody>'
    size += "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in size_rows)
    size += "</tbody></table></div>"
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
        href = links.task(task_slug(t.task_id), row.slug)
        task = f"<code>{esc(t.task_id)}</code>"
        if href is not None:
            task = f'<a href="{esc(href)}" title="every trial of this task, with its evidence">{task}</a>'
        # The marks come right after the task, so a phone shows them without scrolling the table.
        task_rows.append(
            f"<tr><td>{task}</td><td>{pills}</td><td>{t.passed}/{t.scorable}</td>"
            f"<td>{fmt_pts(t.pass_k) if t.scored else 'dropped'}</td><td>{fmt_pts(t.det)}</td>"
            f"<td>{esc(t.module)}</td></tr>"
        )
    tasks = (
        '<div class="lb-scroll" tabindex="0" role="region" aria-label="tasks">'
        '<table class="lb-t lb-tasks"><thead><tr><th>Task</th><th>Trials</th><th>Passed</th><th>pass^k</th>'
        f"<th>{abbr('Det', DET)}</th>"
        f"<th>Module</th></tr></thead><tbody>{''.join(task_rows)}</tbody></table></div>"
    )
    report_url = links.report(row.model)
    report = (
        ""
        if report_url is None
        else f'<p class="lb-report"><a href="{esc(report_url)}" rel="nofollow noopener">Report a problem with this '
        "run</a> (a wrong setting, a grading error, a figure that does not match the result file).</p>"
    )
    radar = radar_svg(row)
    task_hint = "" if links.mode == "anchor" else " A task opens its page: every trial's transcript and grade."
    return (
        f'<div class="lb-card">{head}{"".join(notes)}{facts}'
        f'<{h}>Modules</{h}><p class="lb-note">Scores on the 0–100 scale; the radar shows each module\'s '
        f'pass^k.</p><div class="lb-cardgrid">{radar}{modules}</div>'
        f"<{h}>Settings</{h}>{settings}<{h}>Size</{h}>{size}"
        f'<{h}>Tasks</{h}><p class="lb-note">✓ pass · ✗ fail · – excluded (infra or invalid); a ringed '
        f"mark is a verdict the judge moved.{task_hint}</p>{tasks}{report}</div>"
    )


# ----------------------------------------------------------------------------------------------------------
# Separability


def _pair_tr(p: PairRow, links: Links, headline: dict[str, float | None]) -> str:
    yes = '<span class="lb-yes">separable</span>' if p.separable else "not separable"
    # A tied pair has no higher and lower model: its scores say so instead of the order.
    scores = f"{fmt(headline[p.slug_a])} – {fmt(headline[p.slug_b])}" + (" (tied)" if p.tied else "")
    return (
        f'<tr><td><a href="{esc(links.model(p.slug_a))}">{esc(p.a)}</a></td>'
        f'<td><a href="{esc(links.model(p.slug_b))}">{esc(p.b)}</a></td><td>{scores}</td>'
        f"<td>{p.wins_a}–{p.wins_b} ({plural(p.ties, 'tie')})</td><td>{p.p_value:.3g}</td>"
        f"<td>{p.p_adjusted:.3g}</td><td>{yes}</td>"
        f"<td>{p.tasks_needed if p.tasks_needed is not None else '—'}</td></tr>"
    )


def separability_html(board: Board, links: Links) -> str:
    s = board.separability
    if not board.rows:
        return '<p class="lb-empty">No result files yet, so no pairs to test.</p>'
    if s.pair_count == 0:
        # One model: no table at all (an empty one beside a "none" row said nothing), and what fills it.
        only = board.rows[0]
        return (
            f'<p class="lb-empty">Only <a href="{esc(links.model(only.slug))}">{esc(only.model)}</a> is on the '
            f"board, so there are {esc(NO_PAIRS)}; the tables of adjacent and separable pairs appear then.</p>"
        )
    head = (
        "<thead><tr><th>Model</th><th>Against</th><th>Scores</th><th>Task wins</th><th>p</th><th>Holm p</th>"
        "<th>Verdict</th><th>Tasks needed</th></tr></thead>"
    )
    summary = (
        f'<p class="lb-card-head"><strong class="lb-big">{s.separable_count}</strong> of '
        f"{plural(s.pair_count, 'pair')} separable at α = {s.alpha:g} (Holm across all {s.pair_count}); "
        f"{s.adjacent_separable} of {plural(s.adjacent_count, 'adjacent pair')}.</p>"
    )
    headline = {r.slug: r.headline for r in board.rows}
    adjacent = "".join(_pair_tr(p, links, headline) for p in s.adjacent)
    separable = [p for p in s.pairs if p.separable]
    shown = separable[:MAX_PAIRS_SHOWN]
    more = (
        ""
        if len(separable) <= MAX_PAIRS_SHOWN
        else f'<p class="lb-note">Showing the first {MAX_PAIRS_SHOWN} of {len(separable)} separable pairs, '
        "in board "
        "order; every pair is in leaderboard.json.</p>"
    )
    separable_rows = "".join(_pair_tr(p, links, headline) for p in shown)
    return (
        f'{summary}<h2>Adjacent pairs</h2><p class="lb-note">Each model against the one just below it (or level '
        "with it: a pair with the same score is marked tied). Tasks needed: how many tasks a bank would need to "
        f'separate the pair at this gap (McNemar, 80% power).</p>{SCROLL}<table class="lb-t">{head}<tbody>'
        f"{adjacent}</tbody></table></div>"
        f'<h2>Separable pairs</h2>{more}{SCROLL}<table class="lb-t">{head}<tbody>'
        f"{separable_rows or '<tr><td colspan=8>none yet: no pair differs by more than chance</td></tr>'}"
        "</tbody></table>"
        "</div>"
    )


# ----------------------------------------------------------------------------------------------------------
# The single-file leaderboard


def standalone_html(board: Board, title: str = "small-llm-bench leaderboard") -> str:
    """One self-contained file: no server, no request to anything outside it."""
    links = Links(mode="anchor")
    cards = "".join(
        f'<section class="lb-cardsec" id="m-{esc(r.slug)}"><p><a href="#top">← leaderboard</a></p>'
        f"<h2>{esc(r.model)}</h2>{card_html(board, r, links, heading_level=3)}</section>"
        for r in board.rows
    )
    # The radars are inline SVG (radar_svg): the file carries no chart library.
    scripts = [static_text("url-state.js"), static_text("board.js")]
    # Only this script may run: inline event handlers and injected scripts are refused by the browser.
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts)
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
