"""The methodology's grader-accuracy table, rendered from ``results/graders.json``.

That file is what ``sllmb graders --write results/graders.json`` prints as JSON: the labelled answer corpus
replayed through the real runner. The site only formats it; a test keeps the committed file equal to a fresh
replay, so the page cannot drift from the graders.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

PUBLISHED = Path("results") / "graders.json"


def grader_accuracy_markdown(project_dir: Path) -> str:
    path = project_dir / PUBLISHED
    if not path.is_file():
        return ("*No grader-accuracy table yet: run `sllmb graders --write results/graders.json` and commit "
                "the file.*")
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = ["| module | cases | should pass | should fail | false fails | false passes |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for m in data["modules"]:
        rows.append(f"| {html.escape(m['module'])} | {m['cases']} | {m['should_pass']} | {m['should_fail']} | "
                    f"{m['false_fails']} | {m['false_passes']} |")
    rows.append(f"| **all** | **{data['cases']}** | {sum(m['should_pass'] for m in data['modules'])} | "
                f"{sum(m['should_fail'] for m in data['modules'])} | **{data['false_fails']}** | "
                f"**{data['false_passes']}** |")
    misgraded = data.get("misgraded") or []
    if misgraded:
        rows.append("")
        rows.append("Cases the graders still get wrong:")
        rows.append("")
        for r in misgraded:
            rows.append(f"- `{html.escape(r['task'])}` / `{html.escape(r['case'])}`: labelled {r['expect']}, "
                        f"graded {r['got']} ({html.escape(r['why'])})")
    return "\n".join(rows)
