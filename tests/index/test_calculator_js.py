"""The page's JavaScript and the Python function give the same numbers."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest

from engine.index.context_limit import cap_context
from engine.index.data import DEFAULT_DATA_DIR, load_entries
from engine.index.hardware import DEVICES, QUANT_BITS, calculator_models, calculator_tables, estimate, page_layout

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
        want = asdict(estimate(page_layout(case["model"]), case["quant"], case["context"], DEVICES[case["device"]]))
        for key, value in want.items():
            if isinstance(value, bool):
                assert got[key] is value, (case["model"]["id"], key)
            else:
                assert got[key] == pytest.approx(value, rel=1e-12), (case["model"]["id"], key)
    assert set(QUANT_BITS) == set(tables["quant_bits"])


CAP_RUNNER = """
const api = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(c => api.cappedContext(c.model, c.context))));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_caps_the_context_as_python_does():
    """The page's script and `sllmb index can-i-run` size the same context: the model's maximum when more is
    asked, what was asked otherwise, and what was asked for a model with no recorded maximum."""
    entries = {e.id: e for e in load_entries(REPO / DEFAULT_DATA_DIR)}
    models = calculator_models(list(entries.values()))
    with_max = [m for m in models if m["max_context"]]
    without = [m for m in models if not m["max_context"]]
    assert with_max and without
    assert {m["max_context"]["tokens"] for m in with_max} >= {32768, 131072}
    cases = [{"model": m, "context": c} for m in with_max[:4] + without[:2] for c in (1, 32768, 32769, 1_000_000)]
    proc = subprocess.run(
        ["node", "-e", CAP_RUNNER, str(JS)], input=json.dumps(cases), capture_output=True, text=True,
        timeout=60, check=True,
    )
    got = json.loads(proc.stdout)
    want = [cap_context(entries[c["model"]["id"]], c["context"]).tokens for c in cases]
    assert got == want
    assert 32768 in got and 1_000_000 in got  # both a cap and an uncapped million among them
