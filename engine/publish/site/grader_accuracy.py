"""The methodology's grader-accuracy tables, rendered from ``results/graders.json`` and ``results/first_sight/``.

``results/graders.json`` is what ``sllmb graders --write results/graders.json`` prints as JSON: the whole
labelled corpus replayed through the real runner with today's graders (a test keeps it equal to a fresh
replay). Each ``results/first_sight/<batch>.json`` is what ``sllmb graders --batch <batch> --first-sight``
recorded the first time the graders saw that batch, before anything was changed for it. The site only formats
these files.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.analysis.stats import wilson_interval
from engine.corpus.label_review import review_for, under_review
from engine.corpus.schema import BATCH, batch_number
from engine.publish.escape import esc

PUBLISHED = Path("results") / "graders.json"
FIRST_SIGHT = Path("results") / "first_sight"


def _rate(wrong: int, cases: int) -> str:
    """'3 of 52 (5.8%; 95% 2.0–15.6%)': the error rate with its Wilson interval."""
    if cases == 0:
        return "no cases"
    low, high = wilson_interval(wrong, cases)
    return f"{wrong} of {cases} ({100 * wrong / cases:.1f}%; 95% {100 * low:.1f}–{100 * high:.1f}%)"


def _module_table(data: dict) -> list[str]:
    rows = ["| module | cases | should pass | should fail | false fails | false passes | wrong (95% interval) |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for m in data["modules"]:
        wrong = m["false_fails"] + m["false_passes"] + m["errors"]
        rows.append(f"| {esc(m['module'])} | {m['cases']} | {m['should_pass']} | {m['should_fail']} | "
                    f"{m['false_fails']} | {m['false_passes']} | {_rate(wrong, m['cases'])} |")
    wrong = data["false_fails"] + data["false_passes"] + data["errors"]
    rows.append(f"| **all** | **{data['cases']}** | {sum(m['should_pass'] for m in data['modules'])} | "
                f"{sum(m['should_fail'] for m in data['modules'])} | **{data['false_fails']}** | "
                f"**{data['false_passes']}** | **{_rate(wrong, data['cases'])}** |")
    return rows


def first_sight_markdown(project_dir: Path) -> str:
    """One table per recorded batch: how wrong the graders were on answers they had never seen."""
    folder = project_dir / FIRST_SIGHT
    # Newest batch first: its first sight is the estimate a reader should take (the page says why).
    named = [p for p in folder.glob("b*.json") if BATCH.match(p.stem)] if folder.is_dir() else []
    records = sorted(named, key=lambda p: batch_number(p.stem), reverse=True)
    if not records:
        return ("*No first-sight record yet: write a batch of new cases, then run "
                "`sllmb graders --batch bN --first-sight results/first_sight/bN.json` before changing anything.*")
    out: list[str] = []
    for path in records:
        data = json.loads(path.read_text(encoding="utf-8"))
        commit = data.get("grader_commit") or "unknown"
        out.append(f"**Batch {esc(data['batch'])}**, first seen on {esc(data['date'])} by the "
                   f"graders at commit `{esc(commit[:12])}`:")
        out.append("")
        out.extend(_module_table(data))
        out.append("")
        review = review_for(project_dir, data["batch"])
        if review is not None:
            # The verdicts stay the first sight's; only the labels are the review's (engine/corpus/label_review.py).
            out.append(f"*Label review* ({esc(review.date)}): {esc(review.how)} It covered every case of "
                       f"{esc(', '.join(review.modules))} ({review.cases_reviewed} cases) and changed "
                       f"{len(review.changes)} label{'' if len(review.changes) == 1 else 's'} "
                       f"(`results/label_reviews/{esc(review.batch)}.yaml`). The same "
                       f"first-sight verdicts, read against the reviewed labels:")
            out.append("")
            out.extend(_module_table(under_review(data, review)))
            out.append("")
    return "\n".join(out)


def grader_accuracy_markdown(project_dir: Path) -> str:
    path = project_dir / PUBLISHED
    if not path.is_file():
        return ("*No grader-accuracy table yet: run `sllmb graders --write results/graders.json` and commit "
                "the file.*")
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = _module_table(data)
    misgraded = data.get("misgraded") or []
    if misgraded:
        rows.append("")
        rows.append("Cases the graders still get wrong:")
        rows.append("")
        for r in misgraded:
            rows.append(f"- `{esc(r['task'])}` / `{esc(r['case'])}`: labelled {r['expect']}, "
                        f"graded {r['got']} ({esc(r['why'])})")
    return "\n".join(rows)
