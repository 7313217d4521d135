"""The pull-request check for a new model: re-derive every file the pull request changes under ``results/`` and
its ``models.yaml`` rows, list every problem, and say where each changed model lands on the board, as Markdown
(the pr-model workflow appends it to the job summary).

Nothing in a result file is taken on trust (``engine.run.rederive``, ``engine.analysis.judge_check``): each
graded trial is regraded from its transcript, each other trial's record is what the runner writes, hashes,
trial counts and seeds are the runner's, and a judged file is re-applied under the judge's rules. On top,
the rules of the reference folder: the file is the one the runner writes for a ``models.yaml`` row, in
``results/reference/``, and scores every trial. ``sllmb pr-check`` (engine/commands/pr_check.py) is the
command. The workflow runs the base commit's copy of this code on the pull request's files: nothing of the
pull request runs (see ``.ci/pr-check``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml
from pydantic import BaseModel, ValidationError

from engine.analysis.judge import JudgedFile
from engine.analysis.judge_check import rederive_judged
from engine.core.errors import UserError
from engine.core.models_file import ModelsFile, load_models
from engine.core.results import FLEET_DIR, RAW_SUFFIX, model_slug
from engine.core.schema import RunFile, module_context
from engine.episodes import MODULE_NAMES, SPECS
from engine.index.data import load_entry
from engine.publish.board import Board, board_from_dir
from engine.publish.html import fmt, plural, separable_text
from engine.publish.mdsafe import md_code, md_text
from engine.publish.pr_files import Change, base_blob, changed_paths
from engine.publish.pr_sweeps import REPORT, rebuilt_report_problems, sweep_folder, where_in_sweep
from engine.publish.reference import flag_text
from engine.run.rederive import rederive_run
from engine.run.rescore import regradable
from engine.sandbox.handle import SandboxHandle

REFERENCE = FLEET_DIR.as_posix()
REPORTED = "results/reported"
JUDGED_SUFFIX = "_judged.json"
# Files of results/ a pull request may change without this check reading them: the fleet's notes and what
# `sllmb graders` writes (a test keeps each equal to a fresh replay of the corpus).
NOT_READ = (f"{REFERENCE}/README.md", "results/graders.json")
NOT_READ_FOLDERS = ("results/first_sight",)
# A reference file of the whole bank at 3 trials is about 1 MB; anything far past that is refused unread.
MAX_FILE_BYTES = 64 * 1024 * 1024
# Problems listed per file; the rest are counted (a job summary holds at most 1 MiB: 300 lines are ~100 KB).
MAX_LISTED = 300


@dataclass(frozen=True)
class Finding:
    """One problem of the pull request: the repository-relative path, where in the file, the field, why."""

    path: str
    where: str
    field: str
    message: str

    def markdown(self) -> str:
        parts = [md_code(self.path)] + [md_code(x) for x in (self.where, self.field) if x]
        return f"- {' · '.join(parts)}: {md_text(self.message)}"


@dataclass
class CheckResult:
    problems: list[Finding] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # Markdown lines, already safe
    judge: list[str] = field(default_factory=list)  # Markdown lines, already safe
    landing: list[str] = field(default_factory=list)  # Markdown lines, already safe

    @property
    def ok(self) -> bool:
        return not self.problems

    def markdown(self) -> str:
        lines = ["## Model check", ""]
        if self.problems:
            lines += [f"**{len(self.problems)} problem(s): the pull request cannot be merged as it is.** "
                      "Each names the file, where in it, the field and the fix.", ""]
            lines += _listed(self.problems)
        else:
            lines.append("**Every changed file re-derives.**")
        if self.checked:
            lines += ["", "### What was checked", "", *self.checked]
        lines += ["", "### What a maintainer still judges", "", *MAINTAINER, *self.judge]
        if self.landing:
            lines += ["", *self.landing]
        return "\n".join(lines) + "\n"


MAINTAINER = [
    "- The transcripts themselves. Regrading shows that every grade follows from the stored replies, not that "
    "this model wrote them at these settings: for a surprising row, re-run a sample of its tasks against the "
    "same model with `sllmb verify` (see CONTRIBUTING.md).",
    "- The judge's answers, where a judged file moves verdicts: the rules applied to them are re-derived, what "
    "the judge said is not (that needs a judge).",
    "- The settings each row ran at (flagged below where they differ from the declared reference setting), and "
    "the hardware and server the pull request names.",
]


def _listed(problems: list[Finding]) -> list[str]:
    out, per_file = [], {}
    for p in problems:
        per_file[p.path] = per_file.get(p.path, 0) + 1
        if per_file[p.path] <= MAX_LISTED:
            out.append(p.markdown())
    for path, count in per_file.items():
        if count > MAX_LISTED:
            out.append(f"- {md_code(path)}: {count - MAX_LISTED} more problem(s) of this file; run "
                       "`sllmb pr-check` locally to see them all")
    return out


# ----------------------------------------------------------------------------------------------------------
# Reading a file of the pull request


def _read(root: Path, rel: str, problems: list[Finding]) -> bytes | None:
    path = root / rel
    if path.is_symlink():
        problems.append(Finding(rel, "", "", "a symbolic link; commit the file itself"))
        return None
    try:
        size = path.stat().st_size
    except OSError as exc:
        problems.append(Finding(rel, "", "", f"cannot be read ({exc.strerror})"))
        return None
    if size > MAX_FILE_BYTES:
        problems.append(Finding(rel, "", "", f"{size:,} bytes, over the {MAX_FILE_BYTES:,} this check reads"))
        return None
    return path.read_bytes()


def _validate(root: Path, rel: str, cls: type[BaseModel], what: str, problems: list[Finding],
              hint: Callable[[dict], str | None] = lambda err: None) -> BaseModel | None:
    """The file validated as ``cls``, or None with every validation error listed as a problem."""
    data = _read(root, rel, problems)
    if data is None:
        return None
    try:
        return cls.model_validate_json(data, context=module_context(MODULE_NAMES))
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(top level)"
            msg = "unknown key; remove it or fix its spelling" if err["type"] == "extra_forbidden" else err["msg"]
            problems.append(Finding(rel, "", where, f"not a valid {what}: {hint(err) or msg}"))
        return None


def _user_error(rel: str, exc: UserError, root: Path) -> list[Finding]:
    """A loader's message (the file, then a line per field) as problems with repository-relative paths."""
    lines = str(exc).replace(f"{root}{os.sep}", "").splitlines()
    fields = [line.strip() for line in lines[1:] if line.strip()]
    return [Finding(rel, "", "", line) for line in (fields or lines)]


