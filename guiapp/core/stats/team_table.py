"""The codings of a team of coders as one table: which coder put which text (unit) in which
category, with gaps where a coder did not code a text, and optionally a label on each coding
(e.g. the codebook version it was made under). :mod:`team_agreement` measures the team's
agreement on such a table.

A table comes from any of the shapes a team's codings are usually kept in:

- a pandas DataFrame with one row per text (its index names the texts) and one column per coder,
  empty (None/NaN) where the coder did not code the text;
- a mapping text → {coder: category};
- a list with one {coder: category} dict per text (the texts are then numbered 0, 1, 2, …);
- records (text, coder, category) or (text, coder, category, label), one per coding
  (:func:`team_table_from_records`), as a coding log keeps them.

Labels come in the same shape as the codings (a DataFrame of the same rows and columns, a
mapping text → {coder: label}, a list of dicts) or as a mapping (text, coder) → label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.stats.agreement import _is_missing


@dataclass(frozen=True)
class TeamTable:
    """Texts × coders: ``codes[i][j]`` is coder j's category for text i, None where not coded;
    ``labels[i][j]`` the label of that coding (None without one), or ``labels`` None throughout."""

    units: tuple
    coders: tuple
    codes: tuple
    labels: tuple | None = None

    def coded(self, unit_index: int) -> dict:
        """Coder → category for the coders who coded the text at ``unit_index``."""
        return {c: v for c, v in zip(self.coders, self.codes[unit_index], strict=True) if v is not None}

    def reliability_data(self) -> list[list]:
        """Coders × texts (Krippendorff's layout), None where a coder did not code a text."""
        return [[row[j] for row in self.codes] for j in range(len(self.coders))]


def plain(value: Any) -> Any:
    """A numpy or pandas scalar as the Python value it stands for; a missing value as None."""
    if _is_missing(value):
        return None
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (str, bytes)):
        try:
            return item()
        except (TypeError, ValueError):
            return value
    return value


def _rows(data: Any, what: str) -> tuple[list, list[Mapping]]:
    """(text names, one coder → value mapping per text) from a DataFrame, a mapping or a list."""
    if hasattr(data, "to_dict") and hasattr(data, "columns") and hasattr(data, "index"):
        names = [plain(u) for u in data.index]
        if len(set(names)) != len(names):
            raise UserError(f"{what} name some texts twice.", "Give every text its own row.")
        columns = [plain(c) for c in data.columns]
        return names, [dict(zip(columns, row, strict=True)) for row in data.itertuples(index=False, name=None)]
    if isinstance(data, Mapping):
        return [plain(u) for u in data], [_mapping(v, what) for v in data.values()]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return list(range(len(data))), [_mapping(v, what) for v in data]
    raise UserError(
        f"{what} are not in a form TextLab can read.",
        "Give a table with one row per text and one column per coder, or one {coder: category} entry per text.",
    )


def _mapping(value: Any, what: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise UserError(f"{what} give a text something other than a {{coder: category}} entry.",
                        "Give each text the coders who coded it and their categories.")
    return value


def team_table(codings: Any, labels: Any = None, coders: Sequence | None = None) -> TeamTable:
    """The team's codings (any shape the module's docstring lists) as a :class:`TeamTable`.
    ``coders`` fixes the coders' order (and may name coders who coded nothing yet); by default the
    coders in the order they first appear."""
    units, rows = _rows(codings, "The codings")
    if len(set(units)) != len(units):
        raise UserError("The codings name some texts twice.", "Give every text one entry.")
    order = list(coders) if coders is not None else []
    for row in rows:
        order.extend(plain(c) for c in row if plain(c) not in order)
    if coders is not None and len(order) > len(coders):
        extra = ", ".join(str(c) for c in order[len(coders):][:5])
        raise UserError(f"Some codings come from coders not in the team: {extra}.",
                        "Add these coders to the team or leave their codings out.")
    codes = tuple(tuple(_value(row, coder) for coder in order) for row in rows)
    table = TeamTable(units=tuple(units), coders=tuple(order), codes=codes)
    if labels is None:
        return table
    return TeamTable(table.units, table.coders, table.codes, _labels_for(table, labels))


def _value(row: Mapping, coder: Any) -> Any:
    for key, value in row.items():
        if plain(key) == coder:
            return plain(value)
    return None


def _labels_for(table: TeamTable, labels: Any) -> tuple:
    """The labels laid out like ``table.codes``; every coding needs one."""
    if isinstance(labels, Mapping) and labels and not any(isinstance(v, Mapping) for v in labels.values()):
        lookup = {(plain(u), plain(c)): plain(v) for (u, c), v in labels.items()}
    else:
        units, rows = _rows(labels, "The labels")
        lookup = {(u, plain(c)): plain(v) for u, row in zip(units, rows, strict=True) for c, v in row.items()}
    laid_out, unlabelled = [], 0
    for unit, row in zip(table.units, table.codes, strict=True):
        line = []
        for coder, code in zip(table.coders, row, strict=True):
            label = lookup.get((unit, coder)) if code is not None else None
            unlabelled += code is not None and label is None
            line.append(label)
        laid_out.append(tuple(line))
    if unlabelled:
        raise UserError(f"{unlabelled:,} codings have no label.",
                        "Give every coding its label (e.g. the codebook version it was made under).")
    return tuple(laid_out)


def team_table_from_records(records: Iterable[Sequence], coders: Sequence | None = None) -> TeamTable:
    """A :class:`TeamTable` from one record per coding: (text, coder, category) or (text, coder,
    category, label). Texts and coders keep the order they first appear in (``coders`` fixes the
    coders' order). A coder who coded the same text twice is refused: pass their latest coding."""
    per_unit: dict = {}
    labels: dict = {}
    with_labels = None
    for number, record in enumerate(records, start=1):
        if len(record) not in (3, 4):
            raise UserError(f"Coding {number:,} has {len(record)} parts.",
                            "Give each coding as (text, coder, category) or (text, coder, category, label).")
        if with_labels is not None and with_labels != (len(record) == 4):
            raise UserError("Some codings have a label and others do not.", "Give every coding a label, or none.")
        with_labels = len(record) == 4
        unit, coder, category = plain(record[0]), plain(record[1]), plain(record[2])
        if category is None:
            continue
        row = per_unit.setdefault(unit, {})
        if coder in row:
            raise UserError(f"Coder {coder} coded text {unit} more than once.",
                            "Keep only each coder's latest coding of a text.")
        row[coder] = category
        if with_labels:
            labels[(unit, coder)] = plain(record[3])
    return team_table(per_unit, labels if with_labels and labels else None, coders)
