"""The steps meet only in the study session: no page reaches into another page, and the window uses
only what a page offers as its interface (signals and methods), never a page's child widgets."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import guiapp.ui.pages as pages_package
from guiapp.ui import main_window

PAGES = Path(pages_package.__file__).parent


def page_modules() -> dict[str, type]:
    """Module name → the page class it defines (a QWidget subclass named …Page)."""
    found = {}
    for path in sorted(PAGES.glob("*_page.py")):
        module = importlib.import_module(f"guiapp.ui.pages.{path.stem}")
        classes = [value for name, value in vars(module).items()
                   if inspect.isclass(value) and name.endswith("Page") and value.__module__ == module.__name__]
        assert len(classes) == 1, f"{path.name} defines one page"
        found[path.stem] = classes[0]
    return found


def test_every_step_has_a_page_module():
    assert set(page_modules()) == {"data_page", "coding_page", "models_page", "run_page", "results_page", "documents_page",
                                   "predict_page", "findings_page"}


def test_no_page_imports_or_names_another_page():
    modules = page_modules()
    for name in modules:
        tree = ast.parse((PAGES / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported = node.module.rsplit(".", 1)[-1]
                assert imported == name or imported not in modules, f"{name} imports the page {imported}"
            if isinstance(node, ast.Attribute):
                assert not node.attr.endswith("_page"), f"{name} reaches another page through .{node.attr}"
            if isinstance(node, ast.Name):
                others = {cls.__name__ for other, cls in modules.items() if other != name}
                assert node.id not in others, f"{name} names the page class {node.id}"


def test_the_window_uses_only_the_pages_interfaces():
    """``self.<page>.<name>`` in the window names a signal or method of the page's class: a child
    widget (an instance attribute) would mean the window reaches into the page."""
    classes = {name: cls for name, cls in page_modules().items()}
    tree = ast.parse(Path(main_window.__file__).read_text(encoding="utf-8"))
    used = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "self"
                and node.value.attr in classes):
            used.add((node.value.attr, node.attr))
    assert used, "the window builds and wires the pages"
    for page, attribute in sorted(used):
        assert hasattr(classes[page], attribute), f"the window reaches into {page}.{attribute}"


def test_the_main_window_stays_small():
    lines = Path(main_window.__file__).read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"main_window.py has {lines} lines: move what is not building or navigation out"
