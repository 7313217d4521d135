"""The command layer: parse arguments, call one library function, map errors to exit codes.

Each command lives in ``engine/commands/<name>.py`` and exposes ``register(subparsers)``, which adds its
parser and sets ``func`` to a handler taking the parsed arguments and returning an exit code. The list
below is the whole registry: adding a command is adding its module name here.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine import __version__
from engine.core.errors import UserError
from engine.core.scrub import scrub

COMMAND_MODULES = (
    "engine.commands.run",
    "engine.commands.serve",
    "engine.commands.tasks",
    "engine.commands.schema",
    "engine.commands.index",
    "engine.commands.score",
    "engine.commands.judge",
    "engine.commands.items",
    "engine.commands.compare",
    "engine.commands.sweep",
    "engine.commands.fleet",
    "engine.commands.show",
    "engine.commands.rescore",
    "engine.commands.verify",
    "engine.commands.graders",
    "engine.commands.probe",
    "engine.commands.leaderboard",
    "engine.commands.pr_check",
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sllmb",
        description=(
            "small-llm-bench: run a small local model behind any OpenAI-compatible endpoint through an "
            "agentic task bank, score it with pass^k, and publish the results."
        ),
        epilog="Run 'sllmb COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"small-llm-bench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UserError as exc:
        print(f"error: {scrub(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted: completed trials are kept in the checkpoint; re-issue the command to resume.",
              file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
