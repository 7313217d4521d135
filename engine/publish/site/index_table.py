"""The Index leaderboard table and the front page's part of it: rows, cells, marks and their HTML."""

from __future__ import annotations

from dataclasses import dataclass

from engine.index.index import IndexResult
from engine.index.schema import CORE_BENCHMARKS, REGIONS, SIZE_CLASS_LIMITS
from engine.publish.escape import esc
from engine.publish.glossary import size_class_definitions, title_attr
from engine.publish.index_view import KIND_MARKS, IndexView, index_view, num_text
from engine.publish.site.index_common import WEEKLY_SYNC

SHORT = {
    "MMLU-Pro": "MMLU-Pro",
    "GPQA Diamond": "GPQA◆",
    "HLE": "HLE",
    "AIME": "AIME",
    "LiveCodeBench": "LCB",
    "SWE-bench Verified": "SWE-V",
}
SIZE_CLASSES = tuple(label for label, _ in SIZE_CLASS_LIMITS)
# A column's name in a shared link (?sort=gpqa&dir=asc; index-table.js): stable words, not positions.
SORT_KEYS = {
    "#": "rank",
    "Model": "model",
    "Index": "index",
    "Core": "core",
    "MMLU-Pro": "mmlu-pro",
    "GPQA◆": "gpqa",
    "HLE": "hle",
    "AIME": "aime",
    "LCB": "lcb",
    "SWE-V": "swe-v",
    "Params (B)": "params",
    "Price $/M": "price",
}


@dataclass(frozen=True)
class Cell:
    """One benchmark cell: the shown text, its kind, a hover title, the number it sorts on, and what a tap on
    the figure shows (its evaluator and variant, or an estimate's likely range: a phone has no hover)."""

    text: str
    kind: str  # a figure's kind, or "none"
    title: str
    sort: float | None
    note: str | None = None


@dataclass(frozen=True)
class TableRow:
    rank: int | None  # None for a model without an index
    view: IndexView
    lab: str
    region: str
    size_class: str
    total_params_b: float
    active_params_b: float | None
    fully_open: bool
    fine_tune: bool
    independent: bool  # one of its figures was measured independently
    cells: tuple[Cell, ...]  # the core benchmarks, in order
    blended_price: float | None

    @property
    def id(self) -> str:
        return self.view.id

    @property
    def name(self) -> str:
        return self.view.name


def cell(view: IndexView, bench: str, excluded: dict[str, str] | None = None) -> Cell:
    """One benchmark cell. ``excluded``: the core benchmarks the index does not estimate (a model that does not
    report one shows "—" saying so)."""
    fig = view.figure(bench)
    if fig is not None and fig.kind != "estimated":
        title = fig.label
        if fig.evaluator:
            title += f": {fig.evaluator}"
        if fig.variant:
            title += f" ({fig.variant})"
        note = "; ".join(x for x in (fig.evaluator, fig.variant) if x) or None
        return Cell(text=fig.text + KIND_MARKS[fig.kind], kind=fig.kind, title=title, sort=fig.exact, note=note)
    if fig is not None:
        likely = f"likely {fig.range_text}"
        return Cell(text=fig.text, kind="estimated", title=f"Estimated, {likely}", sort=fig.exact, note=likely)
    if excluded and bench in excluded:
        title = "Not reported, and not estimated: the index leaves this benchmark out (see the methodology)"
        return Cell(text="—", kind="none", title=title, sort=None)
    return Cell(text="—", kind="none", title="Not reported", sort=None)


def table_rows(result: IndexResult) -> list[TableRow]:
    rows = []
    for rank, row in enumerate(result.ranked(), start=1):
        entry = row.entry
        view = index_view(result, row)
        rows.append(
            TableRow(
                rank=rank if view.index is not None else None,
                view=view,
                lab=entry.lab,
                region=entry.region,
                size_class=entry.size_class,
                total_params_b=entry.total_params_b,
                active_params_b=entry.active_params_b,
                fully_open=entry.fully_open,
                fine_tune=entry.fine_tune_of is not None,
                independent=any(f.kind == "independent" for f in view.figures),
                cells=tuple(cell(view, b, result.excluded) for b in CORE_BENCHMARKS),
                blended_price=entry.pricing.blended_per_m if entry.pricing else None,
            )
        )
    return rows


