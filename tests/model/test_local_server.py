"""How the embedded server is laid out for the machine and the selected tasks, and how its host process
turns models.yaml's server_args into llama.cpp parameters."""

from __future__ import annotations

import pytest

from engine.core.errors import UserError
from engine.core.models_file import ModelEntry
from engine.model.local_server import MAX_SLOTS, Layout, choose_layout, host_command


def _entry(context: int | None = 8192, server_args: list[str] | None = None) -> ModelEntry:
    return ModelEntry(name="m", context=context, server_args=server_args or [])


def test_threads_follow_the_cores_and_slots_the_cores_that_can_batch():
    assert choose_layout(_entry(), cpus=1) == Layout(threads=1, slots=1, context_per_slot=8192)
    assert choose_layout(_entry(), cpus=2).slots == MAX_SLOTS == 4
    assert choose_layout(_entry(), cpus=16) == Layout(threads=16, slots=MAX_SLOTS, context_per_slot=8192)
    assert choose_layout(_entry(), cpus=2, slots=1, threads=1) == Layout(1, 1, 8192)


def test_the_window_is_what_the_tasks_need_with_headroom_within_the_models_context():
    assert choose_layout(_entry(), needed_context=1000, cpus=2).context_per_slot == 2048  # the floor
    assert choose_layout(_entry(), needed_context=3000, cpus=2).context_per_slot == 4096  # 3750 -> 4096
    assert choose_layout(_entry(), needed_context=7000, cpus=2).context_per_slot == 8192  # capped
    assert choose_layout(_entry(), needed_context=32016, cpus=2).context_per_slot == 8192  # the run refuses
    assert choose_layout(_entry(context=None), cpus=2).context_per_slot == 8192
    assert choose_layout(_entry(), needed_context=7000, context=16384, cpus=2).context_per_slot == 16384


def test_impossible_layouts_name_the_flag():
    with pytest.raises(UserError, match="--slots"):
        choose_layout(_entry(), cpus=2, slots=-1)
    with pytest.raises(UserError, match="--context"):
        choose_layout(_entry(), cpus=2, context=-5)


def test_the_host_command_carries_the_layout_and_the_models_server_args(tmp_path):
    cmd = host_command(_entry(server_args=["n_batch=512"]), tmp_path / "m.gguf", Layout(2, 4, 4096), 0)
    assert cmd[1:3] == ["-m", "engine.model.embedded_host"]
    pairs = dict(zip(cmd[3::2], cmd[4::2], strict=True))
    assert pairs["--slots"] == "4" and pairs["--ctx-per-slot"] == "4096" and pairs["--threads"] == "2"
    assert pairs["--port"] == "0" and pairs["--set"] == "n_batch=512" and pairs["--alias"] == "m"


@pytest.mark.llama
def test_the_host_sets_llama_cpp_parameters_by_their_own_types():
    from engine.model.embedded_host import build_params, main

    args = type("A", (), {"model": "m.gguf", "alias": "m", "port": 0, "slots": 3, "ctx_per_slot": 2048,
                          "threads": 2, "set": ["n_batch=256", "ctx_shift=true", "slot_prompt_similarity=0.5"]})
    params = build_params(args)
    assert (params.n_parallel, params.n_ctx, params.kv_unified) == (3, 6144, False)  # -c is shared by slots
    assert (params.n_batch, params.ctx_shift, params.cpuparams.n_threads) == (256, True, 2)
    assert abs(params.slot_prompt_similarity - 0.5) < 1e-6
    for bad in ("nope=1", "n_batch=many", "ctx_shift=maybe", "n_batch"):
        args.set = [bad]
        with pytest.raises(ValueError):
            build_params(args)
    assert main(["--model", "m.gguf", "--alias", "m", "--ctx-per-slot", "512", "--set", "nope=1"]) == 2


@pytest.mark.llama
def test_the_host_sets_enum_parameters_such_as_the_kv_cache_type_by_name():
    from engine.model.embedded_host import build_params

    args = type("A", (), {"model": "m.gguf", "alias": "m", "port": 0, "slots": 1, "ctx_per_slot": 2048,
                          "threads": 1, "set": ["cache_type_k=q8_0", "cache_type_v=GGML_TYPE_Q4_0",
                                                "flash_attn_type=enabled"]})
    params = build_params(args)
    assert (params.cache_type_k.name, params.cache_type_v.name) == ("GGML_TYPE_Q8_0", "GGML_TYPE_Q4_0")
    assert params.flash_attn_type.name == "LLAMA_FLASH_ATTN_TYPE_ENABLED"
    args.set = ["cache_type_k=q3"]
    with pytest.raises(ValueError, match="q8_0"):
        build_params(args)
