"""Take the Python program out of a model's reply.

Models wrap code in many ways: a fenced block with a language tag, one without, one named after the file,
a fence they never close, several blocks (the solution, then a usage example, then a test), or no fence at
all. The rule here is to find the one block that is the answer and to add to it only what it needs:

1. Fenced blocks are collected (```` ``` ```` or ``~~~``, any info string). Blocks tagged as another
   language (``bash``, ``json``, ``text``, ``output`` ...) are dropped; untagged ones are kept when they
   parse as Python.
2. Among them, the block that defines the required function at top level wins; when several do, the last
   one (a model that revises itself ends with the revision). A block that only imports the function (a test
   or usage block: ``from solution import f``) does not define it. With no required name, the longest wins.
3. Other blocks are added in front of it only when they define a name the chosen block uses but does not
   define itself (a helper or a constant written in a block of its own). Usage and test blocks, which call
   things rather than define what is missing, stay out.
4. With no fence at all, a reply that parses as Python is the code. Otherwise the code is the longest run of
   lines that starts at a line opening a definition or import and parses.

Nothing here executes anything: it reads text and parses it with :mod:`ast`.
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from dataclasses import dataclass

from engine.model.normalise import split_reasoning

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_PY_TAGS = {"python", "py", "python3", "py3", "pycon", "ipython", "python-repl"}
_START = re.compile(r"^(?:def |async def |class |import |from \S+ import |@|[A-Z_][A-Z0-9_]*\s*=)")
_BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__doc__"}


@dataclass(frozen=True)
class Extraction:
    """The code taken from a reply (empty when none was found) and how it was found, for the record."""

    code: str
    how: str  # "fenced", "fenced+N", "bare", "lines", "none"

    @property
    def found(self) -> bool:
        return bool(self.code.strip())


@dataclass(frozen=True)
class _Block:
    info: str
    text: str
    index: int
    closed: bool = True


def _fenced_blocks(text: str) -> list[_Block]:
    """Every fenced block, in order. An unclosed last fence runs to the end of the reply."""
    lines = text.split("\n")
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        opened = _FENCE_OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        fence = opened.group("fence")
        indent = len(opened.group("indent"))
        info = opened.group("info").strip()
        body: list[str] = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
                break
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        closed = i < len(lines)
        i += 1  # past the closing fence (or the end)
        blocks.append(_Block(info=info, text=textwrap.dedent("\n".join(body)).strip("\n"), index=len(blocks),
                             closed=closed))
    return blocks


def _language(info: str) -> str:
    """The info string's language, lower-cased; a file name like ``shipping.py`` counts as Python."""
    first = info.split()[0].lower() if info.split() else ""
    first = first.lstrip("{.").rstrip("}")
    if first.endswith(".py") or first in _PY_TAGS:
        return "python"
    return first


# What ast.parse raises on text it cannot read: besides a SyntaxError, a MemoryError or RecursionError from the
# parser's own stack on absurd nesting (20,000 '-' or a chain of 10,000 attributes), not from the process.
_UNPARSABLE = (SyntaxError, ValueError, MemoryError, RecursionError)
# The parses the line fallback may make, in characters, as a multiple of the reply's length: each start line
# tries the rest of the reply, so a reply of thousands of code-like lines that never parse was quadratic.
_PARSE_BUDGET = 32


