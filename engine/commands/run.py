"""``sllmb run``: benchmark one model. With no endpoint configured it runs the embedded default model."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from engine.analysis.scoring import score_run
from engine.commands.helpformat import LinesHelpFormatter
from engine.core.config import Settings, endpoint_url, float_in, int_in, parse_bool
from engine.core.errors import UserError
from engine.core.fieldtypes import model_name_problem
from engine.core.models_file import ModelEntry, load_models
from engine.core.outputlock import output_lock
from engine.core.results import default_output
from engine.episodes import MODULE_NAMES
from engine.model.gguf_file import checked_gguf, entry_for_file, model_name_for
from engine.model.local_server import Layout, choose_layout, embedded_server
from engine.model.requestlimits import FIRST_BYTE_MULTIPLE, STALL_AFTER, RequestLimits
from engine.publish.scorecard import render
from engine.run.plan import Selection, select_tasks
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from engine.run.sampling import card_sampling_of

ENV_HELP = """environment (also read from ./.env; flags win):
  BENCH_ENDPOINT     OpenAI-compatible base URL ending in /v1 (unset: run the embedded default model)
  BENCH_API_KEY      API key sent as a Bearer token (never written to any file or log)
  BENCH_MODEL        model name as the server knows it
  BENCH_TRIALS, BENCH_CONCURRENCY, BENCH_MAX_TOKENS, BENCH_TEMPERATURE, BENCH_SEED, BENCH_THINKING,
  BENCH_PROFILE, BENCH_SANDBOX
"""


def _modules(text: str) -> list[str]:
    return [m.strip() for m in text.split(",") if m.strip()]


def _thinking(text: str) -> bool:
    return parse_bool(text)


_TRIALS = int_in(1, 1000, " (pass^k needs a handful; 3 to 10 is usual)")
_ADD_TRIALS = int_in(0, 1000, " (trials to add per task)")
_MAX_TOKENS = int_in(16, 131072, " (a completion budget per model call; leave it unset for each task's own)")
_TEMPERATURE = float_in(0.0, 2.0, " (0 is greedy; the default is 0.6)")
_TOP_P = float_in(0.0, 1.0, " (the default is 0.95)", low_open=True)
_TOP_K = int_in(0, 1000, " (0 turns top-k off)")
_MIN_P = float_in(0.0, 1.0, " (0 turns min-p off)")
_SEED = int_in(-1, 2**31 - 1, " (-1 sends no seed)")
_CONTEXT = int_in(512, 1 << 20, " (tokens of context for the embedded server)")
_SANDBOX_MB = int_in(32, 65536, " (megabytes for sandboxed code)")
_CONNECT_S = float_in(0.0, 600.0, " (seconds)", low_open=True)
_FIRST_BYTE_S = float_in(0.0, 7200.0, " (seconds)", low_open=True)
_IDLE_S = float_in(0.0, 3600.0, " (seconds)", low_open=True)
_TOTAL_S = float_in(0.0, 14400.0, " (seconds)", low_open=True)
_SLOTS = int_in(1, 64, " (parallel slots of the embedded server)")
_CONCURRENCY = int_in(1, 256, " (parallel trials; auto picks the server's own)")


def _concurrency(text: str) -> int | str:
    """A number, or "auto" for the server's own default, which preflight resolves."""
    if text.strip().lower() == "auto":
        return "auto"
    return _CONCURRENCY(text)


