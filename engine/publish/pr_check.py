"""The pull-request check for a new model: validate the changed models.yaml rows and result files, then say
where each changed model lands on the board, as Markdown (the workflow appends it to the job summary).

``sllmb pr-check`` (engine/commands/pr_check.py) is the command; a file that does not validate raises
``UserError`` with the file, field and fix.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from engine.analysis.judge import load_judged_file
from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.core.results import RAW_SUFFIX, load_run_file
from engine.publish.board import Board, board_from_dir
from engine.publish.html import fmt, plural
from engine.publish.reference import flag_text


def changed_files(base: str, root: Path) -> list[Path]:
    out = subprocess.run(
        ["git", "diff", "--name-only", "--diff-filter=ACMR", f"{base}...HEAD"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise UserError(
            f"git diff against {base!r} failed: {out.stderr.strip()}; fetch the base commit first"
        )
    return [root / line for line in out.stdout.splitlines() if line.strip()]


def changed_model_rows(base: str, root: Path) -> list[str]:
    """Names of models.yaml rows that are new or differ from the base commit."""
    current = load_models(root / "models.yaml")
    old = subprocess.run(
        ["git", "show", f"{base}:models.yaml"], cwd=root, capture_output=True, text=True, check=False
    )
    before = {}
    if old.returncode == 0:
        doc = yaml.safe_load(old.stdout) or {}
        before = {row.get("name"): row for row in doc.get("models", []) if isinstance(row, dict)}
    return [
        m.name for m in current.models if before.get(m.name) != m.model_dump(exclude_unset=True, mode="json")
    ]


def placement(board: Board, model: str) -> str:
    row = next((r for r in board.rows if r.model == model), None)
    if row is None:
        return f"- `{model}`: not on the board built from this folder"
    if row.rank is None:
        return f"- `{model}`: not ranked: {row.unranked_reason}"
    above, below = board.neighbours(model)
    verdicts = []
    for other in (above, below):
        if other is None:
            continue
        pair = next(p for p in board.separability.pairs if {p.a, p.b} == {model, other.model})
        verdicts.append(
            f"{'separable' if pair.separable else 'not separable'} from `{other.model}` "
            f"(Holm p = {pair.p_adjusted:.3g})"
        )
    judge = {"judged": "judged", "partial": "partly judged ⚠", "fallback": "not judged (hatched)"}[
        row.judge_state
    ]
    flags = "; ".join(flag_text(f) for f in row.flags)
    return (
        f"- `{model}`: **{fmt(row.headline)}**, tier **{row.tier}**, rank {row.rank} of {len(board.rows)}, "
        f"{judge}, size {row.size.label}. "
        + ("; ".join(verdicts) or "the only model on the board")
        + (f". ⚑ {flags}" if flags else "")
    )


def run_check(base: str, root: Path, results_dir: Path) -> str:
    lines = ["## Model check", ""]
    files = changed_files(base, root)
    models_changed = any(p.name == "models.yaml" and p.parent == root for p in files)
    rows = changed_model_rows(base, root) if models_changed else []
    load_models(root / "models.yaml")
    if rows:
        lines.append("models.yaml rows added or changed (valid): " + ", ".join(f"`{n}`" for n in rows))
    changed_models: list[str] = []
    for path in files:
        if path.name.endswith(RAW_SUFFIX):
            run = load_run_file(path)
            changed_models.append(run.settings.model)
            lines.append(
                f"- result file `{path.relative_to(root)}` is valid: model `{run.settings.model}`, "
                f"{len(run.trials)} trials"
            )
        elif path.name.endswith("_judged.json"):
            judged = load_judged_file(path)
            raw = path.with_name(path.name.removesuffix("_judged.json") + RAW_SUFFIX)
            if not raw.is_file():
                raise UserError(f"{path}: a judged file needs its result file beside it ({raw.name})")
            changed_models.append(judged.model)
            lines.append(
                f"- judged file `{path.relative_to(root)}` is valid: {judged.changed} verdict(s) changed"
            )
    if not rows and not changed_models:
        lines.append("No models.yaml row or result file changed.")
        return "\n".join(lines) + "\n"
    if results_dir.is_dir():
        board = board_from_dir(results_dir, root / "models.yaml")
        lines += ["", f"### Where it lands (pass^{board.k}, {plural(len(board.rows), 'model')})", ""]
        for model in dict.fromkeys(changed_models + [n for n in rows if n not in changed_models]):
            lines.append(placement(board, model))
        s = board.separability
        lines += ["", f"{s.separable_count} of {plural(s.pair_count, 'pair')} on the board separable."]
    return "\n".join(lines) + "\n"
