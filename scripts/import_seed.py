"""One-off import of the gathered starting set (``reported.csv``, ``attention.csv``) into one YAML per model.

Run once, then the YAML files are the data: edit them by hand from then on. The rules applied here are the
caveats of the starting set, written down so the import can be audited:

* only figures whose benchmark is one of the index's 18 is kept; ``GPQA (subset not stated)``, ``MATH`` and
  ``tau-Bench`` are left out, and so is a "GPQA Diamond" row whose source only says "GPQA";
* scores of a base or pre-trained checkpoint never go into an instruct model's entry;
* a model reported in both a thinking and a non-thinking mode becomes two entries; a row whose mode the source
  does not state cannot be placed and is left out for such a model;
* a figure read from a copy, a mirror, an aggregator or a snapshot keeps that address as ``secondary_url``,
  and ``source_url`` is the primary document its note names (if any); no figure is marked checked here;
* no figure is created here: every value comes from a row of the CSV with its source address.

Usage: ``python -m scripts.import_seed PATH/TO/index-data results/reported``
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import sys
from collections import defaultdict
from pathlib import Path

from engine.index.data import write_entries
from engine.index.provenance import split_source
from engine.index.schema import ALL_BENCHMARKS, Attention, ModelEntry, Score

# Different spellings of one model across sources -> the spelling used as the entry's name.
ALIASES = {
    "Gemma-3-27B-IT": "Gemma 3 27B IT",
    "Gemma-3-12B-IT": "Gemma 3 12B IT",
    "Gemma-3-1B-IT": "Gemma 3 1B IT",
    "Phi-4-mini": "Phi-4-mini-instruct",
    "NVIDIA Nemotron-Nano-9B-v2": "Nemotron-Nano-9B-v2",
}
# Rows that describe a different checkpoint than any instruct entry, or whose model is ambiguous.
SKIP_MODEL = re.compile(r"PT/IT not stated|Pretrain|\(base|base/PT|header says", re.IGNORECASE)

REGION_OF_COUNTRY = {
    "USA": "United States",
    "USA/France": "United States",
    "China": "China",
    "France": "Europe",
    "Switzerland": "Europe",
    "EU (Portugal-led)": "Europe",
    "South Korea": "Rest of Asia",
    "UAE": "Other",
}
# Training data and code public as well as weights (the methodology's list of fully open families).
FULLY_OPEN = re.compile(r"^(OLMo|Olmo|Apertus|SmolLM|LLM360 K2|EuroLLM)")
# Built on another lab's weights.
FINE_TUNE_OF = {
    "DeepSeek-R1-Distill-Qwen-1.5B": "Qwen2.5-Math-1.5B",
    "DeepSeek-R1-Distill-Qwen-7B": "Qwen2.5-Math-7B",
    "DeepSeek-R1-Distill-Qwen-14B": "Qwen2.5-14B",
    "DeepSeek-R1-Distill-Qwen-32B": "Qwen2.5-32B",
    "DeepSeek-R1-Distill-Llama-8B": "Llama-3.1-8B",
    "DeepSeek-R1-Distill-Llama-70B": "Llama-3.3-70B-Instruct",
    "Llama-3.3-Nemotron-Super-49B-v1": "Llama-3.3-70B-Instruct",
    "Llama-3.3-Nemotron-Super-49B-v1.5": "Llama-3.3-70B-Instruct",
}
EXCLUDED_BENCHMARKS = {"GPQA (subset not stated)", "MATH", "tau-Bench", "_meta"}
BENCH_RENAME = {"MMMLU": "Multilingual MMLU"}
GPQA_NOT_DIAMOND = re.compile(r"subset not stated|without subset|labelled 'GPQA'", re.IGNORECASE)


def _attention(source_url: str, note: str, **fields: int | None) -> dict:
    return {"source_url": source_url, "note": note, **fields}


# Attention layouts read from attention.csv. Head dims marked "derived" are hidden_size / attention heads as
# the source row states; layer splits follow the pattern the row describes.
def attention_layouts(rows: list[dict[str, str]]) -> dict[str, dict]:
    by_model = {r["model"]: r for r in rows}

    def url(name: str) -> str:
        return by_model[name]["source_url"].split(" ")[0]

    def full(name: str, layers: int, kv: int, hd: int, note: str) -> dict:
        return _attention(url(name), note, layers=layers, full_layers=layers, kv_heads=kv, head_dim=hd)

    out: dict[str, dict] = {}
    for name in ("Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B"):
        r = by_model[name]
        n = int(r["num_hidden_layers"])
        out[name] = full(
            name, n, int(r["num_key_value_heads"]), 128, "copy of config.json; all full attention"
        )
    out["Qwen3-30B-A3B"] = full("Qwen3-30B-A3B", 48, 4, 128, "copy of config.json; all full attention; MoE")
    derived = "config of the base model; head_dim = hidden_size / attention heads"
    out["Qwen2.5-7B-Instruct"] = full(
        "Qwen2.5-7B (base config; Instruct expected to share arch, not verified)", 28, 4, 128, derived
    )
    out["Qwen2.5-14B-Instruct"] = full(
        "Qwen2.5-14B (base config; Instruct expected to share arch, not verified)", 48, 8, 128, derived
    )
    out["Qwen2.5-32B-Instruct"] = full(
        "Qwen2.5-32B (base config; Instruct expected to share arch, not verified)", 64, 8, 128, derived
    )
    out["Qwen2.5-3B-Instruct"] = full("Qwen2.5-3B (base config)", 36, 2, 128, derived)
    out["Llama-3.1-8B-Instruct"] = full(
        "Llama-3.1-8B (base config; Instruct shares arch per sku_list)", 32, 8, 128, derived
    )
    out["Llama-3.2-3B-Instruct"] = full(
        "Llama-3.2-3B (base config; Instruct shares arch per sku_list)", 28, 8, 128, "base config"
    )
    out["Llama-3.2-1B-Instruct"] = full("Llama-3.2-1B-Instruct", 16, 8, 64, derived)
    out["Llama-3.1-70B-Instruct"] = full("Llama-3.1-70B-Instruct", 80, 8, 128, derived)
    out["Llama-3.3-70B-Instruct"] = full("Llama-3.3-70B-Instruct", 80, 8, 128, derived)
    out["gpt-oss-20b"] = _attention(
        url("gpt-oss-20b"),
        "alternating sliding (128 tokens) and full attention, 12 of each",
        layers=24,
        full_layers=12,
        sliding_layers=12,
        sliding_window=128,
        kv_heads=8,
        head_dim=64,
    )
    out["Seed-OSS-36B-Instruct"] = full("Seed-OSS-36B-Instruct", 64, 8, 128, "README model summary")
    out["Nemotron-Nano-9B-v2"] = _attention(
        url("Nemotron-Nano-9B-v2"),
        "hybrid: 27 Mamba2 layers, 4 attention layers, 25 MLP-only layers",
        layers=56,
        full_layers=4,
        recurrent_layers=27,
        kv_heads=8,
        head_dim=128,
    )
    out["OLMo 2 7B Instruct (1124)"] = full("OLMo 2 7B", 32, 32, 128, "OLMo-core config; MHA")
    out["OLMo 2 13B Instruct (1124)"] = full("OLMo 2 13B", 40, 40, 128, "OLMo-core config; MHA")
    out["OLMo 2 32B Instruct (0325)"] = full("OLMo 2 32B", 64, 8, 128, "OLMo-core config; GQA")
    olmo3 = "3 sliding-window (4096) layers to 1 full, repeating; the last layer is full"
    for name in ("Olmo 3 7B Instruct", "Olmo 3 7B Think"):
        out[name] = _attention(
            url("OLMo 3 7B"),
            olmo3,
            layers=32,
            full_layers=8,
            sliding_layers=24,
            sliding_window=4096,
            kv_heads=32,
            head_dim=128,
        )
    out["Olmo 3 32B Think"] = _attention(
        url("OLMo 3 32B"),
        olmo3,
        layers=64,
        full_layers=16,
        sliding_layers=48,
        sliding_window=4096,
        kv_heads=8,
        head_dim=128,
    )
    out["LFM2-1.2B"] = _attention(
        url("LFM2-1.2B"),
        "hybrid: 10 short-convolution blocks and 6 attention blocks",
        layers=16,
        full_layers=6,
        recurrent_layers=10,
        kv_heads=8,
        head_dim=64,
    )
    out["SmolLM3-3B"] = full("SmolLM3-3B", 36, 4, 128, "copy of config.json; all full attention")
    out["Devstral Small 1.1 (2507)"] = full("Devstral Small 1.1 (2507)", 40, 8, 128, "copy of config.json")
    out["Magistral Small 1.2 (2509)"] = full("Magistral Small 1.2 (2509)", 40, 8, 128, "copy of config.json")
    out["Apertus-8B-Instruct"] = full("Apertus-8B-Instruct", 32, 8, 128, derived)
    out["Apertus-70B-Instruct"] = full("Apertus-70B-Instruct", 80, 8, 128, derived)
    out["Hunyuan-A13B-Instruct"] = full("Hunyuan-A13B-Instruct", 32, 8, 128, "config.json; MoE")
    gemma = "5 sliding-window layers to 1 global, repeating"
    for name, layers, kv, hd, window in (
        ("Gemma 3 1B IT", 26, 1, 256, 512),
        ("Gemma 3 4B IT", 34, 4, 256, 1024),
        ("Gemma 3 12B IT", 48, 8, 256, 1024),
        ("Gemma 3 27B IT", 62, 16, 128, 1024),
    ):
        glob = layers // 6
        out[name] = _attention(
            url(name),
            gemma,
            layers=layers,
            full_layers=glob,
            sliding_layers=layers - glob,
            sliding_window=window,
            kv_heads=kv,
            head_dim=hd,
        )
    out["Granite 4.0 Micro"] = full("Granite 4.0 Micro", 40, 8, 64, "copy of the model card's table")
    granite_h = "hybrid: 4 attention layers and 36 Mamba2 layers"
    for name, kv, hd in (
        ("Granite 4.0 H Micro", 8, 64),
        ("Granite 4.0 H Tiny", 4, 128),
        ("Granite 4.0 H Small", 8, 128),
    ):
        out[name] = _attention(
            url(name), granite_h, layers=40, full_layers=4, recurrent_layers=36, kv_heads=kv, head_dim=hd
        )
    return out


def _mode(note: str) -> str | None:
    match = re.search(r"AA model entry '[^']*\((Non-reasoning|Reasoning)\)'", note)
    if match:
        return "non-thinking" if match.group(1) == "Non-reasoning" else "thinking"
    match = re.match(r"mode=([^;]*)", note)
    if not match:
        return None
    text = match.group(1)
    if re.search(r"non-|\boff\b|baseline", text):
        return "non-thinking"
    return "thinking"


def _evaluator(url: str, note: str) -> str:
    if "Artificial Analysis" in note:
        return "Artificial Analysis (snapshot copied in a public repository)"
    if "TIGER-Lab" in note or "TIGER-AI-Lab" in url:
        return "TIGER-Lab (MMLU-Pro authors)"
    if "mlfoundations-dev" in url:
        return "mlfoundations-dev (Evalchemy outputs)"
    return "independent evaluator named in the source"


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)


def _num(text: str) -> float | None:
    match = re.match(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*$", text or "")
    return float(match.group(1)) if match else None


def _preference(score: Score) -> tuple[int, int]:
    # Within one source, the newest exam or version first (AIME 2025 before 2024, v6 before v5).
    years = [int(y) for y in re.findall(r"20[2-3][0-9]", score.variant or "")]
    version = re.search(r"\bv([0-9])", score.variant or "")
    return (-(max(years) if years else 0), -(int(version.group(1)) if version else 0))


def build_entries(data_dir: Path) -> tuple[list[ModelEntry], list[str]]:
    with (data_dir / "reported.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with (data_dir / "attention.csv").open(encoding="utf-8") as handle:
        layouts = attention_layouts(list(csv.DictReader(handle)))
    log: list[str] = []
    grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        name = ALIASES.get(row["model"], row["model"])
        if SKIP_MODEL.search(name):
            continue
        grouped[name].append(row)

    entries: list[ModelEntry] = []
    for name, group in grouped.items():
        meta: dict[str, str] = {}
        for row in group:  # first non-empty value of each fact, _meta rows first
            for key in ("hf_repo", "lab", "country", "total_b", "active_b", "release_date"):
                if row[key] and key not in meta and (row["benchmark"] == "_meta" or key != "release_date"):
                    meta[key] = row[key]
        total = _num(meta.get("total_b", ""))
        region = REGION_OF_COUNTRY.get(meta.get("country", ""))
        if total is None or region is None or not meta.get("lab"):
            log.append(f"skipped {name}: parameters, lab or country not given by any row")
            continue
        scores_by_mode: dict[str | None, list[Score]] = defaultdict(list)
        for row in group:
            bench = BENCH_RENAME.get(row["benchmark"], row["benchmark"])
            if bench in EXCLUDED_BENCHMARKS or bench not in ALL_BENCHMARKS:
                continue
            text = f"{row['variant']} {row['note']}"
            if bench == "GPQA Diamond" and GPQA_NOT_DIAMOND.search(text):
                log.append(f"{name}: GPQA row without a stated Diamond subset left out ({row['source_url']})")
                continue
            if re.search(r"\bbase model\b", row["variant"]) or not row["source_url"].startswith("http"):
                continue
            value = _num(row["score"])
            if value is None or row["measured_by"] not in ("lab", "other_lab", "independent"):
                continue
            measured = row["measured_by"]
            # The primary document where the row's address is a copy (its note names it); never checked here.
            primary, copy = split_source(row["source_url"], row["note"])
            score = Score(
                benchmark=bench,
                value=value,
                variant=row["variant"] or None,
                source_url=primary,
                secondary_url=copy,
                measured_by=measured,
                evaluator=_evaluator(row["source_url"], row["note"]) if measured == "independent" else None,
                note=row["note"] or None,
            )
            scores_by_mode[_mode(row["note"])].append(score)
        modes = sorted(m for m in scores_by_mode if m is not None)
        if len(modes) > 1:
            dropped = len(scores_by_mode.get(None, []))
            if dropped:
                log.append(f"{name}: {dropped} rows without a stated mode left out (model has two modes)")
            variants = [(m, scores_by_mode[m]) for m in modes]
        else:
            merged = [s for m in scores_by_mode for s in scores_by_mode[m]]
            variants = [(modes[0] if modes else None, merged)]
        for mode, scores in variants:
            if not scores:
                continue
            scores = _dedupe(sorted(scores, key=lambda s: (s.benchmark, _preference(s))))
            display = f"{name} ({mode})" if len(variants) > 1 else name
            active = _num(meta.get("active_b", ""))
            release = meta.get("release_date", "")
            notes = [
                "Imported from the gathered starting set. A figure without a checked date has not yet been "
                "compared with its primary document; secondary_url names the copy it was read from."
            ]
            if "country" in meta:
                notes.append("Region from the lab's headquarters (general knowledge, not from a source).")
            entries.append(
                ModelEntry(
                    schema_version=1,
                    id=_slug(display),
                    name=display,
                    lab=meta["lab"],
                    region=region,
                    fully_open=bool(FULLY_OPEN.search(name)),
                    fine_tune_of=FINE_TUNE_OF.get(name),
                    total_params_b=total,
                    active_params_b=active if active is not None and active < total else None,
                    release_date=dt.date.fromisoformat(release)
                    if re.fullmatch(r"\d{4}-\d\d-\d\d", release)
                    else None,
                    hf_repo=meta.get("hf_repo") or None,
                    reasoning=mode if len(variants) > 1 else None,
                    attention=Attention(**layouts[name]) if name in layouts else None,
                    scores=scores,
                    notes=notes,
                )
            )
    return entries, log


def _dedupe(scores: list[Score]) -> list[Score]:
    seen: set[tuple] = set()
    out = []
    for score in scores:
        key = (score.benchmark, score.measured_by, score.link, score.variant)
        if key not in seen:
            seen.add(key)
            out.append(score)
    return out


def main(argv: list[str]) -> int:
    source, target = Path(argv[0]), Path(argv[1])
    entries, log = build_entries(source)
    target.mkdir(parents=True, exist_ok=True)
    write_entries(target, entries)
    for line in log:
        print(line)
    print(f"wrote {len(entries)} model files to {target}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
