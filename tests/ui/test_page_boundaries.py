"""The steps meet only in the study session: each step's folder (``guiapp/ui/steps/<step>/``) holds its
page and the widgets only it uses, no step's folder imports another's, and the window uses only what a
page offers as its interface (signals and methods), never a page's child widgets."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import guiapp.ui.steps as steps_package
from guiapp.ui import main_window

STEPS = Path(steps_package.__file__).parent
STEP_NAMES = ("data", "coding", "models", "run", "results", "documents", "predict", "findings")


def page_modules() -> dict[str, type]:
    """Module name → the page class it defines (a QWidget subclass named …Page)."""
    found = {}
    for path in sorted(STEPS.glob("*/*_page.py")):
        module = importlib.import_module(f"guiapp.ui.steps.{path.parent.name}.{path.stem}")
        classes = [value for name, value in vars(module).items()
                   if inspect.isclass(value) and name.endswith("Page") and value.__module__ == module.__name__]
        assert len(classes) == 1, f"{path.name} defines one page"
        found[path.stem] = classes[0]
    return found


def imported_modules(path: Path) -> set[str]:
    """Every guiapp module ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("guiapp.")}


def test_every_step_has_a_folder_with_its_page():
    assert {path.name for path in STEPS.iterdir() if (path / "__init__.py").exists()} == set(STEP_NAMES)
    assert {f"{step}_page" for step in STEP_NAMES} == set(page_modules())


def test_no_step_folder_imports_another_step_folder():
    for step in STEP_NAMES:
        for path in sorted((STEPS / step).glob("*.py")):
            for name in imported_modules(path):
                parts = name.split(".")
                if parts[:3] == ["guiapp", "ui", "steps"] and len(parts) > 3 and parts[3] in STEP_NAMES:
                    assert parts[3] == step, f"steps/{step}/{path.name} imports {name}, which is another step's"


def test_the_shared_parts_import_no_step():
    for folder in ("common", "window", "session"):
        for path in sorted((STEPS.parent / folder).glob("*.py")):
            for name in imported_modules(path):
                parts = name.split(".")
                assert not (parts[:3] == ["guiapp", "ui", "steps"] and len(parts) > 3 and parts[3] in STEP_NAMES), f"{folder}/{path.name} imports the step module {name}"


def test_no_page_names_another_page():
    modules = page_modules()
    for name in modules:
        tree = ast.parse((STEPS / name.removesuffix("_page") / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
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