def _raw_sha_hint(err: dict) -> str | None:
    if err["loc"] == ("raw_sha256",) and err["type"] == "missing":
        return ("a judged file names the SHA-256 of the raw file it judged, and this one (written before it "
                "did) does not; run `sllmb judge` again and commit the judged file it writes")
    return None


# ----------------------------------------------------------------------------------------------------------
# The checks


def where_it_belongs(rel: str) -> str | None:
    """Why the pull request may not add ``rel`` under results/, or None when this check reads or allows it."""
    parts = PurePosixPath(rel).parts
    name = parts[-1]
    if rel in NOT_READ or str(PurePosixPath(rel).parent) in NOT_READ_FOLDERS:
        return None
    if sweep_folder(rel) is not None:
        return where_in_sweep(rel)
    if rel.startswith(REPORTED + "/") and len(parts) == 3 and name.endswith(".yaml"):
        return None
    in_reference = rel.startswith(REFERENCE + "/")
    if in_reference and len(parts) == 3 and (name.endswith(RAW_SUFFIX) or name.endswith(JUDGED_SUFFIX)):
        return None
    if rel == f"{REFERENCE}/setting.yaml":
        # The board scores and flags every row against it: a model's pull request may not move the goalposts.
        return ("the declared reference setting is the maintainers' to change, in a pull request of its own; "
                "leave it out of a model's pull request")
    if name.endswith(RAW_SUFFIX) or name.endswith(JUDGED_SUFFIX):
        return f"a result file belongs in {REFERENCE}/ (the folder the board is built from): move it there"
    if name.endswith("_rescored.json"):
        return ("a rescored file is not read by the board: `sllmb rescore --in-place` rewrites the raw file "
                "itself; commit that instead")
    if name.endswith((".partial.jsonl", ".bak", ".lock", ".tmp")):
        return "the run's checkpoint, backup or lock: leave it out of the pull request"
    if in_reference:
        return (f"{REFERENCE}/ holds only <model>{RAW_SUFFIX} and <model>{JUDGED_SUFFIX} files (and its "
                "README.md); leave this out or move it")
    return (f"results/ holds result files in {REFERENCE}/, index data in {REPORTED}/<id>.yaml and what "
            "`sllmb graders` writes; move it there or leave it out")


