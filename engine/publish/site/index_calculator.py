"""The "Can I run it?" calculator: its data, safe to embed, and the form the page's script fills.
"""

from __future__ import annotations

import json

from engine.index.hardware import DEVICES, FIT_SHARE, calculator_models, calculator_tables, estimate, page_layout
from engine.index.schema import ModelEntry
from engine.publish.escape import esc

# The calculator opens on these; its model is the best-indexed one that fits them.
CALC_DEFAULT_QUANT = "Q4_K_M"
CALC_DEFAULT_CONTEXT = 8192
# Longer than any model's context window: a larger number is a typing slip, not a question.
CALC_MAX_CONTEXT = 10_000_000


def calculator_default(models: list[dict], index: dict[str, float] | None = None) -> int:
    """The model the calculator opens on: the best-indexed one that fits the first device at the default
    quantisation and context (the first that fits when no index is given); 0 when none fits."""
    device = DEVICES[0]
    fitting = [
        i
        for i, m in enumerate(models)
        if estimate(page_layout(m), CALC_DEFAULT_QUANT, CALC_DEFAULT_CONTEXT, device).fits
    ]
    if not fitting:
        return 0
    scores = index or {}
    return max(fitting, key=lambda i: (scores.get(models[i]["id"], -1.0), -i))


def calculator_json(entries: list[ModelEntry], index: dict[str, float] | None = None) -> str:
    """Data for the calculator page: JSON with no ``<``, ``>`` or ``&`` (the page holds it, HTML-escaped, in
    a ``data-`` attribute). ``index`` maps a model id to its index, to choose the model the page opens on."""
    models = calculator_models(entries)
    defaults = {
        "model": calculator_default(models, index),
        "quant": CALC_DEFAULT_QUANT,
        "context": CALC_DEFAULT_CONTEXT,
        # The input's own max follows the chosen model's maximum context; this is the typing-slip bound.
        "context_limit": CALC_MAX_CONTEXT,
    }
    text = json.dumps({"tables": calculator_tables(), "models": models, "defaults": defaults}, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render_calculator_html(entries: list[ModelEntry], index: dict[str, float] | None = None) -> str:
    # The data sits in an attribute, not in a <script type="application/json">: Material's instant navigation
    # re-creates every <script> of the page without its type and id, which would run the JSON and lose it.
    return (
        f'<div class="cir-form" id="cir-data" data-cir="{esc(calculator_json(entries, index))}">'
        '<label>Model <select id="cir-model"></select></label>'
        '<label>Device <select id="cir-device"></select></label>'
        '<label>Quantisation <select id="cir-quant"></select></label>'
        "<label>Context (tokens) "
        f'<input id="cir-context" type="number" min="1" max="{CALC_MAX_CONTEXT}" step="1024" '
        f'value="{CALC_DEFAULT_CONTEXT}" aria-describedby="cir-error"></label>'
        "</div>"
        '<p id="cir-error" class="cir-error" role="alert" hidden></p>'
        # The chosen model's maximum context: capped at it (with its source), or "not recorded".
        '<p id="cir-context-note" class="cir-context-note" aria-live="polite"></p>'
        '<table class="cir-result"><tbody>'
        '<tr><th>Weights</th><td id="cir-weights"></td></tr>'
        '<tr><th>Context cache</th><td id="cir-cache"></td></tr>'
        '<tr><th>Runtime buffers</th><td id="cir-runtime"></td></tr>'
        '<tr><th>Total</th><td id="cir-total"></td></tr>'
        '<tr><th>Verdict</th><td id="cir-fits"></td></tr>'
        '<tr><th>Decode speed</th><td id="cir-speed"></td></tr>'
        "</tbody></table>"
        f'<p class="cir-headroom"><small>"Fits" means the total is within {FIT_SHARE:.0%} of the device\'s '
        f"memory: the other {1 - FIT_SHARE:.0%} is left for the system and the programs beside the model. A "
        "model that does not fit gets no speed figure.</small></p>"
    )
