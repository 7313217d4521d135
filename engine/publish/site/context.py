"""The site's one Board per build (and the runs it was built from),
shared by the hook (which adds the model pages) and the macros.

mkdocs loads the hook file and the macros file by path, each as its own module, so the board is kept here,
in a module both import normally. It is rebuilt only when a result file, the reference setting beside them or
models.yaml changes (so ``mkdocs serve`` picks up a new run on the next save).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.analysis.loaded_run import LoadedRun
from engine.analysis.scoring import DEFAULT_PRESET
from engine.core.reference_setting import setting_path_for
from engine.core.results import FLEET_DIR, RAW_SUFFIX
from engine.publish.board import Board, board_setting, build_board, load_models_optional, load_results

log = logging.getLogger("mkdocs.plugins.small_llm_bench")


@dataclass(frozen=True)
class BoardSource:
    results_dir: Path
    models_path: Path | None
    weights: str


def board_source(config: Any) -> BoardSource:
    """Where the board comes from: ``extra.board`` in mkdocs.yml, paths relative to mkdocs.yml's folder."""
    project = Path(config["config_file_path"]).resolve().parent
    settings = (config.get("extra") or {}).get("board") or {}
    results = Path(settings.get("results_dir") or FLEET_DIR)
    models = settings.get("models", "models.yaml")
    return BoardSource(
        results_dir=results if results.is_absolute() else project / results,
        models_path=None
        if not models
        else (Path(models) if Path(models).is_absolute() else project / models),
        weights=settings.get("weights") or DEFAULT_PRESET,
    )


def _signature(src: BoardSource) -> tuple:
    files = sorted(src.results_dir.glob(f"*{RAW_SUFFIX}")) + sorted(src.results_dir.glob("*_judged.json"))
    if setting_path_for(src.results_dir).is_file():
        files.append(setting_path_for(src.results_dir))
    if src.models_path is not None and src.models_path.is_file():
        files.append(src.models_path)
    return (src, tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files))


_cache: dict[str, tuple[tuple, Board, list[LoadedRun]]] = {}


def site_board(config: Any) -> Board:
    return _site(config)[0]


def site_runs(config: Any) -> list[LoadedRun]:
    """The runs the board was built from, loaded once with it (the task pages show their trials)."""
    return _site(config)[1]


def _site(config: Any) -> tuple[Board, list[LoadedRun]]:
    src = board_source(config)
    if not src.results_dir.is_dir():
        log.info("no results folder at %s: the leaderboard is empty", src.results_dir)
        return build_board([], None, src.weights, setting=None), []
    sig = _signature(src)
    hit = _cache.get("board")
    if hit is not None and hit[0] == sig:
        return hit[1], hit[2]
    runs = load_results(src.results_dir)
    setting = board_setting(src.results_dir, runs)
    board = build_board(runs, load_models_optional(src.models_path), src.weights, setting=setting)
    _cache["board"] = (sig, board, runs)
    return board, runs