def render_table_html(rows: list[TableRow], pages: dict[str, str] | None = None) -> str:
    """The sortable, filterable leaderboard; sorting and filters are in assets/index/index-table.js, which keeps
    them in the URL (?size=Tiny&region=...&open=1&sort=index&dir=asc).

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
    priced = any(r.blended_price is not None for r in rows)
    head = ["#", "Model", "Index", "Core", *[SHORT[b] for b in CORE_BENCHMARKS], "Params (B)"]
    kinds = ["num", "text", "num", "num", *["num"] * len(CORE_BENCHMARKS), "num"]
    if priced:
        head, kinds = [*head, "Price $/M"], [*kinds, "num"]
    titles = {SHORT[b]: b for b in CORE_BENCHMARKS}
    ths = "".join(
        f'<th scope="col" data-sort="{k}" data-key="{esc(SORT_KEYS[h])}" tabindex="0" '
        f'title="{esc(titles.get(h, h))}">{esc(h)}</th>'
        for h, k in zip(head, kinds, strict=True)
    )
    body = []
    for r in rows:
        index_title = "likely " + r.view.range_text if r.view.range_text else "fewer than 2 core benchmarks"
        attrs = (
            f'data-size="{esc(r.size_class)}" data-region="{esc(r.region)}" '
            f'data-open="{int(r.fully_open)}" data-ft="{int(r.fine_tune)}" '
            f'data-independent="{int(r.independent)}"'
        )
        page = pages.get(r.id, r.id)
        name = f'<a href="../models/{esc(page)}/">{esc(r.name)}</a><br><small>{esc(r.lab)}</small>'
        tds = [
            f'<td data-value="{esc(r.rank or "")}">{esc(r.rank or "")}</td>',
            f'<td data-value="{esc(r.name.lower())}">{name}</td>',
            f'<td data-value="{esc(r.view.index if r.view.index is not None else "")}" '
            f'title="{esc(index_title)}">'
            f"<strong>{esc(r.view.index_text)}</strong>{range_line(r.view.range_text)}</td>",
            f'<td data-value="{esc(r.view.core_count)}">{esc(r.view.core_text)}</td>',
        ]
        for c in r.cells:
            value = "" if c.sort is None else f"{c.sort:.2f}"
            tds.append(
                f'<td class="sli-{esc(c.kind)}" data-value="{esc(value)}" title="{esc(c.title)}">{cell_text(c)}</td>'
            )
        params = r.total_params_b
        # The active count on a line of its own: on one line it made the widest column of the table.
        active = f'<small class="sli-sub">{esc(f"{r.active_params_b:g}")} active</small>' if r.active_params_b else ""
        tds.append(f'<td data-value="{esc(params)}">{esc(f"{params:g}")}{active}</td>')
        if priced:
            price = r.blended_price
            tds.append(f'<td data-value="{esc("" if price is None else price)}">{esc(num_text(price, 2))}</td>')
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


def range_line(range_text: str | None) -> str:
    """The index's likely range under it, always shown (it was a hover title, and a phone has no hover)."""
    return f'<small class="sli-sub sli-range">likely {esc(range_text)}</small>' if range_text else ""


def cell_text(c: Cell) -> str:
    """A figure with a note opens it on a tap or Enter (a disclosure, no script); one without is plain text."""
    if not c.note:
        return esc(c.text)
    return f'<details class="sli-note"><summary>{esc(c.text)}</summary><small>{esc(c.note)}</small></details>'


def table_legend() -> str:
    """Every mark the table uses, once, beside it."""
    items = (
        ("<b>✓</b>", "independent measurement"),
        ("<b>*</b>", "from another lab's comparison"),
        ('<span class="sli-estimated">41.0</span>', "estimate (not reported)"),
        ("<b>—</b>", "not reported and not estimated"),
        ("<b>◆</b>", "GPQA◆ is GPQA Diamond"),
        ('<span class="sli-note-mark">41.0</span>', "tap or press Enter: who measured it, which variant, or the range"),
    )
    body = "".join(f"<li>{mark} {text}</li>" for mark, text in items)
    return f'<ul class="sli-legend" aria-label="Marks in the table">{body}</ul>'


def render_front_html(rows: list[TableRow], pages: dict[str, str], root: str, limit: int = 5) -> str:
    """The index's part of the front page: its best models with their likely ranges, and how many models have
    an index, counted from the rows shown below it (the page said "one number for 121 models" when 104 had
    one: it counted every model the index lists)."""
    ranked = [r for r in rows if r.rank is not None]
    body = "".join(
        f"<tr><td>{r.rank}</td>"
        f'<td><a href="{esc(root)}models/{esc(pages.get(r.id, r.id))}/">{esc(r.name)}</a></td>'
        f"<td>{esc(format(r.total_params_b, 'g'))}B</td>"
        f"<td><strong>{esc(r.view.index_text)}</strong> <small>({esc(r.view.range_text)})</small></td></tr>"
        for r in ranked[:limit]
    )
    without = len(rows) - len(ranked)
    rest = (
        ""
        if not without
        else f" ({without} more are listed without one: they report fewer than two of its core benchmarks)"
    )
    return (
        f"<p>The Small LM Index joins what labs and evaluators report on public benchmarks into one number for "
        f'<strong class="sli-front-count">{len(ranked)}</strong> open-weight models{rest}. The top of it:</p>'
        "<table><thead><tr><th>#</th><th>Model</th><th>Params</th><th>Index (likely range)</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )
