"""``sllmb graders``: how often the graders agree with a person, measured on the labelled answer corpus."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.core.errors import UserError
from engine.corpus.replay import CaseResult, ModuleAccuracy, accuracy, evaluate, load_corpus
from engine.corpus.schema import batch_number
from engine.episodes import SPECS
from engine.sandbox.handle import SandboxHandle, sandbox_or_reason

DEFAULT_CORPUS = Path("tests") / "corpus"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "graders",
        help="measure grader accuracy on the labelled answer corpus",
        description="Replay every case of the answer corpus (tests/corpus/<module>/<task>.yaml: answers in the "
        "styles real models use, each labelled pass or fail by a person) through the real runner against a "
        "loopback scripted server, and print per module the cases, the false fails (labelled pass, graded "
        "fail) and the false passes (labelled fail, graded pass). Exits 1 when any case is misgraded.",
    )
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the corpus folder (default tests/corpus)")
    p.add_argument("--tasks-dir", type=Path, help="task bank folder (default ./tasks)")
    p.add_argument("--filter", "-k", dest="pattern", help="glob or substring on task ids")
    p.add_argument("--modules", type=lambda s: [m for m in s.split(",") if m], help="comma-separated modules")
    p.add_argument("--batch", type=lambda s: [b for b in s.split(",") if b],
                   help="comma-separated corpus batches (b0 is the corpus before batches; first-sight records "
                   "live in results/first_sight)")
    p.add_argument("--first-sight", type=Path, metavar="FILE",
                   help="record this replay as the batch's first-sight accuracy in FILE (JSON; refuses to "
                   "overwrite: a batch is seen for the first time once). Needs exactly one --batch")
    p.add_argument("--sandbox", help="code sandbox backend for the code cases (default: the first that works)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of tables")
    p.add_argument("--write", type=Path, help="also write the summary JSON to this file (the site reads it)")
    p.set_defaults(func=handle)


def summary(results: list[CaseResult]) -> dict:
    """What the site publishes: per-module counts and each misgraded case. Deterministic (no timestamps),
    so a test can compare the committed file with a fresh evaluation."""
    table = accuracy(results)
    return {
        "cases": len(results),
        "false_fails": sum(m.false_fails for m in table),
        "false_passes": sum(m.false_passes for m in table),
        "errors": sum(m.errors for m in table),
        "modules": [asdict(m) for m in table],
        "batches": {b: {"cases": sum(r.batch == b for r in results),
                        "wrong": sum(r.batch == b and not r.correct for r in results)}
                    for b in sorted({r.batch for r in results}, key=batch_number)},
        "misgraded": [asdict(r) for r in results if not r.correct],
    }


def _selected(corpus_dir: Path, pattern: str | None, modules: list[str] | None,
              batches: list[str] | None = None) -> list:
    files = load_corpus(corpus_dir)
    if batches:
        files = [f for f in files if f.batch in batches]
    if pattern:
        glob = pattern if any(c in pattern for c in "*?[") else f"*{pattern}*"
        files = [f for f in files if fnmatch.fnmatch(f.task, glob)]
    if modules:
        # The module is the folder the file sits in; the bank confirms it when the case runs.
        keep = {p.stem for m in modules for p in (corpus_dir / m).glob("*.yaml")}
        files = [f for f in files if f.task in keep]
    if not files:
        raise UserError("no corpus file matches the selection (check --filter and --modules)")
    return files


def _sandbox(name: str | None, files: list, corpus_dir: Path) -> SandboxHandle | None:
    code_modules = [spec.name for spec in SPECS.values() if spec.runs_code]
    if not any((corpus_dir / m / f"{f.task}.yaml").is_file() for m in code_modules for f in files):
        return None
    handle, label = sandbox_or_reason(name)
    if handle is None:
        raise UserError(f"the code cases need a sandbox and {label}; or leave them out with --modules")
    return handle


def _print_tables(table: list[ModuleAccuracy], results: list[CaseResult]) -> None:
    console = Console(stderr=False)
    out = Table(title=f"Grader accuracy on {len(results)} labelled cases")
    for col in ("module", "cases", "should pass", "should fail", "false fails", "false passes", "errors"):
        out.add_column(col, justify="left" if col == "module" else "right")
    for m in table:
        out.add_row(m.module, str(m.cases), str(m.should_pass), str(m.should_fail), str(m.false_fails),
                    str(m.false_passes), str(m.errors))
    out.add_row("all", str(len(results)), *(str(sum(getattr(m, f) for m in table)) for f in
                ("should_pass", "should_fail", "false_fails", "false_passes", "errors")), style="bold")
    console.print(out)
    for r in results:
        if not r.correct:
            console.print(f"[red]misgraded[/red] {r.task}/{escape(r.case)}: labelled {r.expect}, graded {r.got} "
                          f"({escape(r.reason[:160])}); label: {escape(r.why)}")


def _record_first_sight(path: Path, batch: str, results: list[CaseResult]) -> None:
    """Write what the graders made of a batch the first time they saw it, with the commit they were at."""
    if path.exists():
        raise UserError(f"{path}: a first-sight record exists already; a batch is seen for the first time once "
                        f"(write a new batch to measure again)")
    import subprocess
    from datetime import date

    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "engine", "tasks"], capture_output=True,
                           text=True, check=False).stdout.strip()
    record = {"batch": batch, "date": date.today().isoformat(), "grader_commit": commit or None,
              "grader_tree_clean": not dirty, **summary(results)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def handle(args: argparse.Namespace) -> int:
    if args.first_sight and len(args.batch or []) != 1:
        raise UserError("--first-sight records one batch: pass exactly one --batch (e.g. --batch b2)")
    files = _selected(args.corpus, args.pattern, args.modules, args.batch)
    sandbox = _sandbox(args.sandbox, files, args.corpus)
    total = sum(len(f.cases) for f in files)
    done = {"n": 0}

    def progress(result: CaseResult) -> None:
        done["n"] += 1
        if done["n"] % 25 == 0 or done["n"] == total:
            print(f"  {done['n']}/{total} cases replayed", file=sys.stderr)

    results = evaluate(files, args.tasks_dir, sandbox=sandbox, on_case=progress)
    data = summary(results)
    if args.first_sight:
        _record_first_sight(args.first_sight, args.batch[0], results)
    if args.write:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        _print_tables(accuracy(results), results)
    return 0 if all(r.correct for r in results) else 1
