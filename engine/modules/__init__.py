"""The modules of the bank: a plain dict from module name to its implementation."""

from __future__ import annotations

from engine.modules import knowledge, tools
from engine.modules.base import Module

MODULES: dict[str, Module] = {
    "tools": tools.MODULE,
    "knowledge": knowledge.MODULE,
}
