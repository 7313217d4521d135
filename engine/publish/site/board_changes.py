"""The Board changes page: the history of the board's result files (``engine/publish/board_history.py``) as a
table, each model linked to its page while it is on the board. Every string is escaped: a commit subject and a
file name are text from the repository, never markup."""

from __future__ import annotations

from engine.publish.board import Board
from engine.publish.board_history import MAX_COMMITS, BoardHistory
from engine.publish.escape import esc
from engine.publish.html import SCROLL, Links, plural

# What each entry says happened, in the words the page's readers see.
WHAT_TEXT = {
    "added": "added",
    "changed": "changed: rescored or re-run (the commit says which)",
    "removed": "removed",
}


def board_changes_html(history: BoardHistory, board: Board, links: Links) -> str:
    if history.unavailable is not None:
        return (
            f'<p class="lb-empty">{esc(history.unavailable[:1].upper() + history.unavailable[1:])}. The board '
            "itself is complete; only the list of its changes needs the repository's history.</p>"
        )
    if not history.changes:
        return (
            '<p class="lb-empty">No result file has been committed to the board yet: the first model added with '
            "its result file (see Add a model) starts this list.</p>"
        )
    page_of = {r.source_file: links.model(r.slug) for r in board.rows}
    rows = []
    for c in history.changes:
        href = page_of.get(c.file)
        model = f'<a href="{esc(href)}">{esc(c.model)}</a>' if href else esc(c.model)
        rows.append(
            f"<tr><td>{esc(c.date)}</td><td>{model}</td><td>{esc(WHAT_TEXT[c.what])}</td>"
            f"<td>{esc(c.subject)} <small><code>{esc(c.commit)}</code></small></td></tr>"
        )
    commits = len({c.commit for c in history.changes})
    cut = (
        f" Only the newest {MAX_COMMITS} commits that touched a result file are read; older changes are in the "
        "repository's history."
        if history.cut
        else ""
    )
    return (
        f'<p class="lb-note">{plural(len(history.changes), "change")} in {plural(commits, "commit")}, newest '
        f"first.{cut}</p>"
        f'{SCROLL}<table class="lb-t lb-changes"><thead><tr><th>Date (UTC)</th><th>Model</th>'
        "<th>What happened</th><th>Commit</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
