"""The Small LM Index pages' macros: the data loaded and fitted once per build, and the macros registered.

What the pages show is computed in the files beside this one, so templates only place finished text: the
table (``index_table``), the charts (``index_charts``), a model's page (``index_model_page``), where each page
lives (``index_page_plan``) and the calculator (``index_calculator``). Every string that reaches HTML goes
through ``engine.publish.escape.esc`` (model names and notes come from data files and are not trusted).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.index.data import DEFAULT_DATA_DIR, load_entries
from engine.index.index import IndexResult, IndexRow
from engine.index.provenance import CANNOT_CHECK_HERE, unchecked_reason
from engine.index.published import published_index
from engine.index.schema import CORE_BENCHMARKS, ModelEntry
from engine.index.validate import ValidationReport, validation_table_markdown
from engine.publish.board import Board
from engine.publish.site.context import site_board
from engine.publish.site.index_calculator import render_calculator_html
from engine.publish.site.index_charts import CHART_LABELS, chart_points, render_scatter_svg
from engine.publish.site.index_model_page import ModelPage, model_page_data, render_model_html
from engine.publish.site.index_page_plan import plan_model_pages
from engine.publish.site.index_table import render_front_html, render_table_html, table_rows
from engine.publish.site.own_runs import OwnRun, own_runs_from_board


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

    def model_data(self, model_id: str) -> ModelPage:
        return model_page_data(self.result(), model_id, self.own_runs(), self.repo_url)

    def model_html(self, model_id: str) -> str:
        return render_model_html(self.model_data(model_id))

    def has_speed(self) -> bool:
        return any(e.speed is not None for e in self.entries())

    def validation(self) -> ValidationReport:
        if "validation" not in self._cache:
            self.result()
        return self._cache["validation"]



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
        rows = table_rows(site.result())
        return render_front_html(rows, page_folders(), root, limit)

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
