"""The page's JavaScript and the Python function give the same numbers."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest

from engine.index.data import DEFAULT_DATA_DIR, load_entries
from engine.index.hardware import DEVICES, QUANT_BITS, Layout, calculator_models, calculator_tables, estimate

REPO = Path(__file__).resolve().parents[2]
JS = REPO / "site_src" / "assets" / "index" / "can-i-run.js"

RUNNER = """
const api = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const t = input.tables;
const out = input.cases.map(c => api.estimate(c.model, c.quant, c.context, t.devices[c.device], t));
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_matches_python_on_many_cases():
    models = calculator_models(load_entries(REPO / DEFAULT_DATA_DIR))
    assert len(models) >= 10
    picks = [m for m in models if m["sliding_layers"]][:2] + [m for m in models if m["recurrent_layers"]][:2]
    picks += [m for m in models if m["active_params_b"] < m["total_params_b"]][:1] + models[:3]
    cases = [
        {"model": m, "quant": q, "context": ctx, "device": d}
        for (m, q, ctx), d in zip(
            itertools.product(picks, ["Q4_K_M", "Q8_0", "Q2_K"], [700, 8192, 131072]),
            itertools.cycle(range(len(DEVICES))),
        )
    ]
    assert len(cases) >= 20
    tables = calculator_tables()
    proc = subprocess.run(
        ["node", "-e", RUNNER, str(JS)],
        input=json.dumps({"cases": cases, "tables": tables}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    js = json.loads(proc.stdout)
    assert len(js) == len(cases)
    for case, got in zip(cases, js, strict=True):
        fields = {k: v for k, v in case["model"].items() if k not in ("id", "name")}
        want = asdict(estimate(Layout(**fields), case["quant"], case["context"], DEVICES[case["device"]]))
        for key, value in want.items():
            if isinstance(value, bool):
                assert got[key] is value, (case["model"]["id"], key)
            else:
                assert got[key] == pytest.approx(value, rel=1e-12), (case["model"]["id"], key)
    assert set(QUANT_BITS) == set(tables["quant_bits"])
