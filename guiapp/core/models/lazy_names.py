"""A model family's package that names its parts without importing them: each name is imported
from its own module on first use, so that asking, e.g., whether a folder holds a saved model does
not load torch."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def names_on_first_use(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: each name in ``homes`` is read from the module
    ``package.<homes[name]>`` when it is first asked for; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{homes[name]}"), name)

    return __getattr__