def _parses(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except _UNPARSABLE:
        return None


def _strip_prompts(code: str) -> str:
    """A block written as an interactive session (``>>>`` / ``...``) becomes plain code."""
    lines = code.split("\n")
    if not any(line.startswith(">>>") for line in lines):
        return code
    kept = [line[4:] if line.startswith((">>> ", "... ")) else line[3:] if line in (">>>", "...") else None
            for line in lines]
    return "\n".join(line for line in kept if line is not None)


def _defined(tree: ast.Module, *, imports: bool = True) -> set[str]:
    """Names the block binds at top level; with ``imports=False`` only those it defines itself (a block that
    imports a name from elsewhere uses it, it does not define it)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and imports:
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
    return names


def _used(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _local_names(tree: ast.Module) -> set[str]:
    """Names bound anywhere inside the block (parameters, loop variables, locals, comprehension targets)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _defines(tree: ast.Module, name: str) -> bool:
    """The block defines ``name`` itself: a test or usage block that imports it (``from solution import f``)
    does not, so it never wins over the block that holds the answer."""
    return name in _defined(tree, imports=False)


def _choose(blocks: list[tuple[_Block, ast.Module]], entry: str | None) -> tuple[str, int]:
    """The chosen code and how many blocks it was joined from."""
    if entry:
        header = re.compile(rf"^(?:async\s+)?def\s+{re.escape(entry)}\s*\(", re.MULTILINE)
        defining = [b for b in blocks if _defines(b[1], entry) or header.search(b[0].text)]
        chosen = defining[-1] if defining else max(blocks, key=lambda b: len(b[0].text))
    else:
        chosen = max(blocks, key=lambda b: len(b[0].text))
    block, tree = chosen
    missing = _used(tree) - _local_names(tree) - _BUILTINS
    helpers = []
    for other, other_tree in blocks:
        if other is block or not missing:
            continue
        if entry and _defines(other_tree, entry):
            continue  # an older version of the answer, not a helper
        provides = _defined(other_tree) & missing
        if provides:
            helpers.append(other)
            missing -= provides
    if not helpers:
        return block.text, 1
    ordered = sorted([*helpers, block], key=lambda b: b.index)
    return "\n\n\n".join(b.text for b in ordered), len(ordered)


def _parsing_prefix(lines: list[str], start: int, budget: list[int]) -> str:
    """The longest run of lines from ``start`` that parses. The parser's error line bounds each retry, so
    this takes a few parses, not one per line; each parse's characters come off ``budget``."""
    end = len(lines)
    while end > start and budget[0] > 0:
        candidate = "\n".join(lines[start:end]).rstrip()
        budget[0] -= len(candidate) + 1
        try:
            ast.parse(candidate)
            return candidate
        except _UNPARSABLE as exc:
            bad = getattr(exc, "lineno", None)
            shorter = start + bad - 1 if isinstance(bad, int) and bad >= 1 else end - 1
            end = shorter if shorter < end else end - 1
    return ""


def _from_lines(text: str) -> str:
    """The longest run of lines that starts like code and parses; empty when there is none. Parsing stops
    once it has read ``_PARSE_BUDGET`` times the text (a real reply needs a few parses)."""
    lines = text.split("\n")
    best, covered = "", -1
    budget = [_PARSE_BUDGET * (len(text) + 1)]
    for start, line in enumerate(lines):
        if budget[0] <= 0:
            break
        if start <= covered or not _START.match(line):
            continue
        found = _parsing_prefix(lines, start, budget)
        if found and _looks_like_code(found) and len(found) > len(best):
            best = found
            covered = start + found.count("\n")
    return best


def extract_code(reply: str, entry: str | None = None) -> Extraction:
    """The program in ``reply``; ``entry`` names the function the answer must define (it picks the block)."""
    text, _ = split_reasoning(reply.replace("\r\n", "\n").replace("\r", "\n"))
    blocks = _fenced_blocks(text)
    candidates: list[tuple[_Block, ast.Module]] = []
    for block in blocks:
        language = _language(block.info)
        if language not in ("python", ""):
            continue
        code = _strip_prompts(block.text)
        tree = _parses(code)
        if tree is None:
            if language == "python" and code.strip():
                # A tagged block that does not parse is still the model's answer: let it fail with the
                # real SyntaxError rather than fall back to some other text.
                empty = ast.Module(body=[], type_ignores=[])
                candidates.append((_Block(block.info, code, block.index), empty))
            continue
        if code.strip():
            candidates.append((_Block(block.info, code, block.index), tree))
    if candidates:
        code, joined = _choose(candidates, entry)
        return Extraction(code=code.rstrip() + "\n", how="fenced" if joined == 1 else f"fenced+{joined - 1}")
    if blocks:
        # Only blocks in other languages (or prose in fences): look for code outside them is pointless.
        return Extraction(code="", how="none")
    bare = text.strip("\n")
    if bare.strip() and _parses(bare) is not None and _looks_like_code(bare):
        return Extraction(code=textwrap.dedent(bare).rstrip() + "\n", how="bare")
    found = _from_lines(text)
    if found:
        return Extraction(code=found + "\n", how="lines")
    return Extraction(code="", how="none")


def code_before_cut(reply: str, entry: str | None = None) -> bool:
    """Whether a reply cut by the token limit had already given its code whole: the code is taken from fenced
    blocks and every fence is closed, so the cut fell in the prose after them (:mod:`engine.episodes.cut`)."""
    text, _ = split_reasoning(reply.replace("\r\n", "\n").replace("\r", "\n"))
    blocks = _fenced_blocks(text)
    return bool(blocks) and all(b.closed for b in blocks) and extract_code(reply, entry).how.startswith("fenced")


def _looks_like_code(text: str) -> bool:
    """A bare reply that parses may still be one English word (a bare name) or a number: not a program."""
    tree = _parses(text)
    if tree is None or not tree.body:
        return False
    return any(not isinstance(node, ast.Expr) for node in tree.body) or any(
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) for node in tree.body
    )
