"""The memory and speed formula against cases worked by hand."""

from __future__ import annotations

import pytest

from engine.index.hardware import Device, Layout, estimate, kv_cache_gb

DEVICE = Device("test GPU", 24, 1000, 0.5)


def test_dense_model_by_hand():
    # Llama-3.1-8B layout: 32 full layers, 8 KV heads of 128. Per token: 32*8*128*2 (K and V)*2 bytes
    # = 131072 bytes; 8192 tokens -> 1.073741824 GB. Weights at Q4_K_M: 8 * 4.85 / 8 = 4.85 GB.
    # Runtime 0.5 + 0.02*4.85 = 0.597. Total 6.520741824 GB. Speed: 1000*0.5 / (4.85 + 1.0737) = 84.41 t/s.
    layout = Layout(8, 8, 32, 0, 0, 0, 8, 128)
    r = estimate(layout, "Q4_K_M", 8192, DEVICE)
    assert r.weights_gb == pytest.approx(4.85)
    assert r.kv_cache_gb == pytest.approx(1.073741824)
    assert r.runtime_gb == pytest.approx(0.597)
    assert r.total_gb == pytest.approx(6.520741824)
    assert r.fits
    assert r.tokens_per_s == pytest.approx(500 / (4.85 + 1.073741824))


def test_sliding_window_model_by_hand():
    # Gemma 3 27B layout: 62 layers, 10 global and 52 sliding (window 1024), 16 KV heads of 128.
    # Per layer per token: 16*128*2*2 = 8192 bytes. At 32768 tokens: 10*32768*8192 = 2684354560 and
    # 52*1024*8192 = 436207616 -> 3.120562176 GB (all full would be 16.64 GB).
    layout = Layout(27, 27, 10, 52, 1024, 0, 16, 128)
    assert kv_cache_gb(layout, 32768) == pytest.approx(3.120562176)
    # Below the window every layer holds all tokens: 62 * 512 * 8192 bytes.
    assert kv_cache_gb(layout, 512) == pytest.approx(62 * 512 * 8192 / 1e9)
    r = estimate(layout, "Q8_0", 32768, DEVICE)
    assert r.weights_gb == pytest.approx(27 * 8.5 / 8)
    assert not r.fits  # 28.69 + 3.12 + 1.07 > 24


def test_recurrent_layers_cost_a_constant():
    # Nemotron-Nano-9B-v2: 4 attention layers, 27 Mamba2 layers (4 MB each, whatever the context).
    layout = Layout(9, 9, 4, 0, 0, 27, 8, 128)
    small, large = kv_cache_gb(layout, 1000), kv_cache_gb(layout, 101000)
    assert small == pytest.approx((4 * 1000 * 8 * 128 * 4 + 27 * 4e6) / 1e9)
    assert large - small == pytest.approx(4 * 100000 * 8 * 128 * 4 / 1e9)


def test_moe_model_by_hand():
    # gpt-oss-20b: 21B total, 3.6B active; 12 full and 12 sliding (128) layers, 8 KV heads of 64.
    # At 4096 tokens: (12*4096 + 12*128) * 8*64*2*2 = 50688 * 2048 = 103809024 bytes.
    # Weights Q4_K_M: 21*4.85/8 = 12.73125 GB; runtime 0.5 + 0.254625; total 13.589684024 GB.
    # Speed reads only the active weights, times the MoE factor 0.8:
    # 500 / (3.6*4.85/8 + 0.103809024) * 0.8 = 500 / 2.286309024 * 0.8.
    layout = Layout(21, 3.6, 12, 12, 128, 0, 8, 64)
    r = estimate(layout, "Q4_K_M", 4096, DEVICE)
    assert r.kv_cache_gb == pytest.approx(0.103809024)
    assert r.total_gb == pytest.approx(12.73125 + 0.103809024 + 0.7546250)
    assert r.tokens_per_s == pytest.approx(500 / 2.286309024 * 0.8)


def test_fits_keeps_the_headroom_the_page_states():
    """13.7 of 16 GB said "Fits": a model fits when its total is within FIT_SHARE of the memory, and the page
    says how much that is."""
    from engine.index.hardware import FIT_SHARE, NO_FIT_SPEED
    from engine.publish.site.index_calculator import render_calculator_html

    assert 0.8 <= FIT_SHARE < 1
    device = Device("16 GB", 16, 100, 0.5)
    layout = Layout(8, 8, 32, 0, 0, 0, 8, 128)
    # 8B at Q8_0: 8.5 + 0.671 + 0.67 ≈ 9.84 GB fits; at F16, 16 + 0.67 + 0.82 ≈ 17.5 does not.
    assert estimate(layout, "Q8_0", 4096, device).fits
    nearly = estimate(Layout(13.5, 13.5, 32, 0, 0, 0, 8, 128), "Q8_0", 4096, device)
    assert 14.4 < nearly.total_gb < 16 and not nearly.fits
    assert nearly.speed_text == NO_FIT_SPEED and "tokens/s" not in nearly.speed_text
    page = render_calculator_html([])
    assert f"within {FIT_SHARE:.0%} of the device" in page.replace("&#x27;", "'")