def timeout_args(p: argparse.ArgumentParser) -> None:
    """The request deadlines, as ``sllmb run`` and ``sllmb sweep`` take them (``request_limits`` reads them)."""
    limits = RequestLimits()
    p.add_argument("--connect-timeout", type=_CONNECT_S, default=limits.connect_s, metavar="S",
                   help=f"seconds to open a connection to the server (default {limits.connect_s:g})")
    p.add_argument("--first-byte-timeout", type=_FIRST_BYTE_S, metavar="S",
                   help="seconds from sending a request to the first data of the reply, which covers prompt "
                        "processing. Default: scaled to each streamed request's prompt from the prefill speed "
                        f"the warm-up measured ({FIRST_BYTE_MULTIPLE:g} times the expected time, at least "
                        f"{limits.first_byte_floor_s:g} s, at most {limits.first_byte_s:g} s; {limits.first_byte_s:g} "
                        "s with --no-warm-up, for unstreamed tool turns, and where requests may queue on the "
                        "server). Given, it is the deadline of every request as is")
    p.add_argument("--idle-timeout", type=_IDLE_S, default=limits.idle_s, metavar="S",
                   help=f"longest gap between two chunks of a streamed reply (default {limits.idle_s:g})")
    p.add_argument("--request-timeout", type=_TOTAL_S, default=limits.total_s, metavar="S",
                   help="longest one request may take in all, however the server paces it (default "
                        f"{limits.total_s:g}); a timed-out request is tried once more, then the trial is "
                        f"recorded as an infrastructure failure. After {STALL_AFTER} requests in a row time out "
                        "the run stops (resumable: finished trials are kept; re-issue the command)")