def changed_model_rows(base: str, root: Path, current: ModelsFile) -> list[str]:
    """Names of models.yaml rows that are new or differ from the base commit's."""
    before: dict = {}
    blob = base_blob(base, root, "models.yaml")
    if blob is not None:
        try:
            doc = yaml.safe_load(blob) or {}
        except yaml.YAMLError:
            doc = {}
        rows = doc.get("models", []) if isinstance(doc, dict) else []
        before = {row.get("name"): row for row in rows if isinstance(row, dict)}
    return [m.name for m in current.models if before.get(m.name) != m.model_dump(exclude_unset=True, mode="json")]


def _deleted_reference(base: str, root: Path, rel: str, models: ModelsFile | None) -> list[Finding]:
    """A reference file the pull request deletes must take its models.yaml row with it."""
    blob = base_blob(base, root, rel)
    try:
        name = json.loads(blob or b"{}").get("settings", {}).get("model")
    except (ValueError, AttributeError):
        name = None
    if models is None or not isinstance(name, str) or models.find(name) is None:
        return []
    return [Finding(rel, "", "", f"deleted, which takes model {name!r} off the board, but models.yaml keeps its "
                                 "row: remove the row in the same pull request, or keep the file")]


def _check_names(rel: str, run: RunFile, models: ModelsFile | None) -> list[Finding]:
    name = run.settings.model
    expected = f"{REFERENCE}/{model_slug(name)}{RAW_SUFFIX}"
    out = []
    if models is not None and models.find(name) is None:
        stem = PurePosixPath(rel).name.removesuffix(RAW_SUFFIX)
        row = next((m.name for m in models.models if model_slug(m.name) == stem), None)
        hint = (f" (this file's name belongs to the row {row!r}: a result file carries its row's name, so run "
                f"with --model {row} or rename the row)") if row else ": add its row (CONTRIBUTING.md)"
        out.append(Finding(rel, "settings", "model", f"{name!r} has no models.yaml row of that name{hint}"))
    if rel != expected:
        out.append(Finding(rel, "", "", f"model {name!r}'s result file is {expected} (the name the runner gives "
                                        f"it, in the folder the board is built from): move it there "
                                        f"(git mv {rel} {expected})"))
    return out


def _check_reference_rules(rel: str, run: RunFile) -> list[Finding]:
    """What a row of the board needs beyond re-deriving: every trial scored, every task run."""
    out = []
    excluded = [f"{t.task_id}#{t.trial}" for t in run.trials if t.infra or t.invalid_reason is not None]
    if excluded:
        shown = ", ".join(excluded[:8]) + (" …" if len(excluded) > 8 else "")
        out.append(Finding(rel, "trials", "infra", f"{len(excluded)} trial(s) excluded as infrastructure failures "
                                                   f"or invalid ({shown}): nothing can re-derive an exclusion, so "
                                                   "a reference file scores every trial; re-issue the same "
                                                   "`sllmb run` command, which re-runs exactly those"))
    skipped = sorted(run.provenance.skipped_tasks)
    if skipped:
        out.append(Finding(rel, "provenance", "skipped_tasks", f"{len(skipped)} task(s) skipped "
                                                               f"({', '.join(skipped[:8])}): install a sandbox "
                                                               "(bubblewrap or Docker) and re-issue the same "
                                                               "`sllmb run` command, which runs only those"))
    return out


