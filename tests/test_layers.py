"""No import climbs the pipeline, and no engine module imports itself round a circle.

The stage order is declared once, on the architecture page (its "stage order" block); this test reads every
import in ``engine/`` with ``ast`` (module level and deferred ones inside functions, relative ones resolved)
and fails on an import whose target sits in a later stage than the importer, or on any cycle between engine
modules, naming the path round it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
PAGE = ROOT / "site_src" / "contributing" / "architecture.md"


def stage_order() -> dict[str, int]:
    """The page's order: ``a < b, c < d`` gives a rank 0, b and c rank 1, d rank 2. A name is a folder of
    ``engine/`` (``publish/site`` a sub-folder, ``cli`` the top-level entry points)."""
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"<!-- stage order -->\s*```text\n(.*?)```", text, flags=re.DOTALL)
    assert block, f"{PAGE.relative_to(ROOT)}: no ```text block after <!-- stage order -->"
    ranks: dict[str, int] = {}
    for rank, group in enumerate(" ".join(block.group(1).split()).split("<")):
        for name in group.split(","):
            ranks[name.strip()] = rank
    return ranks


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _exists(name: str) -> bool:
    path = ROOT / Path(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(source: str, me: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, engine module) for every import in module ``me``'s source, wherever it sits (in a function, under
    ``if TYPE_CHECKING``): ``from pkg import sub`` is an import of ``pkg.sub`` when that is a module, of
    ``pkg`` (its ``__init__``) otherwise; a relative import is resolved against ``me``'s package."""
    package = me if is_package else me.rpartition(".")[0]
    for node in ast.walk(ast.parse(source, me)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "engine":
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "engine":
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                yield node.lineno, sub if _exists(sub) else source


def stage_of(name: str, ranks: dict[str, int]) -> str:
    parts = name.split(".")[1:]
    if not parts or parts[0] in ("cli", "__main__"):
        return "cli" if parts else "engine"
    if len(parts) > 1 and "/".join(parts[:2]) in ranks:
        return "/".join(parts[:2])
    return parts[0]


def graph() -> dict[str, dict[str, int]]:
    """Every engine module and the engine modules it imports, with the line of the first such import."""
    edges: dict[str, dict[str, int]] = {}
    for path in sorted(ENGINE.rglob("*.py")):
        found = edges.setdefault(module_name(path), {})
        source = path.read_text(encoding="utf-8")
        for line, target in imports_of(source, module_name(path), path.name == "__init__.py"):
            if target != module_name(path):
                found.setdefault(target, line)
    return edges


def test_every_stage_of_the_order_is_a_folder_of_engine() -> None:
    ranks = stage_order()
    folders = {p.name for p in ENGINE.iterdir() if (p / "__init__.py").is_file()}
    assert set(ranks) - {"cli"} == folders | {"publish/site"}, "the order names each folder once, and only those"


def test_no_import_climbs_the_stage_order() -> None:
    ranks = stage_order()
    climbing = []
    for module, targets in graph().items():
        here = stage_of(module, ranks)
        for target, line in targets.items():
            there = stage_of(target, ranks)
            if here != "engine" and there != "engine" and ranks[there] > ranks[here]:
                climbing.append(f"{module}:{line} imports {target} ({here} < {there})")
    assert not climbing, "imports that climb the stage order:\n" + "\n".join(sorted(climbing))


def find_cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """One path round each strongly connected group of modules (Tarjan's algorithm, then a walk inside it)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    cycles = []
    for group in groups:
        members = set(group)
        path, seen = [group[0]], {group[0]}
        while True:  # every member reaches every other, so a walk inside the group comes back round
            nxt = sorted(w for w in edges[path[-1]] if w in members)
            back = [w for w in nxt if w in seen]
            if back:
                path = path[path.index(back[0]):] + [back[0]]
                break
            path.append(nxt[0])
            seen.add(nxt[0])
        cycles.append(path)
    return cycles


def test_no_import_cycle_between_engine_modules() -> None:
    cycles = find_cycles(graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_reader_sees_deferred_and_relative_imports() -> None:
    # The checks above are only as good as the reader: an import inside a function and a relative one count.
    source = "def f():\n    from ..analysis import scoring\n    from . import plan\n    import engine.core.errors\n"
    found = list(imports_of(source, "engine.run.scorecard", is_package=False))
    assert found == [(2, "engine.analysis.scoring"), (3, "engine.run.plan"), (4, "engine.core.errors")]
    assert list(imports_of("from . import core\n", "engine.sandbox", is_package=True)) == [(1, "engine.sandbox.core")]
    assert find_cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b": 1}, "b": {}}) == []
