"""The modules of the bank: a plain dict from module name to its implementation."""

from __future__ import annotations

from engine.modules import knowledge
from engine.modules.base import Module

MODULES: dict[str, Module] = {
    "knowledge": knowledge.MODULE,
}