def _checked_line(rel: str, run: RunFile) -> str:
    graded = sum(1 for t in run.trials if regradable(t))
    code = sum(1 for t in run.trials if regradable(t) and t.module in SPECS and SPECS[t.module].runs_code)
    tasks = len({t.task_id for t in run.trials})
    return (f"- {md_code(rel)}: model {md_code(run.settings.model)}, {len(run.trials)} trials of {tasks} tasks "
            f"at {run.settings.trials} per task re-derived: {graded} regraded from their transcripts ({code} code "
            f"trials in the sandbox), {len(run.trials) - graded} checked against the record the runner writes")


@dataclass
class _Inputs:
    raw: dict[str, RunFile] = field(default_factory=dict)
    judged: list[str] = field(default_factory=list)
    sweeps: set[str] = field(default_factory=set)  # results/sweeps/<name> folders with a changed file


def _check_sweeps(root: Path, inputs: _Inputs, problems: list[Finding], checked: list[str],
                  sandbox_factory: Callable[[], SandboxHandle] | None, tasks_dir: Path) -> None:
    """A sweep's result files re-derived (not held to the reference folder's rules: they are no board row), and
    its report rebuilt from them."""
    for folder in sorted(inputs.sweeps):
        for path in sorted((root / folder).glob(f"*{RAW_SUFFIX}")):
            rel = f"{folder}/{path.name}"
            run = _validate(root, rel, RunFile, "result file", problems)
            if isinstance(run, RunFile):
                found = rederive_run(run, tasks_dir, sandbox_factory=sandbox_factory)
                problems.extend(Finding(rel, p.where, p.field, p.message) for p in found)
                checked.append(_checked_line(rel, run))
        report = f"{folder}/{REPORT}"
        data = _read(root, report, problems) if (root / report).exists() else None
        if data is not None:
            found_report = rebuilt_report_problems(root, folder, data)
            problems.extend(Finding(report, "", f, why) for f, why in found_report)
            if not found_report:
                checked.append(f"- {md_code(report)}: the report its result files give")


