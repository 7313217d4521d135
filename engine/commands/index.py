"""``index``: the Small LM Index commands (validate, show, syncs, measure-speed, can-i-run)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from engine.core.errors import InfraError, UserError
from engine.core.textclip import shorten
from engine.index.aa import AA_BASE_ENV, AA_KEY_ENV, DEFAULT_AA_BASE, DEFAULT_AA_PATH, sync_aa
from engine.index.context_limit import cap_context
from engine.index.data import DEFAULT_DATA_DIR, chosen_scores, load_entries, today
from engine.index.hardware import DEVICES, FIT_SHARE, QUANT_BITS, Layout, device_named, estimate
from engine.index.provenance import by_lab, core_figures, provenance_stats
from engine.index.published import published_index
from engine.index.schema import CORE_BENCHMARKS
from engine.index.speed import DEFAULT_RUNS, DEFAULT_SPEED_BASE, SPEED_BASE_ENV, SPEED_KEY_ENV, measure_speed
from engine.index.sync import (
    DEFAULT_HF_BASE,
    DEFAULT_OPENROUTER_BASE,
    HF_BASE_ENV,
    OPENROUTER_BASE_ENV,
    base_url,
    sync_hub,
    sync_prices,
)
from engine.index.validate import format_report, leave_one_out, validation_table_markdown
from engine.publish.index_view import CORE_MARK, KIND_LABELS, KIND_MARKS, index_view, num_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help="the Small LM Index: validate the model, show a model's scores, sync prices and downloads",
        description="The Small LM Index over the vendor-reported scores in results/reported/.",
    )
    sub = parser.add_subparsers(dest="index_command", metavar="SUBCOMMAND", required=True)

    def data_dir_flag(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--data-dir",
            type=Path,
            default=DEFAULT_DATA_DIR,
            help=f"folder of model files (default: {DEFAULT_DATA_DIR})",
        )

    p = sub.add_parser(
        "validate",
        help="leave-one-out error of the one- and two-factor models vs a baseline, each core benchmark's verdict, "
        "and the figures to review",
    )
    data_dir_flag(p)
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument(
        "--markdown",
        action="store_true",
        help="print the table exactly as the methodology page shows it (a test compares the two)",
    )
    p.add_argument(
        "--no-split",
        action="store_true",
        help="fit each AIME year and LiveCodeBench version as one item (the model before the split)",
    )
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "stats",
        help="how many core figures cite their primary document and how many were checked against it, lab by lab",
    )
    data_dir_flag(p)
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("show", help="every benchmark of one model: reported or estimated, with ranges")
    p.add_argument("model", help="model id (the file name without .yaml)")
    data_dir_flag(p)
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "sync-prices", help="refresh prices and provider counts from the OpenRouter models API"
    )
    data_dir_flag(p)
    p.add_argument(
        "--base-url", help=f"service address (default: ${OPENROUTER_BASE_ENV} or {DEFAULT_OPENROUTER_BASE})"
    )
    p.set_defaults(func=cmd_sync_prices)

    p = sub.add_parser("sync-hub", help="refresh 30-day downloads and likes from the Hugging Face API")
    data_dir_flag(p)
    p.add_argument("--base-url", help=f"service address (default: ${HF_BASE_ENV} or {DEFAULT_HF_BASE})")
    p.set_defaults(func=cmd_sync_hub)

    p = sub.add_parser(
        "measure-speed",
        help="stream a fixed prompt through a provider (OpenRouter by default) and record median speed",
        description=(
            f"Needs ${SPEED_KEY_ENV}. Each model with an OpenRouter id is streamed --runs times; the median "
            "output tokens/s and time to first token are written to its file with the date and provider."
        ),
    )
    data_dir_flag(p)
    p.add_argument("--models", nargs="+", metavar="ID", help="model ids to measure (default: all with an id)")
    p.add_argument("--runs", type=int, default=DEFAULT_RUNS, help=f"runs per model (default {DEFAULT_RUNS})")
    p.add_argument(
        "--base-url", help=f"OpenAI-compatible base (default: ${SPEED_BASE_ENV} or {DEFAULT_SPEED_BASE})"
    )
    p.set_defaults(func=cmd_measure_speed)

    p = sub.add_parser(
        "sync-aa",
        help="import Artificial Analysis's independent scores and median speeds (needs $AA_API_KEY)",
    )
    data_dir_flag(p)
    p.add_argument("--base-url", help=f"API base (default: ${AA_BASE_ENV} or {DEFAULT_AA_BASE})")
    p.add_argument("--path", default=DEFAULT_AA_PATH, help=f"models listing path (default {DEFAULT_AA_PATH})")
    p.set_defaults(func=cmd_sync_aa)

    p = sub.add_parser("can-i-run", help="memory and decode speed of one model on one device")
    p.add_argument("model", help="model id")
    # A metavar, not the choices, in the usage line: the list made one unbreakable line of 88 columns.
    p.add_argument("--quant", default="Q4_K_M", choices=list(QUANT_BITS), metavar="QUANT",
                   help=f"weight quantisation: {', '.join(QUANT_BITS)} (default Q4_K_M)")
    p.add_argument("--context", type=int, default=8192, help="context length in tokens (default 8192)")
    p.add_argument("--device", default=DEVICES[5].name, help="device name, as listed by --list-devices")
    p.add_argument("--list-devices", action="store_true")
    data_dir_flag(p)
    p.set_defaults(func=cmd_can_i_run)


def cmd_validate(args: argparse.Namespace) -> int:
    report = leave_one_out(load_entries(args.data_dir), split=not args.no_split)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    elif args.markdown:
        print(validation_table_markdown(report))
    else:
        print(format_report(report))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    entries = load_entries(args.data_dir)
    chosen = [s for e in entries for b, s in chosen_scores(e).items() if b in CORE_BENCHMARKS]
    groups = (("all core figures in the files", core_figures(entries)), ("core figures the index uses", chosen))
    for label, scores in groups:
        st = provenance_stats(scores)
        print(
            f"{label}: {st.figures}; cite a primary document {st.with_primary} ({100 * st.primary_share:.1f}%); "
            f"checked against it {st.verified} ({100 * st.verified_share:.1f}%); read from a copy {st.from_copy}"
        )
    print()
    print("core figures per lab: checked / all (unchecked whose primary document cannot be read here)")
    for lab, st in by_lab(entries).items():
        if st.figures:
            name = shorten(lab, 46)
            print(f"  {name:<48}{st.verified:>4} / {st.figures:<4}({st.unreadable})")
    return 0


def show_data(model_id: str, data_dir: Path) -> dict:
    """``index show --json``: the model's view as the site shows it (every number rounded once, there)."""
    entries = load_entries(data_dir)
    result, report = published_index(entries)
    row = result.row(model_id)
    if row is None:
        known = ", ".join(sorted(e.id for e in entries)[:8])
        raise UserError(f"no model '{model_id}' in {data_dir} (ids are file names, e.g. {known}, ...)")
    view = index_view(result, row)
    benchmarks = []
    for f in view.figures:
        estimated = f.kind == "estimated"
        benchmarks.append(
            {
                "benchmark": f.benchmark,
                "core": f.core,
                "value": f.value,
                "label": f.kind,
                "variant": f.item if estimated else f.variant,
                "source_url": f.source_url,
                "secondary_url": f.secondary_url,
                "checked": f.checked,
                "evaluator": f.evaluator,
                "needs_verification": f.needs_verification,
                "low": f.low,
                "high": f.high,
                **({"capped": f.capped} if estimated else {}),
            }
        )
    return {
        "id": view.id,
        "name": view.name,
        "model": report.published_method,
        # Core benchmarks the model does not report and the index does not estimate, with the reason.
        "not_estimated": dict(view.not_estimated),
        "core_reported": view.core_count,
        "index": view.index,
        "index_low": view.index_low,
        "index_high": view.index_high,
        "benchmarks": benchmarks,
    }


