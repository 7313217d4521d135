"""The embedded server's own process: it hosts llama.cpp's C++ server (the code behind ``llama-server``,
from the ``xllamacpp`` wheel) and does nothing else.

``engine.model.local_server`` starts it as a child (``python -m engine.model.embedded_host ...``) so that the bench can
kill it outright, and so that Linux kills it when the bench dies, even by SIGKILL. Once the server listens,
it prints one JSON line on stdout, ``{"address": "http://127.0.0.1:PORT", "version": "...", "cache_type_k":
"f16", "cache_type_v": "f16", "flash_attn": "auto"}``, and then
sleeps until it is killed; the server's own log goes to stderr.
"""

from __future__ import annotations

import argparse
import enum
import json
import os
import signal
import sys
from typing import Any

EXIT_BAD_SETTING = 2
EXIT_START_FAILED = 3


def _value(current: Any, text: str) -> Any:
    """A ``--set`` value cast to the type of the parameter's current value."""
    if isinstance(current, enum.Enum):
        # Before int: these are IntEnums (cache_type_k is a ggml_type). Taken by member name or by the name
        # without the prefix every member shares, either case (q8_0 or GGML_TYPE_Q8_0), as llama-server's
        # own flags take them.
        members = type(current).__members__
        shared = os.path.commonprefix(list(members))
        shared = shared[: shared.rfind("_") + 1]
        for name, member in members.items():
            if text.upper() in (name, name.removeprefix(shared)):
                return member
        raise ValueError(f"expected one of {', '.join(n.removeprefix(shared).lower() for n in members)}, "
                         f"got {text!r}")
    if isinstance(current, bool):
        if text.lower() not in ("true", "false", "1", "0", "on", "off"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() in ("true", "1", "on")
    if isinstance(current, int):
        return int(text)
    if isinstance(current, float):
        return float(text)
    if isinstance(current, str):
        return text
    raise ValueError(f"only bool, int, float and str parameters can be set, not {type(current).__name__}")


def build_params(args: argparse.Namespace) -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]
    params.port = args.port  # 0: the server picks a free port and says which in its listening address
    # -c is shared by the slots; each slot (one request at a time) gets n_ctx / n_parallel tokens.
    params.n_parallel = args.slots
    params.n_ctx = args.ctx_per_slot * args.slots
    params.kv_unified = False  # a slot's window is its own: a long prompt in one slot cannot evict another
    params.cont_batching = True
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True
    params.ui = False
    params.endpoint_props = True
    params.endpoint_slots = True
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or not hasattr(params, key):
            raise ValueError(f"--set {item!r}: expected NAME=VALUE with NAME a field of xllamacpp.CommonParams")
        setattr(params, key, _value(getattr(params, key), text))
    return params


def _enum_name(value: Any, prefix: str) -> str:
    """``GGML_TYPE_Q8_0`` as ``q8_0``, the words of llama-server's -ctk and -fa."""
    name = str(getattr(value, "name", value))
    return name.removeprefix(prefix).lower()


def configured(params: Any) -> dict[str, str]:
    """The settings the server runs with that its /props does not report: the KV-cache types (-ctk, -ctv)
    and flash attention (-fa: on, off or auto)."""
    return {"cache_type_k": _enum_name(params.cache_type_k, "GGML_TYPE_"),
            "cache_type_v": _enum_name(params.cache_type_v, "GGML_TYPE_"),
            "flash_attn": _enum_name(params.flash_attn_type, "LLAMA_FLASH_ATTN_TYPE_").replace("enabled", "on")
            .replace("disabled", "off")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.model.embedded_host")
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--alias", required=True, help="the model name the server answers to")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--slots", type=int, default=1)
    parser.add_argument("--ctx-per-slot", type=int, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="any other CommonParams field (a model's server_args in models.yaml)")
    args = parser.parse_args(argv)
    import xllamacpp

    try:
        params = build_params(args)
    except ValueError as exc:
        print(f"embedded server: {exc}", file=sys.stderr, flush=True)
        return EXIT_BAD_SETTING
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # xllamacpp says only "Failed to init server"; the log above says why
        print(f"embedded server: {exc}", file=sys.stderr, flush=True)
        return EXIT_START_FAILED
    print(json.dumps({"address": server.listening_address, "version": xllamacpp.__version__,
                      **configured(params)}), flush=True)
    # SIGTERM keeps its default action (the process ends at once): no Python shutdown runs while the
    # server's C++ threads are mid-generation.
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
