"""The findings a project keeps: the shares, differences and notes last shown on the Findings step,
with what they measured (the corpus, the model, the column of groups), as plain JSON.

Reopening a project shows them at once; the Findings step then measures again from the table and
the predictions as they are now. Fields a later TextLab adds to the findings are read when present;
a field this TextLab needs and cannot read makes the findings unreadable (:class:`UnreadableFindings`),
which costs the findings only, never the project.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from guiapp.core.findings.records import Difference, Findings, Share

KEPT_VERSION = 1
CHOICE_KEYS = ("source", "model", "group", "stratified", "elsewhere")


class UnreadableFindings(ValueError):
    """Kept findings that cannot be read back."""


@dataclass(frozen=True)
class KeptFindings:
    """``findings`` as they were shown, and what they measured (``choice``: the Findings step's
    source, model, group column and ticks)."""

    findings: Findings
    choice: dict[str, str | bool] = field(default_factory=dict)

    def matches(self, choice: dict) -> bool:
        """Whether these findings measured what ``choice`` asks for (each key either names)."""
        return all(self.choice.get(key) == choice.get(key) for key in ("source", "model", "group")
                   if key in self.choice or key in choice)

    def to_dict(self) -> dict[str, Any]:
        findings = self.findings
        return {
            "version": KEPT_VERSION,
            "choice": plain_choice(self.choice),
            "findings": {**_record(findings, skip={"shares", "differences"}),
                         "shares": [_record(share) for share in findings.shares],
                         "differences": [_record(difference) for difference in findings.differences]},
        }

    @classmethod
    def from_dict(cls, data: Any) -> KeptFindings:
        if not isinstance(data, dict) or not isinstance(data.get("findings"), dict):
            raise UnreadableFindings("the kept findings cannot be read")
        version = data.get("version")
        if not isinstance(version, int) or not 1 <= version <= KEPT_VERSION:
            raise UnreadableFindings(f"the kept findings are of an unknown kind ({version!r})")
        raw = data["findings"]
        shares, differences = raw.get("shares"), raw.get("differences")
        if not isinstance(shares, list) or not isinstance(differences, list):
            raise UnreadableFindings("the kept shares cannot be read")
        findings = _build(Findings, raw, shares=tuple(_build(Share, s) for s in shares),
                          differences=tuple(_build(Difference, d) for d in differences))
        return cls(findings, plain_choice(data.get("choice")))


def plain_choice(choice: Any) -> dict[str, str | bool]:
    """The Findings step's choice: names and ticks only."""
    if not isinstance(choice, dict):
        return {}
    return {str(key): value for key, value in choice.items() if isinstance(value, str | bool)}


def _record(item: Any, skip: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    return {f.name: _plain(getattr(item, f.name)) for f in fields(item) if f.name not in skip}


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # JSON has no NaN: written as null
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # a NumPy number
        return _plain(value.item())
    return value


def _build(kind: type, raw: Any, **given: Any) -> Any:
    """``kind`` from ``raw``'s fields (checked against the field's type), ``given`` fields as they are."""
    if not isinstance(raw, dict):
        raise UnreadableFindings(f"a kept {kind.__name__.lower()} cannot be read")
    values: dict[str, Any] = dict(given)
    for f in fields(kind):
        if f.name in given:
            continue
        if f.name not in raw:
            if f.default is MISSING and f.default_factory is MISSING:
                raise UnreadableFindings(f"a kept {kind.__name__.lower()} has no {f.name}")
            continue
        values[f.name] = _checked(raw[f.name], str(f.type), f.name)
    try:
        return kind(**values)
    except TypeError as error:
        raise UnreadableFindings(str(error)) from None


def _checked(value: Any, annotation: str, name: str) -> Any:
    text_or_none = "None" in annotation
    if annotation.startswith("float"):
        if value is None:
            return math.nan if not text_or_none else None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise UnreadableFindings(f"{name} is not a number")
        return float(value)
    if annotation.startswith("int"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise UnreadableFindings(f"{name} is not a whole number")
        return value
    if annotation.startswith("tuple"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UnreadableFindings(f"{name} is not a list of names")
        return tuple(value)
    if annotation.startswith("str"):
        if value is None and text_or_none:
            return None
        if not isinstance(value, str):
            raise UnreadableFindings(f"{name} is not text")
        return value
    return value