def cmd_show(args: argparse.Namespace) -> int:
    data = show_data(args.model, args.data_dir)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    rng = (
        ""
        if data["index"] is None
        else f"  (95% range {num_text(data['index_low'])}–{num_text(data['index_high'])})"
    )
    print(f"{data['name']}  [{data['id']}]")
    print(f"Small LM Index: {num_text(data['index'])}{rng}   core benchmarks reported: {data['core_reported']}/6")
    print()
    # The marks and words of the site's model page: the core mark, and a figure's kind and its table mark.
    print(f"{'benchmark':<20}{'score':>7}  {'label':<14}{'range / variant'}")
    for b in data["benchmarks"]:
        name = b["benchmark"] + (f" {CORE_MARK}" if b["core"] else "")
        estimated = b["label"] == "estimated"
        extra = f"{num_text(b['low'])}–{num_text(b['high'])}" if estimated else (b["variant"] or "")
        label = KIND_LABELS[b["label"]] + (f" {KIND_MARKS[b['label']]}" if KIND_MARKS[b["label"]] else "")
        print(f"{name:<20}{num_text(b['value']):>7}  {label:<14}{extra}")
    for bench in data["not_estimated"]:
        print(f"{bench + ' ' + CORE_MARK:<20}{'—':>7}  {'not estimated (left out of the index, see index validate)'}")
    print(
        f"\n{CORE_MARK} core benchmark; {KIND_MARKS['independent']} measured independently; "
        f"{KIND_MARKS['other_lab']} from another lab's comparison. "
        "Estimated scores are the model's predictions, not measurements."
    )
    return 0


