"""The base of the statistics' result records: a frozen dataclass of plain values (numbers, words,
lists of them) that a results file stores as a dict of the same fields."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


class PlainRecord:
    """Gives a dataclass of plain values its ``to_dict`` for the results files (field name → value)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]  # every subclass is a dataclass
