"""Dates as the methods appendix writes them: "8 December 2026"."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def date(iso: Any) -> str:
    """An ISO date or time as "8 December 2026" ("" when there is none or it cannot be read)."""
    if not isinstance(iso, str) or not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return ""
    return f"{moment.day} {moment:%B %Y}"
