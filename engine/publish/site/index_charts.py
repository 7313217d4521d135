"""The Index charts: the index against parameters, price or speed, as static inline SVG."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.index.index import IndexResult
from engine.index.schema import REGIONS
from engine.publish.escape import esc
from engine.publish.index_view import DIGITS, num_text
from engine.publish.site.index_common import WEEKLY_SYNC

CHART_LABELS = {
    "params": "Total parameters (billions, log scale)",
    "price": "Blended price, USD per million tokens (log scale)",
    "speed": "Measured output speed, tokens per second (log scale)",
}


@dataclass(frozen=True)
class ChartPoint:
    id: str
    name: str
    x: float
    y: float  # the index, to two places: where the dot sits
    text: str  # the index as the table and the model page show it
    region: str


def chart_points(result: IndexResult, x: str) -> list[ChartPoint]:
    """Points of a chart of the index against ``x``: "params" (total, B) or "price" (blended $/M)."""
    points = []
    for row in result.rows:
        if row.index is None:
            continue
        entry = row.entry
        if x == "params":
            value = entry.total_params_b
        elif x == "speed":
            if entry.speed is None:  # our measurements only; the axis appears once there are some
                continue
            value = entry.speed.output_tokens_per_s
        elif x == "price":
            if entry.pricing is None or entry.pricing.blended_per_m <= 0:
                continue
            value = entry.pricing.blended_per_m
        else:
            raise ValueError(f"unknown chart axis {x!r}")
        text = num_text(round(row.index, DIGITS))
        points.append(ChartPoint(entry.id, entry.name, value, round(row.index, 2), text, entry.region))
    return points


def render_scatter_svg(points: list[ChartPoint], x_label: str, width: int = 720, height: int = 420) -> str:
    """A static scatter (log x axis) as inline SVG: no script, no outside request."""
    if not points:
        return f'<p class="sli-empty">No model has this figure yet: {WEEKLY_SYNC} fills this chart.</p>'
    # Room for labels up to 2.5 times the desktop size: index.css enlarges them as the chart shrinks, so that
    # on a phone they are still 11 px on screen (drawn at 11 px, a 390 px screen showed them at 5.5 px).
    left, right, top, bottom = 72, 28, 16, 64
    xs = [math.log10(p.x) for p in points]
    x_lo, x_hi = math.floor(min(xs)), math.ceil(max(xs))
    if x_hi == x_lo:
        x_hi += 1
    y_lo, y_hi = 0.0, max(10.0, math.ceil(max(p.y for p in points) / 10) * 10)

    def px(v: float) -> float:
        return left + (math.log10(v) - x_lo) / (x_hi - x_lo) * (width - left - right)

    def py(v: float) -> float:
        return height - bottom - (v - y_lo) / (y_hi - y_lo) * (height - top - bottom)

    parts = [
        '<div class="sli-chart-box">'
        f'<svg class="sli-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{esc("Small LM Index against " + x_label)}">'
    ]
    for e in range(x_lo, x_hi + 1):
        x = px(10.0**e)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" class="grid"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{height - bottom + 6}" text-anchor="middle" dominant-baseline="hanging">'
            f"{esc(f'{10.0**e:g}')}</text>"
        )
    for v in range(int(y_lo), int(y_hi) + 1, 10):
        y = py(v)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6}" y="{y:.1f}" text-anchor="end" dominant-baseline="middle">{v}</text>')
    for p in points:
        parts.append(
            f'<circle cx="{px(p.x):.1f}" cy="{py(p.y):.1f}" r="4" '
            f'data-region="{esc(p.region)}"><title>{esc(p.name)}: {esc(p.text)} '
            f"at {esc(format(p.x, 'g'))}</title></circle>"
        )
    parts.append(f'<text x="{(width + left) / 2:.0f}" y="{height - 6}" text-anchor="middle">{esc(x_label)}</text>')
    parts.append(
        f'<text x="4" y="{(height - bottom) / 2:.0f}" transform="rotate(-90 4 '
        f'{(height - bottom) / 2:.0f})" text-anchor="middle" dominant-baseline="hanging">Small LM Index</text>'
    )
    parts.append("</svg></div>")
    return "".join(parts) + chart_legend(sorted({p.region for p in points}, key=REGIONS.index))


def chart_legend(regions: Sequence[str]) -> str:
    """Which colour is which region (index.css colours the dots by their data-region, in both palettes)."""
    items = "".join(f'<li><span class="sli-dot" data-region="{esc(r)}"></span>{esc(r)}</li>' for r in regions)
    return f'<ul class="sli-chart-legend" aria-label="Regions">{items}</ul>'
