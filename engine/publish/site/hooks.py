"""MkDocs hook: one page per model, one per task (with its trials as JSON beside it), the board's assets
and ``leaderboard.json``, and a nav built from the pages that exist.

mkdocs-macros fills pages but cannot create them, so the model pages are added here as generated files: one
per board row (our runs) and one per Small LM Index model, a model that is both having one page with the card
and the index section (``engine.publish.site.index_page_plan.plan_model_pages`` decides where each page lives).

A model page's text comes from result files and the index's data files, so none of it may reach the macro
engine (Jinja) or Markdown. The generated file holds only ``STUB``, the same constant text for every model;
its finished HTML is put in by ``on_page_content``, an event that comes after every ``on_page_markdown``
(where mkdocs-macros renders) and after Markdown. Nothing in the page's own text decides this, so no value can
turn it off, and the HTML is escaped (``esc``: braces too) besides.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if importlib.util.find_spec("engine") is None:  # `mkdocs build` from a checkout that is not pip-installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from mkdocs.structure.files import File, Files  # noqa: E402

from engine.index.index import IndexRow  # noqa: E402
from engine.publish.board import board_json  # noqa: E402
from engine.publish.escape import esc  # noqa: E402
from engine.publish.evidence import evidence_json, model_runs, task_evidence  # noqa: E402
from engine.publish.html import STATIC_DIR, Links, card_html  # noqa: E402
from engine.publish.site.context import site_board, site_runs  # noqa: E402
from engine.publish.site.downloads import (  # noqa: E402
    BOARD_CSV,
    INDEX_CSV,
    INDEX_JSON,
    board_csv,
    index_csv,
    index_json,
)
from engine.publish.site.index_macros import IndexSite  # noqa: E402
from engine.publish.site.index_model_page import correction_url  # noqa: E402
from engine.publish.site.index_page_plan import ModelPages, plan_model_pages  # noqa: E402
from engine.publish.site.index_table import table_rows  # noqa: E402
from engine.publish.site.sweep_pages import add_sweep_pages  # noqa: E402
from engine.publish.task_page import DATA_FILE, task_page_html, tasks_index_html  # noqa: E402
from engine.publish.world_view import bank_tasks  # noqa: E402

# Methodology pages in reading order; a page not listed here follows, in name order.
METHODOLOGY_ORDER = (
    "index",
    "scoring",
    "judge",
    "statistics",
    "modules",
    "tools-world",
    "sandboxing",
    "limits",
)


def _section_pages(docs_dir: Path, folder: str, order: tuple[str, ...] = ()) -> list[Any]:
    """The pages of a folder (``order`` first, then by name), each sub-folder as a nested section."""
    base = docs_dir / folder
    pages = sorted(p.stem for p in base.glob("*.md"))
    ranked = [p for p in order if p in pages] + [p for p in pages if p not in order]
    items: list[Any] = [f"{folder}/{p}.md" for p in ranked]
    for sub in sorted(d for d in base.iterdir() if d.is_dir()) if base.is_dir() else []:
        inner = _section_pages(docs_dir, f"{folder}/{sub.name}", ("index",))
        if inner:
            items.append({sub.name.replace("_", " ").replace("-", " ").capitalize(): inner})
    return items


def _fill_nav(nav: list[Any], docs_dir: Path) -> list[Any]:
    """Replace the placeholder strings ``auto:<folder>`` in the nav with that folder's pages."""
    out: list[Any] = []
    for item in nav:
        if isinstance(item, dict):
            filled = {}
            for title, value in item.items():
                if isinstance(value, str) and value.startswith("auto:"):
                    folder = value.removeprefix("auto:")
                    order = METHODOLOGY_ORDER if folder == "methodology" else ("index",)
                    filled[title] = _section_pages(docs_dir, folder, order)
                elif isinstance(value, list):
                    filled[title] = _fill_nav(value, docs_dir)
                else:
                    filled[title] = value
            if any(v != [] for v in filled.values()):
                out.append(filled)
        else:
            out.append(item)
    return out


def on_config(config: Any) -> Any:
    if config.get("nav"):
        config["nav"] = _fill_nav(config["nav"], Path(config["docs_dir"]))
    return config


# The whole source of every generated page: constant, so the macro engine and Markdown never see a value.
# (render_macros: false is a second guard, not the first: the page's HTML is not in the source at all.)
STUB = "---\nrender_macros: false\nsearch:\n  boost: 0.5\n---\n\n<!-- the model page; see hooks.py -->\n"
# The characters a page title keeps besides letters and digits of any script.
_TITLE_KEEPS = " .,:;_+-()/"
TITLE_MAX = 120


@dataclass(frozen=True)
class GeneratedPage:
    title: str  # plain text (``plain_title``): the theme places it unescaped in <title> and the header
    html: str  # the finished page body, every value escaped


# This build's generated pages by source path, filled by on_files and read by on_page_content.
_pages: dict[str, GeneratedPage] = {}


def _title_char(c: str) -> bool:
    # Letters, digits and combining marks of any script (a Devanagari name keeps its vowel signs).
    return c.isalnum() or unicodedata.category(c).startswith("M") or c in _TITLE_KEEPS


def plain_title(name: str, fallback: str) -> str:
    """A model name as the page's title: letters, digits and a little punctuation, nothing markup can read.

    The theme writes ``page.title`` into <title> (through ``striptags``, which unescapes entities) and the
    header (as is), so no escaping is right for both: the title keeps only characters that need none. The
    full name is in the page's own <h1>, escaped."""
    text = "".join(c if _title_char(c) else " " for c in unicodedata.normalize("NFKC", name))
    text = re.sub(r"\s+", " ", text).strip()[:TITLE_MAX].strip()
    return text or fallback