def run_check(base: str, root: Path, results_dir: Path, tasks_dir: Path,
              sandbox_factory: Callable[[], SandboxHandle] | None = None) -> CheckResult:
    result = CheckResult()
    problems = result.problems
    changes = changed_paths(base, root)
    models: ModelsFile | None = None
    try:
        models = load_models(root / "models.yaml")
    except UserError as exc:
        problems += _user_error("models.yaml", exc, root)
    models_changed = any(c.path == "models.yaml" for c in changes)
    rows = changed_model_rows(base, root, models) if models is not None and models_changed else []
    if rows:
        result.checked.append("- models.yaml rows added or changed (valid): " + ", ".join(md_code(n) for n in rows))

    inputs = _Inputs()
    raw_paths: list[str] = []
    for change in changes:
        rel = change.path
        if not rel.startswith("results/"):
            continue
        if change.status == "D":
            if rel.startswith(REFERENCE + "/") and rel.endswith(RAW_SUFFIX):
                problems += _deleted_reference(base, root, rel, models)
            continue
        if (root / rel).is_symlink():
            problems.append(Finding(rel, "", "", "a symbolic link; commit the file itself"))
            continue
        wrong = where_it_belongs(rel)
        if wrong:
            problems.append(Finding(rel, "", "", wrong))
        elif sweep_folder(rel) is not None:
            inputs.sweeps.add(sweep_folder(rel) or "")
        elif rel.startswith(REPORTED + "/"):
            try:
                load_entry(root / rel)
                result.checked.append(f"- {md_code(rel)}: valid index data")
            except UserError as exc:
                problems += _user_error(rel, exc, root)
        elif rel.endswith(RAW_SUFFIX):
            raw_paths.append(rel)
        elif rel.endswith(JUDGED_SUFFIX):
            inputs.judged.append(rel)
            raw = rel.removesuffix(JUDGED_SUFFIX) + RAW_SUFFIX
            if (root / raw).is_file() and raw not in raw_paths:
                raw_paths.append(raw)
            elif not (root / raw).is_file():
                problems.append(Finding(rel, "", "", f"a judged file needs its raw file beside it ({raw})"))

    for rel in raw_paths:
        run = _validate(root, rel, RunFile, "result file", problems)
        if not isinstance(run, RunFile):
            continue
        inputs.raw[rel] = run
        problems += _check_names(rel, run, models)
        found = rederive_run(run, tasks_dir, sandbox_factory=sandbox_factory)
        problems += [Finding(rel, p.where, p.field, p.message) for p in found]
        problems += _check_reference_rules(rel, run)
        result.checked.append(_checked_line(rel, run))

    for rel in inputs.judged:
        raw_rel = rel.removesuffix(JUDGED_SUFFIX) + RAW_SUFFIX
        judged = _validate(root, rel, JudgedFile, "judged file", problems, hint=_raw_sha_hint)
        run = inputs.raw.get(raw_rel)
        if not isinstance(judged, JudgedFile) or run is None:
            continue
        found = rederive_judged(judged, root / raw_rel, run)
        problems += [Finding(rel, p.where, p.field, p.message) for p in found]
        moved = [v for v in judged.verdicts if v.status in ("rescued", "demoted")]
        result.checked.append(f"- {md_code(rel)}: {len(judged.verdicts)} verdicts re-applied under the judge's "
                              f"rules, against the SHA-256 of {md_code(raw_rel)}")
        if moved and not found:
            rescued = sum(v.status == "rescued" for v in moved)
            result.judge.append(f"- {md_code(rel)}: the judge moved {len(moved)} verdict(s) ({rescued} rescued, "
                                f"{len(moved) - rescued} demoted), each within the rules; whether its answers "
                                "were fair is a maintainer's call (re-run `sllmb judge` with another judge)")

    _check_sweeps(root, inputs, problems, result.checked, sandbox_factory, tasks_dir)

    changed_models = [run.settings.model for run in inputs.raw.values()]
    if not rows and not changed_models:
        if not inputs.sweeps:
            result.checked.append("- No models.yaml row or result file changed.")
    elif result.ok and results_dir.is_dir() and models is not None:
        try:
            board = board_from_dir(results_dir, root / "models.yaml")
        except UserError as exc:
            problems += _user_error(REFERENCE, exc, root)
            return result
        result.landing += [f"### Where it lands (pass^{board.k}, {plural(len(board.rows), 'model')})", ""]
        for model in dict.fromkeys(changed_models + [n for n in rows if n not in changed_models]):
            result.landing.append(placement(board, model))
        result.landing += ["", f"On the board: {separable_text(board)}."]
    elif not result.ok:
        result.landing = ["### Where it lands", "", "Shown once the problems above are fixed."]
    return result


def placement(board: Board, model: str) -> str:
    row = next((r for r in board.rows if r.model == model), None)
    name = md_code(model)
    if row is None:
        return f"- {name}: not on the board built from this folder (no result file in {REFERENCE}/)"
    if row.rank is None:
        return f"- {name}: not ranked: {md_text(row.unranked_reason or '')}"
    above, below = board.neighbours(model)
    verdicts = []
    for other in (above, below):
        if other is None:
            continue
        pair = next(p for p in board.separability.pairs if {p.a, p.b} == {model, other.model})
        verdicts.append(
            f"{'separable' if pair.separable else 'not separable'} from {md_code(other.model)} "
            f"(Holm p = {pair.p_adjusted:.3g})"
        )
    judge = {"judged": "judged", "partial": "partly judged ⚠", "fallback": "not judged (hatched)"}[
        row.judge_state
    ]
    flags = "; ".join(md_text(flag_text(f)) for f in row.flags)
    return (
        f"- {name}: **{fmt(row.headline)}**, tier **{md_text(row.tier)}**, rank {row.rank} of {len(board.rows)}, "
        f"{judge}, size {md_text(row.size.label)}. "
        + ("; ".join(verdicts) or "the only model on the board")
        + (f". ⚑ {flags}" if flags else "")
    )


__all__ = ["CheckResult", "Change", "Finding", "changed_model_rows", "placement", "run_check", "where_it_belongs"]
