"""The tree and the architecture page agree: every stage folder is described, and the tests mirror it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
PAGE = ROOT / "site_src" / "contributing" / "architecture.md"
# Test folders that do not mirror one engine folder: the whole-stack end-to-end runs and shared helpers.
TEST_ONLY = {"e2e", "helpers"}


def _engine_folders() -> set[str]:
    return {p.name for p in ENGINE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}


def _rooms_table() -> set[str]:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## The rooms of `engine/`", 1)[1].split("\n## ", 1)[0]
    first_cells = re.findall(r"^\| ([^|]+) \|", table, flags=re.MULTILINE)
    return {name for cell in first_cells for name in re.findall(r"`([a-z_]+)/`", cell)}


def test_every_engine_folder_is_a_room_of_the_architecture_page_and_back():
    assert _rooms_table() == _engine_folders()


def test_no_loose_modules_at_the_top_of_engine():
    # Only the entry points sit at the top; everything else lives in the folder of its stage.
    loose = {p.name for p in ENGINE.glob("*.py")}
    assert loose == {"__init__.py", "__main__.py", "cli.py"}


def test_the_test_tree_mirrors_the_engine_tree():
    test_folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert test_folders - TEST_ONLY <= _engine_folders(), "a test folder with no engine folder of that name"
    untested = _engine_folders() - test_folders - {"commands"}
    assert not untested, f"engine folders with no tests/<folder>: {sorted(untested)}"


def test_every_engine_path_the_docs_name_exists():
    # Docs that point a contributor at a file must point at one that is there.
    docs = [PAGE, ROOT / "CONTRIBUTING.md", ROOT / "README.md", *sorted((ROOT / "site_src").rglob("*.md"))]
    missing = []
    for doc in docs:
        for path in re.findall(r"\bengine/[A-Za-z0-9_/]+\.py\b", doc.read_text(encoding="utf-8")):
            if not (ROOT / path).is_file():
                missing.append(f"{doc.relative_to(ROOT)}: {path}")
    assert not missing, missing


def test_every_data_file_of_the_package_is_declared_package_data():
    # A file the engine reads at run time but the wheel leaves out works in a checkout and fails once installed.
    import fnmatch

    # Read with a pattern, not tomllib, which Python 3.10 (still supported) does not have.
    section = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[tool.setuptools.package-data]")[1]
    patterns = re.findall(r'"([^"]+)"', re.search(r"^engine = \[(.*?)\]", section, re.MULTILINE).group(1))
    data = [p.relative_to(ENGINE).as_posix() for p in ENGINE.rglob("*") if p.is_file()
            and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    undeclared = [f for f in data if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert data and not undeclared, undeclared
