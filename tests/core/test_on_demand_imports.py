"""The self-test's list of libraries TextLab loads on demand covers every library TextLab imports, and
a library that cannot be imported is named."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from guiapp.core import on_demand_imports
from guiapp.core.on_demand_imports import AT_START, ON_DEMAND, WHERE_INSTALLED, check_on_demand_imports

PACKAGE = Path(__file__).resolve().parents[2] / "guiapp"


def imported_libraries() -> set[str]:
    """The top-level names of every library a module of guiapp imports (the standard library aside)."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name not in ("guiapp", "__future__")}


def test_every_library_textlab_imports_is_checked():
    listed = {name.split(".")[0] for name in (*ON_DEMAND, *WHERE_INSTALLED, *AT_START)}
    missing = imported_libraries() - listed - {"pydantic_core"}  # pydantic's own core, imported with it
    assert not missing, f"add {sorted(missing)} to guiapp/core/on_demand_imports.py"


def test_a_library_that_cannot_be_imported_is_named(monkeypatch):
    monkeypatch.setattr(on_demand_imports, "ON_DEMAND", ("json", "textlab_no_such_library"))
    with pytest.raises(RuntimeError, match="textlab_no_such_library cannot be imported"):
        check_on_demand_imports()
    monkeypatch.setattr(on_demand_imports, "ON_DEMAND", ("json",))
    monkeypatch.setattr(on_demand_imports, "WHERE_INSTALLED", ("textlab_no_such_library",))
    assert check_on_demand_imports() == "1 library"  # one not installed is not asked for
