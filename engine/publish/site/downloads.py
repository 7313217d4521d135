"""The board and the Small LM Index table as files the site links to: written at build beside the pages
(same origin, no request leaves the site), one row per row of the table a visitor sees. The board's JSON is
``leaderboard.json`` (the whole Board, ``engine.publish.board``); the Index's is written here, every figure
with its kind, variant, evaluator and source (the primary document and the copy it was read from) or, for an
estimate, its likely range.

Every number is written as the page writes it (``fmt``, ``fmt_pts``, ``fmt_share`` for the board; the index
view's text for the index), with an empty cell where the page shows "—", so a figure in a download reads the
same as on the page. Text from result files and data files is written as text by the csv module, and a cell
that a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@`` first) is prefixed with ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence

from engine.index.schema import CORE_BENCHMARKS, Pricing
from engine.publish.board import Board
from engine.publish.dates import date_text
from engine.publish.html import fmt, fmt_pts, fmt_share
from engine.publish.index_view import Figure, num_text
from engine.publish.site.index_table import TableRow

BOARD_CSV = "leaderboard.csv"
INDEX_CSV = "index/small-lm-index.csv"
INDEX_JSON = "index/small-lm-index.json"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    if text == "—":
        return ""
    # A negative number is a number; any other text starting like a formula is kept as text.
    if text.startswith(_FORMULA_START) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def board_csv(board: Board) -> str:
    """The Detailed tab as CSV: every row, every module's det score, the same figures the page shows."""
    labels = [board.module_labels[m] for m in board.modules]
    header = [
        "rank", "model", "params", "total_params_b", "active_params_b", "tier", f"judged_pass^{board.k}",
        "judge_state", *[f"{label} det" for label in labels], "det", "pass", "judged_det", "judged_pass",
        "tasks_scored", "run_time_min", "decode_tok_s", "first_try_code", "unsure", "run_finished", "result_file",
    ]  # fmt: skip
    rows = (
        [
            r.rank, r.model, r.size.label, r.size.total_params_b, r.size.active_params_b, r.tier,
            fmt(r.headline), r.judge_state, *[fmt_pts(c.det) for c in r.modules], fmt_pts(r.det),
            fmt_pts(r.pass_k), fmt_pts(r.judged_det), fmt_pts(r.judged_pass), r.tasks_scored,
            fmt(r.run_time_min), fmt(r.decode_tps), fmt_share(r.first_try_code_rate), fmt_share(r.unsure_share),
            date_text(r.finished_at), r.source_file,
        ]  # fmt: skip
        for r in board.rows
    )
    return _csv(header, rows)


def index_csv(rows: Sequence[TableRow]) -> str:
    """The Index table as CSV: each model's index and likely range, and each core benchmark's figure with its
    kind (lab, other_lab, independent, estimated, none), as the table shows them."""
    header = ["rank", "id", "model", "lab", "region", "size_class", "total_params_b", "active_params_b",
              "index", "likely_low", "likely_high", "core_reported"]
    for bench in CORE_BENCHMARKS:
        header += [bench, f"{bench} kind"]
    header.append("blended_price_usd_per_m")
    out = []
    for r in rows:
        v = r.view
        line: list[object] = [r.rank, v.id, v.name, r.lab, r.region, r.size_class, r.total_params_b,
                              r.active_params_b, v.index_text, num_text(v.index_low), num_text(v.index_high),
                              v.core_count]
        for bench, c in zip(CORE_BENCHMARKS, r.cells, strict=True):
            fig = v.figure(bench)
            line += [fig.text if fig else "", c.kind]
        line.append(r.blended_price)
        out.append(line)
    return _csv(header, out)


def _figure_json(fig: Figure) -> dict[str, object]:
    """One figure as the model page shows it: its value rounded once, and where it came from."""
    out: dict[str, object] = {"benchmark": fig.benchmark, "core": fig.core, "kind": fig.kind, "value": fig.value}
    if fig.kind == "estimated":
        out |= {"likely_low": fig.low, "likely_high": fig.high, "capped": fig.capped, "item": fig.item}
        return out
    return out | {
        "variant": fig.variant,
        "evaluator": fig.evaluator,
        "source_url": fig.source_url,
        "secondary_url": fig.secondary_url,
        "checked": fig.checked,
        "unchecked": fig.unchecked,
        "lab_value": fig.lab_value,
    }


def index_json(rows: Sequence[TableRow], pricing: dict[str, Pricing | None]) -> str:
    """The Index table as JSON: each row of the table, and under it every figure the model page lists (core and
    other benchmarks, reported and estimated) with its source. ``pricing``: each model's OpenRouter prices,
    with the date they were synced."""
    models = []
    for r in rows:
        v = r.view
        price = pricing.get(v.id)
        models.append(
            {
                "rank": r.rank,
                "id": v.id,
                "name": v.name,
                "lab": r.lab,
                "region": r.region,
                "size_class": r.size_class,
                "total_params_b": r.total_params_b,
                "active_params_b": r.active_params_b,
                "index": v.index,
                "likely_low": v.index_low,
                "likely_high": v.index_high,
                "core_reported": v.core_count,
                "price": None if price is None else {
                    "blended_usd_per_m": price.blended_per_m,
                    "input_usd_per_m": price.input_per_m,
                    "output_usd_per_m": price.output_per_m,
                    "source": "OpenRouter models API",
                    "synced": price.synced.isoformat(),
                },
                "figures": [_figure_json(f) for f in v.figures],
            }
        )
    doc = {"core_benchmarks": list(CORE_BENCHMARKS), "models": models}
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
