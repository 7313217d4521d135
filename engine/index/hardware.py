"""'Can I run it?': memory and decode speed of a model on a device, from its real attention layout.

memory = weights (parameters x bits per weight of the quantisation)
       + context cache (full layers hold every token, sliding-window layers at most the window,
         recurrent layers a constant state)
       + runtime buffers (0.5 GB + 2% of the weights)
fits   = memory within FIT_SHARE (90%) of the device's memory: the rest is headroom for everything else
speed  = device bandwidth x efficiency / bytes read per generated token (the active weights plus the cache),
         with a penalty for Mixture-of-Experts models, whose expert reads are scattered.

The same formula runs in the browser (site_src/assets/index/can-i-run.js); a test checks the two agree. Both
read the tables below through ``calculator_tables()``: one copy of every constant. GB means 1e9 bytes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from engine.core.errors import UserError
from engine.index.context_limit import NOT_RECORDED, limit_data
from engine.index.schema import ModelEntry

# Effective bits per weight of common GGUF quantisations, including their scales.
QUANT_BITS: dict[str, float] = {
    "Q2_K": 3.16,
    "Q3_K_M": 3.91,
    "Q4_K_S": 4.67,
    "Q4_K_M": 4.85,
    "Q5_K_M": 5.70,
    "Q6_K": 6.56,
    "Q8_0": 8.50,
    "F16": 16.0,
}
KV_BYTES = 2.0  # f16 cache entries
RUNTIME_BASE_GB = 0.5
RUNTIME_SHARE = 0.02
# A recurrent layer (Mamba2, short convolution, linear attention) keeps a fixed state whatever the context.
# Its size depends on the layer's widths, which the files do not carry; 4 MB is a generous round figure for
# the models here (a Mamba2 layer of a 9B model holds about that much in f32).
RECURRENT_STATE_MB = 4.0
# Routing to experts reads scattered blocks and adds work per token: decode runs at this share of the
# bandwidth-bound figure. A rough allowance, not a measurement.
MOE_SPEED_FACTOR = 0.8
# "Fits" leaves this share of the device's memory free: the system, the display and the apps around the
# model hold some of it (13.7 of 16 GB had said "Fits"). The page states the share from here.
FIT_SHARE = 0.9
# What the calculator and `sllmb index can-i-run` say of the speed of a model that does not fit: no figure
# (a bandwidth-bound speed is meaningless for a model that cannot be loaded). The page's script reads it.
NO_FIT_SPEED = "none: it does not fit"


@dataclass(frozen=True)
class Device:
    name: str
    memory_gb: float
    bandwidth_gbs: float  # the maker's figure
    efficiency: float  # share of that bandwidth decoding typically reaches (our rough allowance)


DEVICES: tuple[Device, ...] = (
    Device("CPU, dual-channel DDR5-5600, 32 GB", 32, 89.6, 0.5),
    Device("Apple M2, 16 GB", 16, 100, 0.65),
    Device("Apple M3 Pro, 36 GB", 36, 150, 0.65),
    Device("Apple M4 Max, 64 GB", 64, 546, 0.65),
    Device("Apple M2 Ultra, 192 GB", 192, 800, 0.65),
    Device("NVIDIA RTX 3060, 12 GB", 12, 360, 0.7),
    Device("NVIDIA RTX 4060 Ti, 16 GB", 16, 288, 0.7),
    Device("NVIDIA RTX 3090, 24 GB", 24, 936, 0.7),
    Device("NVIDIA RTX 4090, 24 GB", 24, 1008, 0.7),
    Device("NVIDIA RTX 5090, 32 GB", 32, 1792, 0.7),
    Device("NVIDIA H100 SXM, 80 GB", 80, 3350, 0.6),
)


@dataclass(frozen=True)
class Layout:
    """What the formula needs of a model: its sizes and its attention layout."""

    total_params_b: float
    active_params_b: float
    full_layers: int
    sliding_layers: int
    sliding_window: int
    recurrent_layers: int
    kv_heads: int
    head_dim: int

    @property
    def is_moe(self) -> bool:
        return self.active_params_b < self.total_params_b

    @staticmethod
    def of(entry: ModelEntry) -> Layout:
        att = entry.attention
        if att is None:
            raise UserError(f"{entry.id}: no attention layout in its file, so its context cache is unknown")
        return Layout(
            total_params_b=entry.total_params_b,
            active_params_b=entry.active_params_b or entry.total_params_b,
            full_layers=att.full_layers,
            sliding_layers=att.sliding_layers,
            sliding_window=att.sliding_window or 0,
            recurrent_layers=att.recurrent_layers,
            kv_heads=att.kv_heads,
            head_dim=att.head_dim,
        )


@dataclass(frozen=True)
class Estimate:
    weights_gb: float
    kv_cache_gb: float
    runtime_gb: float
    total_gb: float
    fits: bool
    tokens_per_s: float

    @property
    def speed_text(self) -> str:
        """The decode speed as the CLI and the page write it; NO_FIT_SPEED when the model does not fit."""
        return f"about {self.tokens_per_s:.0f} tokens/s" if self.fits else NO_FIT_SPEED


def kv_cache_gb(layout: Layout, context: int) -> float:
    per_token_per_layer = layout.kv_heads * layout.head_dim * 2 * KV_BYTES  # keys and values
    tokens = layout.full_layers * context + layout.sliding_layers * min(context, layout.sliding_window)
    return (tokens * per_token_per_layer + layout.recurrent_layers * RECURRENT_STATE_MB * 1e6) / 1e9


def estimate(layout: Layout, quant: str, context: int, device: Device) -> Estimate:
    if quant not in QUANT_BITS:
        raise UserError(f"unknown quantisation {quant!r}; choose one of {', '.join(QUANT_BITS)}")
    if context < 1:
        raise UserError("context must be at least 1 token")
    bits = QUANT_BITS[quant]
    weights = layout.total_params_b * bits / 8
    cache = kv_cache_gb(layout, context)
    runtime = RUNTIME_BASE_GB + RUNTIME_SHARE * weights
    total = weights + cache + runtime
    read_per_token = layout.active_params_b * bits / 8 + cache
    speed = device.bandwidth_gbs * device.efficiency / read_per_token
    if layout.is_moe:
        speed *= MOE_SPEED_FACTOR
    return Estimate(weights, cache, runtime, total, total <= FIT_SHARE * device.memory_gb, speed)


def device_named(name: str) -> Device:
    for device in DEVICES:
        if device.name == name:
            return device
    raise UserError(f"unknown device {name!r}")


def calculator_tables() -> dict:
    """Every constant the browser calculator needs, as plain JSON-able data."""
    return {
        "quant_bits": dict(QUANT_BITS),
        "kv_bytes": KV_BYTES,
        "runtime_base_gb": RUNTIME_BASE_GB,
        "runtime_share": RUNTIME_SHARE,
        "recurrent_state_mb": RECURRENT_STATE_MB,
        "moe_speed_factor": MOE_SPEED_FACTOR,
        "fit_share": FIT_SHARE,
        "no_fit_speed": NO_FIT_SPEED,
        "devices": [asdict(d) for d in DEVICES],
        "context_not_recorded": NOT_RECORDED,
    }


# What a calculator model carries beside its Layout: its id, its name and its maximum context (or None).
PAGE_ONLY_KEYS = ("id", "name", "max_context")


def calculator_models(entries: list[ModelEntry]) -> list[dict]:
    """The models the calculator can size: those with an attention layout, by name."""
    out = []
    for entry in sorted(entries, key=lambda e: e.name.lower()):
        if entry.attention is None:
            continue
        out.append(
            {"id": entry.id, "name": entry.name, "max_context": limit_data(entry), **asdict(Layout.of(entry))}
        )
    return out


def page_layout(model: dict) -> Layout:
    """The Layout of one of ``calculator_models``' entries."""
    return Layout(**{k: v for k, v in model.items() if k not in PAGE_ONLY_KEYS})
