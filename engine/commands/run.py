"""``sllmb run``: benchmark one model. With no endpoint configured it runs the embedded default model."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from engine.config import Settings, parse_bool
from engine.errors import UserError
from engine.local_server import choose_layout, embedded_server
from engine.models_file import load_models
from engine.results import default_output
from engine.runner import RunConfig, required_context, run_benchmark
from engine.schema import MODULE_NAMES
from engine.scorecard import render
from engine.scoring import score_run

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


def _concurrency(text: str) -> int | str:
    """A number, or "auto" for the server's own default, which preflight resolves."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"expected a number or auto, got {text!r}") from None


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
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--model", "-m", help="model name as the server knows it (embedded: a models.yaml name)")
    p.add_argument("--endpoint", "-e", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--trials", "-n", type=int, help="trials per task (default 3)")
    p.add_argument("--add-trials", type=int, default=0, metavar="N",
                   help="add N trials per task to an existing run (keeps the trials already done)")
    p.add_argument("--concurrency", "-c", type=_concurrency, metavar="N|auto",
                   help="parallel trials (default auto: the slot count for llama.cpp and the embedded server, "
                        "1 for Ollama, LM Studio and llama-cpp-python, 4 for vLLM)")
    p.add_argument("--profile", choices=("full", "fast"), help="full bank (39 tasks) or the fast subset (17)")
    p.add_argument("--filter", "-k", dest="pattern", help="only tasks whose id matches this glob or substring")
    p.add_argument("--modules", type=_modules, help=f"comma-separated subset of: {','.join(MODULE_NAMES)}")
    p.add_argument("--output", "-o", type=Path, help="result file (default results/<model>_raw_results.json)")
    p.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True,
                   help="continue an interrupted run from its checkpoint (default on)")
    p.add_argument("--max-tokens", type=int, help="completion budget per model call (default: each task's own)")
    p.add_argument("--temperature", type=float,
                   help="sampling temperature (default 0.6, sent explicitly to every server)")
    p.add_argument("--top-p", type=float, help="nucleus sampling (default 0.95, sent explicitly)")
    p.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                   help="skip preflight's warm-up request and tools probe")
    p.add_argument("--seed", type=int, help="base seed, offset by the trial index; -1 sends none (default 0)")
    p.add_argument("--thinking", type=_thinking, metavar="on|off",
                   help="ask the server to turn reasoning on or off (unset: the server's default)")
    p.add_argument("--save-responses", action="store_true",
                   help="keep all reasoning text (by default each turn keeps its first 4,000 characters)")
    p.add_argument("--allow-undersized-context", action="store_true",
                   help="run even when the served context window is too small for some tasks")
    p.add_argument("--tasks-dir", type=Path, help="task bank folder (default ./tasks)")
    p.add_argument("--context", type=int,
                   help="embedded server only: the window of one slot (default: what the selected tasks need, "
                        "at most the model's context in models.yaml)")
    p.add_argument("--slots", type=int,
                   help="embedded server only: parallel slots (default: up to 4, by the usable cores)")
    p.add_argument("--stop-loops", action="store_true",
                   help="end a streamed reply once it is certainly looping (recorded as degenerate, as at the "
                        "token limit); saves decode time, recorded in the run's settings and flagged on the board")
    p.add_argument("--early-stop", action="store_true",
                   help="skip a task's remaining trials once one has failed (its pass^k is then 0 whatever "
                        "they do); runs every task once before any twice; its det score then rests on fewer "
                        "trials, so the setting is recorded and flagged on the board")
    p.add_argument("--sandbox", help="code sandbox backend: docker, bubblewrap (default: the first that works)")
    p.add_argument("--sandbox-memory", type=int, default=256, metavar="MB",
                   help="memory cap for sandboxed code (default 256)")
    p.add_argument("--allow-unsandboxed", action="store_true",
                   help="run model-written code on the host when no sandbox works (unsafe; recorded)")
    p.add_argument("--weights", default="balanced", help="weight preset for the scorecard (balanced, agentic, coding)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=handle)


def build_config(args: argparse.Namespace, settings: Settings) -> RunConfig:
    model = args.model or settings.raw("BENCH_MODEL")
    endpoint = args.endpoint or settings.raw("BENCH_ENDPOINT")
    if endpoint and not model:
        raise UserError("--model (or BENCH_MODEL) is required with an endpoint: give the name the server uses")
    trials = settings.get("BENCH_TRIALS", args.trials, int, 3)
    chosen = settings.get("BENCH_CONCURRENCY", args.concurrency, _concurrency, "auto")
    concurrency = None if chosen == "auto" else int(chosen)
    if trials < 1 or (concurrency is not None and concurrency < 1):
        raise UserError("--trials and --concurrency must be at least 1")
    if args.add_trials < 0:
        raise UserError("--add-trials must be 0 or more")
    return RunConfig(
        model=model or "",
        endpoint=endpoint or "",
        api_key=settings.raw("BENCH_API_KEY"),
        output=args.output or Path("."),
        trials=trials,
        add_trials=args.add_trials,
        concurrency=concurrency,
        profile=settings.get("BENCH_PROFILE", args.profile, str, "full"),
        modules=args.modules,
        pattern=args.pattern,
        resume=args.resume,
        max_tokens=settings.get("BENCH_MAX_TOKENS", args.max_tokens, int, None),  # type: ignore[arg-type]
        temperature=settings.get("BENCH_TEMPERATURE", args.temperature, float, None),  # type: ignore[arg-type]
        seed=settings.get("BENCH_SEED", args.seed, int, 0),
        thinking=settings.get("BENCH_THINKING", args.thinking, parse_bool, None),  # type: ignore[arg-type]
        save_responses=args.save_responses,
        allow_undersized_context=args.allow_undersized_context,
        tasks_dir=args.tasks_dir,
        show_progress=not args.quiet,
        top_p=args.top_p,
        warm_up=args.warm_up,
        sandbox_name=settings.get("BENCH_SANDBOX", args.sandbox, str, None),  # type: ignore[arg-type]
        sandbox_memory_mb=args.sandbox_memory,
        allow_unsandboxed=args.allow_unsandboxed,
        stop_loops=args.stop_loops,
        early_stop=args.early_stop,
    )


def _embedded_layout(args: argparse.Namespace, cfg: RunConfig, entry):
    """Threads, slots and the per-slot window for this machine and the selected tasks."""
    layout = choose_layout(entry, needed_context=required_context(cfg), context=args.context, slots=args.slots)
    print(f"  {layout.slots} slot(s) of {layout.context_per_slot} tokens, {layout.threads} thread(s)",
          file=sys.stderr)
    return layout


def handle(args: argparse.Namespace) -> int:
    settings = Settings()
    cfg = build_config(args, settings)
    with contextlib.ExitStack() as stack:
        if not cfg.endpoint:
            models = load_models()
            entry = models.find(cfg.model or models.default)
            if entry is None:
                raise UserError(f"model '{cfg.model}' is not in models.yaml, so the embedded server cannot run "
                                "it; add it there or give --endpoint for your own server")
            print(f"no endpoint configured: starting the embedded llama.cpp server with {entry.name} …",
                  file=sys.stderr)
            server = stack.enter_context(embedded_server(entry, _embedded_layout(args, cfg, entry)))
            cfg.endpoint, cfg.model = server.endpoint, server.model
            cfg.allow_template_without_tools = True
            cfg.server_meta = {"embedded": True, "model_file": server.model_file.name,
                               "embedded_server": f"xllamacpp {server.version}", "threads": server.threads}
        if cfg.output == Path("."):
            cfg.output = default_output(cfg.model)
        run = run_benchmark(cfg)
    render(run, score_run(run, weights=args.weights))
    print(f"wrote {cfg.output}", file=sys.stderr)
    return 0