def _sync(args: argparse.Namespace, fn, env: str, default: str, what: str) -> int:
    base = base_url(args.base_url, env, default)
    try:
        report = fn(args.data_dir, base, today())
    except InfraError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.summary(what))
    return 0


def cmd_sync_prices(args: argparse.Namespace) -> int:
    return _sync(args, sync_prices, OPENROUTER_BASE_ENV, DEFAULT_OPENROUTER_BASE, "sync-prices")


def cmd_sync_hub(args: argparse.Namespace) -> int:
    return _sync(args, sync_hub, HF_BASE_ENV, DEFAULT_HF_BASE, "sync-hub")


def _key(env: str, command: str) -> str:
    key = os.environ.get(env, "").strip()
    if not key:
        raise UserError(
            f"{command}: set the environment variable {env} to your API key (it is never written)"
        )
    return key


def cmd_measure_speed(args: argparse.Namespace) -> int:
    key = _key(SPEED_KEY_ENV, "measure-speed")
    base = base_url(args.base_url, SPEED_BASE_ENV, DEFAULT_SPEED_BASE)
    report = measure_speed(args.data_dir, base, key, today(), models=args.models, runs=args.runs)
    print(report.summary())
    return 1 if report.failed and not report.measured else 0


def cmd_sync_aa(args: argparse.Namespace) -> int:
    key = _key(AA_KEY_ENV, "sync-aa")
    base = base_url(args.base_url, AA_BASE_ENV, DEFAULT_AA_BASE)
    try:
        report = sync_aa(args.data_dir, base, key, today(), path=args.path)
    except InfraError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.summary("sync-aa"))
    return 0


def cmd_can_i_run(args: argparse.Namespace) -> int:
    if args.list_devices:
        for device in DEVICES:
            print(device.name)
        return 0
    entries = {e.id: e for e in load_entries(args.data_dir)}
    if args.model not in entries:
        raise UserError(f"no model '{args.model}' in {args.data_dir}")
    entry = entries[args.model]
    context = cap_context(entry, args.context)
    result = estimate(Layout.of(entry), args.quant, context.tokens, device_named(args.device))
    if context.note:
        print(context.note)
    print(
        f"weights {result.weights_gb:.2f} GB + context cache {result.kv_cache_gb:.2f} GB + runtime "
        f"{result.runtime_gb:.2f} GB = {result.total_gb:.2f} GB on {args.device}: "
        f"{'fits' if result.fits else 'does not fit'} in {FIT_SHARE:.0%} of its memory; "
        f"speed {result.speed_text}"
    )
    return 0
