"""``sllmb schema``: print or write the JSON Schema of the result file (the docs ship a copy)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.core.fileio import atomic_write_text
from engine.core.results import result_json_schema
from engine.episodes import MODULE_NAMES

DOCS_COPY = Path("site_src/reference/result-file.schema.json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of result files",
        description="Print the JSON Schema of results/<model>_raw_results.json, or write it to a file. The "
                    f"documentation ships a copy at {DOCS_COPY}; a test keeps the two equal.",
    )
    p.add_argument("--output", "-o", type=Path, help="write the schema to this file instead of printing it")
    p.set_defaults(func=handle)


def schema_text() -> str:
    return json.dumps(result_json_schema(MODULE_NAMES), indent=2, sort_keys=True) + "\n"


def handle(args: argparse.Namespace) -> int:
    if args.output:
        atomic_write_text(args.output, schema_text())
    else:
        print(schema_text(), end="")
    return 0