def request_limits(args: argparse.Namespace) -> RequestLimits:
    """The deadlines ``timeout_args`` parsed. --first-byte-timeout given: that deadline for every request; left
    out: scaled to each prompt, at most the default (RequestLimits.first_byte_for)."""
    fixed = args.first_byte_timeout is not None
    return RequestLimits(connect_s=args.connect_timeout,
                         first_byte_s=args.first_byte_timeout if fixed else RequestLimits.first_byte_s,
                         scale_first_byte=not fixed, idle_s=args.idle_timeout, total_s=args.request_timeout)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run a model through the task bank",
        description=(
            "Run a model through the task bank, k trials per task, and write results/<model>_raw_results.json. "
            "An interrupted run resumes when the same command is issued again. With no --endpoint (and no "
            "BENCH_ENDPOINT) it starts the embedded llama.cpp server with the default model of models.yaml."
        ),
        epilog=ENV_HELP,
        formatter_class=LinesHelpFormatter,
    )
    p.add_argument("--model", "-m", help="model name as the server knows it (embedded: a models.yaml name)")
    p.add_argument("--endpoint", "-e", type=endpoint_url,
                   help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--gguf", type=Path, metavar="PATH",
                   help="run this GGUF model file of your own on the embedded server (not with --endpoint); the "
                        "model name is --model, else the file's name without .gguf, and a models.yaml row of that "
                        "name lends its context, server options and card sampling")
    p.add_argument("--trials", "-n", type=_TRIALS, help="trials per task, 1 to 1000 (default 3)")
    p.add_argument("--add-trials", type=_ADD_TRIALS, default=0, metavar="N",
                   help="add N trials per task to an existing run (keeps the trials already done)")
    p.add_argument("--concurrency", "-c", type=_concurrency, metavar="N|auto",
                   help="parallel trials (default auto: the slot count for llama.cpp and the embedded server, "
                        "1 for Ollama, LM Studio and llama-cpp-python, 4 for vLLM)")
    p.add_argument("--profile", choices=("full", "fast"), help="full bank (39 tasks) or the fast subset (17)")
    p.add_argument("--filter", "-k", dest="pattern", help="only tasks whose id matches this glob or substring")
    p.add_argument("--modules", type=_modules, help=f"comma-separated subset of: {','.join(MODULE_NAMES)}")
    p.add_argument("--output", "-o", type=Path,
                   help="result file; .json is added to a name without it (default "
                        "results/<model>_raw_results.json)")
    p.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True,
                   help="continue an interrupted run from its checkpoint, or add to a finished one (default "
                        "on); a change that would drop or mix trials is refused; --no-resume starts over, "
                        "keeping the old files as .bak")
    p.add_argument("--max-tokens", type=_MAX_TOKENS,
                   help="completion budget per model call, 16 to 131072 (default: each task's own)")
    p.add_argument("--temperature", type=_TEMPERATURE,
                   help="sampling temperature, 0 to 2 (default 0.6, sent explicitly to every server)")
    p.add_argument("--top-p", type=_TOP_P, help="nucleus sampling, over 0 and at most 1 (default 0.95)")
    p.add_argument("--top-k", type=_TOP_K, metavar="K",
                   help="top-k sampling, 0 to 1000, 0 off (default: off, or the card's)")
    p.add_argument("--min-p", type=_MIN_P, metavar="P",
                   help="min-p sampling, 0 to 1, 0 off (default: off, or the card's)")
    p.add_argument("--sampling", choices=("card", "bench"),
                   help="card: the sampling the model's models.yaml row takes from its model card (temperature, "
                        "top_p, top_k, min_p); bench: the fixed 0.6 / 0.95 with top-k and min-p off. Default: card "
                        "where the row has one, else bench. Not with --temperature/--top-p/--top-k/--min-p (a run with "
                        "any of those is recorded as custom: the ones not given are the bench's)")
    p.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                   help="skip the server check's warm-up request and tool-call check")
    p.add_argument("--seed", type=_SEED, help="base seed, offset by the trial index; -1 sends none (default 0)")
    p.add_argument("--thinking", type=_thinking, metavar="on|off",
                   help="ask the server to turn reasoning on or off (unset: the server's default)")
    p.add_argument("--save-responses", action="store_true",
                   help="keep all reasoning text (by default each turn keeps its first 4,000 characters)")
    p.add_argument("--allow-undersized-context", action="store_true",
                   help="run even when the served context window is too small for some tasks")
    p.add_argument("--tasks-dir", type=Path, help="task bank folder (default ./tasks)")
    p.add_argument("--context", type=_CONTEXT,
                   help="embedded server only: the window of one slot (default: what the selected tasks need, "
                        "at most the model's context in models.yaml)")
    p.add_argument("--slots", type=_SLOTS,
                   help="embedded server only: parallel slots (default: up to 4, by the usable cores)")
    p.add_argument("--stop-loops", action="store_true",
                   help="end a streamed reply once it is certainly looping (recorded as degenerate, as at the "
                        "token limit); saves decode time, recorded in the run's settings and flagged on the board")
    p.add_argument("--early-stop", action="store_true",
                   help="skip a task's remaining trials once one has failed (its pass^k is then 0 whatever "
                        "they do); runs every task once before any twice; its det score then rests on fewer "
                        "trials, so the setting is recorded and flagged on the board")
    p.add_argument("--sandbox", help="code sandbox backend: docker, bubblewrap (default: the first that works)")
    p.add_argument("--sandbox-memory", type=_SANDBOX_MB, default=256, metavar="MB",
                   help="memory cap for sandboxed code (default 256)")
    p.add_argument("--allow-unsandboxed", action="store_true",
                   help="run model-written code on the host when no sandbox works (unsafe; recorded)")
    timeout_args(p)
    p.add_argument("--weights", default="balanced", help="weight preset for the scorecard (balanced, agentic, coding)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=handle)


def server_endpoint(args: argparse.Namespace, settings: Settings) -> str | None:
    """The server to benchmark; None: the embedded one."""
    return args.endpoint or settings.get("BENCH_ENDPOINT", None, endpoint_url, None)


def _embedded_entry(model: str | None) -> ModelEntry:
    """The models.yaml entry the embedded server runs: the one named, or the default."""
    models = load_models()
    entry = models.find(model or models.default)
    if entry is None:
        raise UserError(f"model '{model}' is not in models.yaml, so the embedded server cannot run "
                        "it; add it there or give --endpoint for your own server")
    return entry


def build_request(args: argparse.Namespace, settings: Settings, endpoint: str | None,
                  embedded: ModelEntry | None = None) -> RunRequest:
    """What the flags and the environment ask for. ``endpoint`` is the server's (``server_endpoint``); with
    none, ``embedded`` is the models.yaml entry the embedded server will run, and its name is the run's model."""
    model = embedded.name if embedded is not None else args.model or settings.raw("BENCH_MODEL")
    if endpoint and not model:
        raise UserError("--model (or BENCH_MODEL) is required with an endpoint: give the name the server uses")
    problem = model_name_problem(model) if model else None
    if problem:
        # Refused before the run, not when its result file is read: the name is the file's and the board's.
        raise UserError(f"--model (or BENCH_MODEL): {problem}; serve the model under such a name (llama-server "
                        "--alias NAME, ollama cp OLD NAME)")
    trials = settings.get("BENCH_TRIALS", args.trials, _TRIALS, 3)
    chosen = settings.get("BENCH_CONCURRENCY", args.concurrency, _concurrency, "auto")
    concurrency = None if chosen == "auto" else int(chosen)
    if args.output is not None and args.output.is_dir():
        raise UserError(f"--output {args.output} is a folder; give a file name such as "
                        f"{args.output / 'my-model_raw_results.json'}")
    limits = request_limits(args)
    return RunRequest(
        model=model or "",
        endpoint=endpoint,
        api_key=settings.raw("BENCH_API_KEY"),
        output=args.output or default_output(model or ""),
        trials=trials,
        add_trials=args.add_trials,
        concurrency=concurrency,
        profile=settings.get("BENCH_PROFILE", args.profile, str, "full"),
        modules=args.modules,
        pattern=args.pattern,
        resume=args.resume,
        max_tokens=settings.get("BENCH_MAX_TOKENS", args.max_tokens, _MAX_TOKENS, None),  # type: ignore[arg-type]
        temperature=settings.get("BENCH_TEMPERATURE", args.temperature, _TEMPERATURE, None),  # type: ignore[arg-type]
        seed=settings.get("BENCH_SEED", args.seed, _SEED, 0),
        thinking=settings.get("BENCH_THINKING", args.thinking, parse_bool, None),  # type: ignore[arg-type]
        save_responses=args.save_responses,
        allow_undersized_context=args.allow_undersized_context,
        tasks_dir=args.tasks_dir,
        show_progress=not args.quiet,
        top_p=args.top_p,
        top_k=args.top_k,
        min_p=args.min_p,
        sampling=args.sampling,
        card_sampling=card_sampling_of(model, embedded) if model else None,
        warm_up=args.warm_up,
        sandbox_name=settings.get("BENCH_SANDBOX", args.sandbox, str, None),  # type: ignore[arg-type]
        sandbox_memory_mb=args.sandbox_memory,
        allow_unsandboxed=args.allow_unsandboxed,
        limits=limits,
        stop_loops=args.stop_loops,
        early_stop=args.early_stop,
    )


def _embedded_layout(args: argparse.Namespace, selection: Selection, entry: ModelEntry) -> Layout:
    """Threads, slots and the per-slot window for this machine and the selected tasks."""
    layout = choose_layout(entry, needed_context=selection.required_context, context=args.context, slots=args.slots)
    print(f"  {layout.slots} slot(s) of {layout.context_per_slot} tokens, {layout.threads} thread(s)",
          file=sys.stderr)
    return layout


def _own_file(args: argparse.Namespace) -> tuple[ModelEntry, Path]:
    """--gguf: the entry the embedded server runs the file under, and the file, checked before anything starts."""
    if args.endpoint:
        raise UserError("--gguf runs the file on the embedded server and --endpoint names a server of your own: "
                        "give one of them")
    model_file = checked_gguf(args.gguf, "--gguf")
    return entry_for_file(model_name_for(args.gguf, args.model, "--gguf")), model_file


def handle(args: argparse.Namespace) -> int:
    settings = Settings()
    model_file = None
    if args.gguf is not None:
        endpoint = None  # the flag wins over BENCH_ENDPOINT, as flags do
        entry, model_file = _own_file(args)
    else:
        endpoint = server_endpoint(args, settings)
        entry = None if endpoint else _embedded_entry(args.model or settings.raw("BENCH_MODEL"))
    request = build_request(args, settings, endpoint, entry)
    # Selected once, each task's window estimated once: the embedded server's window and the run follow it.
    selection = Selection.of(select_tasks(request))
    with contextlib.ExitStack() as stack:
        embedded = None
        if entry is not None:
            what = f"{model_file.name} as {entry.name}" if model_file is not None else entry.name
            print(f"{'--gguf' if model_file is not None else 'no endpoint configured'}: starting the embedded "
                  f"llama.cpp server with {what} …", file=sys.stderr)
            embedded = stack.enter_context(embedded_server(entry, _embedded_layout(args, selection, entry),
                                                           model_file=model_file))
        stack.enter_context(output_lock(request.output))
        run = run_benchmark(request, tasks=selection, embedded=embedded)
    render(run, score_run(run, weights=args.weights))
    print(f"wrote {request.output}", file=sys.stderr)
    return 0
