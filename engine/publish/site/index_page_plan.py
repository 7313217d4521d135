"""Where each index model's page lives under ``models/`` when the board's rows take folders too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.index.schema import ModelEntry


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
