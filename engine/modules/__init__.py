"""The modules of the bank: a plain dict from module name to its implementation."""

from __future__ import annotations

from engine.modules import adversarial, code, format, knowledge, long_context, multi_turn_if, tools
from engine.modules.base import Module

MODULES: dict[str, Module] = {
    "tools": tools.MODULE,
    "code": code.MODULE,
    "format": format.MODULE,
    "long_context": long_context.MODULE,
    "multi_turn_if": multi_turn_if.MODULE,
    "adversarial": adversarial.MODULE,
    "knowledge": knowledge.MODULE,
}
