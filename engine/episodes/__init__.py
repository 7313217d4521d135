"""The registry of modules: each implementation by name, and the spec each one declares beside it.

The order of ``MODULES`` is the bench's module order everywhere (the bank's sort, the board's columns, the
scorecard); the names, labels, weights and judge policies are read from ``SPECS``, never spelled again.
"""

from __future__ import annotations

from typing import Any

from engine.episodes.adversarial import module as adversarial
from engine.episodes.base import Module
from engine.episodes.code import module as code
from engine.episodes.format import module as format
from engine.episodes.knowledge import module as knowledge
from engine.episodes.long_context import module as long_context
from engine.episodes.multi_turn_if import module as multi_turn_if
from engine.episodes.spec import ModuleSpec
from engine.episodes.tools import module as tools

MODULES: dict[str, Module[Any]] = {
    m.spec.name: m
    for m in (
        tools.MODULE,
        code.MODULE,
        format.MODULE,
        long_context.MODULE,
        multi_turn_if.MODULE,
        adversarial.MODULE,
        knowledge.MODULE,
    )
}
SPECS: dict[str, ModuleSpec] = {name: m.spec for name, m in MODULES.items()}
MODULE_NAMES: tuple[str, ...] = tuple(MODULES)
