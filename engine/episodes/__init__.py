"""The modules of the bank: a plain dict from module name to its implementation."""

from __future__ import annotations

from engine.episodes.adversarial import module as adversarial
from engine.episodes.base import Module
from engine.episodes.code import module as code
from engine.episodes.format import module as format
from engine.episodes.knowledge import module as knowledge
from engine.episodes.long_context import module as long_context
from engine.episodes.multi_turn_if import module as multi_turn_if
from engine.episodes.tools import module as tools

MODULES: dict[str, Module] = {
    "tools": tools.MODULE,
    "code": code.MODULE,
    "format": format.MODULE,
    "long_context": long_context.MODULE,
    "multi_turn_if": multi_turn_if.MODULE,
    "adversarial": adversarial.MODULE,
    "knowledge": knowledge.MODULE,
}
