"""The site's sweep pages: one per committed sweep report (``results/sweeps/<name>/sweep_report.json``), an
index of them at ``sweeps/``, and a link from the model's page to each sweep of it.

A report is a file from a pull request like any result file, so it is read as hostile: bounded in size,
validated by ``SweepReport`` (unknown keys are errors), and every value placed in HTML through ``esc``. The
pages go through the hook's generated-page path (``hooks._add_page``): their source is the constant stub, and
their HTML is swapped in after the macro engine and Markdown, so no text of a report can reach either.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.analysis.sweep_report import SHOWN_SETTINGS, SweepReport, number_cell, test_cell
from engine.core.percent import percent_text
from engine.publish.escape import esc

log = logging.getLogger("mkdocs.plugins.small_llm_bench")

REPORT_NAME = "sweep_report.json"
MAX_REPORT_BYTES = 4 * 1024 * 1024  # a report of 16 configurations and every module is a few dozen kB
# A sweep's folder name is its page's address: kept to a plain word, like a configuration's name.
SWEEP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
SWEEPS_DIR = "results/sweeps"


@dataclass(frozen=True)
class Sweep:
    name: str  # the folder's name: the page is sweeps/<name>/
    report: SweepReport


def sweeps_dir(config: Any) -> Path:
    """``extra.board.sweeps_dir`` in mkdocs.yml (relative to its folder), else results/sweeps."""
    project = Path(config["config_file_path"]).resolve().parent
    folder = Path(((config.get("extra") or {}).get("board") or {}).get("sweeps_dir") or SWEEPS_DIR)
    return folder if folder.is_absolute() else project / folder


def load_sweeps(folder: Path) -> list[Sweep]:
    """Every valid report under ``folder``, by name. A report that cannot be shown is a warning naming the
    file and the fix (``mkdocs build --strict`` fails on it), never a page."""
    out = []
    for path in sorted(folder.glob(f"*/{REPORT_NAME}")) if folder.is_dir() else []:
        name = path.parent.name
        if not SWEEP_NAME.fullmatch(name):
            log.warning("%s: the folder name is the sweep page's address; rename it to letters, digits, '.', "
                        "'_' and '-' (at most 80)", path)
            continue
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_REPORT_BYTES:
            log.warning("%s: not a plain file of at most %d bytes; commit the report sllmb sweep wrote",
                        path, MAX_REPORT_BYTES)
            continue
        try:
            report = SweepReport.model_validate_json(path.read_bytes())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(top level)"
            log.warning("%s: field '%s': %s; write it again with `sllmb sweep PLAN --report-only`", path, where,
                        first["msg"])
            continue
        out.append(Sweep(name, report))
    return out


def _table(head: list[str], rows: list[list[str]]) -> str:
    """An HTML table; every cell is escaped here."""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>\n" for row in rows)
    return f'<table class="lb-sweep">\n<thead><tr>{th}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>'


def sweep_html(sweep: Sweep, model_href: str | None) -> str:
    """A sweep's page body (its <h1> is the hook's): the verdicts, the configurations, a table per scope."""
    r = sweep.report
    model = esc(r.model) if model_href is None else f'<a href="{esc(model_href)}">{esc(r.model)}</a>'
    parts = [
        f"<p>One model, {model}, under {len(r.configurations)} configurations on the same tasks, trials and "
        f"seeds (plan <code>{esc(Path(r.plan).name)}</code>). Scored at pass^{esc(r.k)}, weights "
        f"{esc(r.weights)}; each configuration against <code>{esc(r.baseline)}</code>, the first, by the "
        f"paired sign test over tasks, Holm-corrected across the configurations (alpha {esc(r.alpha)}). "
        '"Not separable" means this bank cannot tell, not that the setups are equal.</p>',
        "<ul>" + "".join(f"<li>{esc(v)}</li>" for v in r.verdicts) + "</ul>",
        '<h2 id="configurations">Configurations</h2>',
        _table(["configuration", *SHOWN_SETTINGS, "minutes"],
               [[c.name, *(c.settings.get(s, "—") for s in SHOWN_SETTINGS),
                 f"{c.duration_s / 60:.1f}" + (" (earlier)" if c.reused else "")] for c in r.configurations]),
    ]
    for scope in r.scopes:
        parts += [f"<h2>{esc(scope.scope)}</h2>",
                  _table(["configuration", f"pass^{r.k}", "det", "tasks", "output tokens / pass",
                          "seconds / pass", "against the baseline"],
                         [[row.configuration, percent_text(row.pass_k), percent_text(row.det_score),
                           str(row.tasks_scored), number_cell(row.tokens_per_pass),
                           number_cell(row.seconds_per_pass), test_cell(row.test)]
                          for row in scope.rows])]
    return "\n\n".join(parts)


def index_html(sweeps: list[Sweep]) -> str:
    if not sweeps:
        return ("<p>No sweep is committed yet. A sweep report (<code>sllmb sweep PLAN.yaml</code>) committed "
                "under <code>results/sweeps/&lt;name&gt;/</code> gets a page here.</p>")
    items = "".join(f'<li><a href="{esc(s.name)}/">{esc(s.name)}</a>: {esc(s.report.model)}, '
                    f"{len(s.report.configurations)} configurations</li>" for s in sweeps)
    return f"<p>Each page: one model under several configurations, each against the first.</p>\n<ul>{items}</ul>"


def add_sweep_pages(config: Any, board: Any, pages: MutableMapping[str, Any],
                    add_page: Callable[[str, str, str, str], None]) -> None:
    """Add ``sweeps/index`` and a page per sweep (``add_page(src_uri, title, body_html, fallback_title)``),
    and a "Sweeps" section at the end of each swept model's page in ``pages`` (src_uri -> a page with
    ``html``), linking each of its sweeps."""
    sweeps = load_sweeps(sweeps_dir(config))
    slugs = {row.model: row.slug for row in board.rows}
    add_page("sweeps/index.md", "Sweeps", index_html(sweeps), "Sweeps")
    by_model: dict[str, list[Sweep]] = {}
    for sweep in sweeps:
        slug = slugs.get(sweep.report.model)
        href = None if slug is None else f"../../models/{slug}/"
        add_page(f"sweeps/{sweep.name}.md", f"Sweep of {sweep.report.model}: {sweep.name}",
                 sweep_html(sweep, href), sweep.name)
        by_model.setdefault(sweep.report.model, []).append(sweep)
    for model, swept in by_model.items():
        src = f"models/{slugs[model]}.md" if model in slugs else None
        if src is None or src not in pages:
            continue
        items = "".join(f'<li><a href="../../sweeps/{esc(s.name)}/">{esc(s.name)}</a>: '
                        f"{len(s.report.configurations)} configurations, "
                        f"{esc('; '.join(s.report.verdicts) or 'no comparison')}</li>" for s in swept)
        section = f'\n<h2 id="sweeps">Sweeps of this model</h2>\n<ul>{items}</ul>\n'
        pages[src] = replace(pages[src], html=pages[src].html + section)