def _page(title: str, body: str, fallback: str) -> GeneratedPage:
    """A generated page: an escaped <h1> and ``body`` (finished, escaped HTML)."""
    return GeneratedPage(title=plain_title(title, fallback), html=f"<h1>{esc(title)}</h1>\n\n{body}\n")


def model_page(board: Any, slug: str, index: IndexSite | None = None, pages: ModelPages | None = None) -> GeneratedPage:
    """A board row's page: the card, and the row's index model when it has one."""
    row = board.row(slug)
    links = Links(root="../../", repo=None if index is None else index.repo_url)
    model_id = None if pages is None else pages.merged.get(slug)
    if index is not None and model_id is not None:
        entry = _index_row(index, model_id).entry
        body = (
            f'<p class="lb-note">Our run of this model: <code>{esc(row.model)}</code>.</p>\n\n'
            f'<h2 id="our-run">Our run</h2>\n\n{card_html(board, row, links, heading_level=3)}\n\n'
            f'<h2 id="small-lm-index">Small LM Index</h2>\n\n{index.model_html(model_id)}'
        )
        return _page(entry.name, body, slug)
    body = card_html(board, row, links)
    other = None if pages is None else pages.also.get(slug)
    if index is not None and pages is not None and other is not None:
        name = _index_row(index, other).entry.name
        body = (
            f'<p class="lb-note">Small LM Index entry for this model: '
            f'<a href="../{esc(pages.index_page[other])}/">{esc(name)}</a>.</p>\n\n{body}'
        )
    return _page(row.model, body, slug)


def index_model_page(index: IndexSite, model_id: str) -> GeneratedPage:
    """An index model's page when no board row carries it."""
    return _page(_index_row(index, model_id).entry.name, index.model_html(model_id), model_id)


def _index_row(index: IndexSite, model_id: str) -> IndexRow:
    row = index.result().row(model_id)
    if row is None:  # the pages are planned from the same index, so this is a bug, not bad input
        raise KeyError(f"the Small LM Index has no model '{model_id}'")
    return row


def _index_site(config: Any) -> IndexSite:
    root = Path(config["config_file_path"]).resolve().parent
    return IndexSite(root, repo_url=config.get("repo_url"), board=lambda: site_board(config))


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """A generated page's HTML, placed after the macro engine and Markdown have seen only ``STUB``: whatever
    they made of the stub is replaced whole."""
    generated = _pages.get(page.file.src_uri)
    if generated is None:
        return html
    page.meta["title"] = generated.title
    return generated.html


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Every Small LM Index page ends with the way to correct a figure on it."""
    url = correction_url(config.get("repo_url"))
    if url is None or not page.file.src_uri.startswith("index/"):
        return markdown
    return (
        f'{markdown}\n\n<p class="sli-correct">A figure here looks wrong? <a href="{esc(url)}" '
        'rel="nofollow">Report it with the correction form</a> (it asks for a link to the source).</p>\n'
    )


def _add_page(files: Files, config: Any, src_uri: str, page: GeneratedPage) -> None:
    _pages[src_uri] = page
    files.append(File.generated(config, src_uri, content=STUB))


def _add_task_pages(files: Files, config: Any, board: Any) -> None:
    """A page per task (every model's trials) with its trials as a JSON file beside it, and the list of
    them. The JSON is data the page's script places as text; it never meets the macro engine or Markdown."""
    runs = model_runs(board.rows, site_runs(config))
    # The bank's tasks, for replaying each world trial's calls (world_view.py): read-only, nothing stored.
    bank = bank_tasks({t.task_id for m in runs for t in m.run.trials})
    tasks = task_evidence(runs, bank)
    if not tasks:
        return
    links = Links(root="../../")
    for task in tasks:
        page = _page(task.task_id, task_page_html(task, links), task.slug)
        _add_page(files, config, f"tasks/{task.slug}.md", page)
        files.append(File.generated(config, f"tasks/{task.slug}/{DATA_FILE}", content=evidence_json(task.document)))
    _add_page(files, config, "tasks/index.md", _page("Tasks", tasks_index_html(tasks), "tasks"))


def on_files(files: Files, config: Any) -> Files:
    board = site_board(config)
    index = _index_site(config)
    pages = plan_model_pages([(r.model, r.slug) for r in board.rows], index.entries())
    _pages.clear()  # `mkdocs serve` rebuilds in the same process: only this build's pages
    for row in board.rows:
        _add_page(files, config, f"models/{row.slug}.md", model_page(board, row.slug, index, pages))
    for model_id in pages.index_only():
        _add_page(files, config, f"models/{pages.index_page[model_id]}.md", index_model_page(index, model_id))
    _add_task_pages(files, config, board)
    # The sweep pages (engine/publish/site/sweep_pages.py), through the same stub, and a link from each model page.
    add_sweep_pages(config, board, _pages, lambda src, title, body, fallback: _add_page(
        files, config, src, _page(title, body, fallback)))
    for name in ("url-state.js", "board.js", "board.css", "site.css", "evidence.js", "evidence.css"):
        files.append(File.generated(config, f"assets/{name}", abs_src_path=str(STATIC_DIR / name)))
    files.append(File.generated(config, "leaderboard.json", content=board_json(board)))
    # The data behind the board and the Index table, as files the pages link to.
    files.append(File.generated(config, BOARD_CSV, content=board_csv(board)))
    index_rows = table_rows(index.result())
    files.append(File.generated(config, INDEX_CSV, content=index_csv(index_rows)))
    prices = {row.entry.id: row.entry.pricing for row in index.result().rows}
    files.append(File.generated(config, INDEX_JSON, content=index_json(index_rows, prices)))
    return files
