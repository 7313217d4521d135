"""The modules of the bank: a plain dict from module name to its implementation."""

from __future__ import annotations

from engine.modules import adversarial, knowledge, long_context, tools
from engine.modules.base import Module

MODULES: dict[str, Module] = {
    "tools": tools.MODULE,
    "long_context": long_context.MODULE,
    "adversarial": adversarial.MODULE,
    "knowledge": knowledge.MODULE,
}
