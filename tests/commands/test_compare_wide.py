"""``sllmb compare`` on a board of 28 models: one row per model, so no name or figure is cut to fit."""

from __future__ import annotations

from pathlib import Path

from engine.cli import main
from engine.core.results import load_run_file, write_run_file
from tests.helpers.fleet import make_fleet

# Names as long as real ones get, so the test fails if the model column is ever squeezed.
LONG_NAMES = ("qwen3-30b-a3b-instruct-2507-ud-q4_k_xl.gguf", "hf.co/bartowski/SmolLM2-1.7B-Instruct-GGUF:Q8_0")


def test_compare_at_28_models_shows_every_name_and_figure_whole(tmp_path: Path, capsys) -> None:
    paths = make_fleet(tmp_path, 28, seed=2)
    for path, name in zip(paths, LONG_NAMES, strict=False):
        run = load_run_file(path)
        write_run_file(path, run.model_copy(update={"settings": run.settings.model_copy(update={"model": name})}))
    names = [load_run_file(p).settings.model for p in paths]
    assert main(["compare", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    table = out.split("pairs separable:")[0]
    for name in names:
        # Whole, on one line of the table: the name column never folds.
        assert sum(f"│ {name} " in line for line in table.splitlines()) == 1, name
    assert "pairs separable: " in out and f"of {28 * 27 // 2}" in out
