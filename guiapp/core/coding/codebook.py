"""The codebook: the categories a researcher codes texts into, each with a definition and example
texts, shown beside the text being coded and kept in the project.

Read back from an untrusted file leniently (a missing definition is empty, a single example may be
one text instead of a list, unknown fields are ignored) but safely: a category without a name, or a
name given twice, is refused with a message that says which.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from guiapp.core.coding.coding_record import UnreadableCodings, check_version
from guiapp.core.errors import UserError
from guiapp.core.tables.cell_values import category_label

FORMAT = "textlab-codebook"
VERSION = 1
_WHAT = "codebook"


@dataclass
class CodebookCategory:
    """One category: its name (the label written into the category column), what it means, and
    texts that show it."""

    name: str
    definition: str = ""
    examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "definition": self.definition, "examples": list(self.examples)}


@dataclass
class Codebook:
    """The categories in the order the researcher keeps them (keys 1–9 code the first nine)."""

    categories: list[CodebookCategory] = field(default_factory=list)

    def names(self) -> list[str]:
        return [category.name for category in self.categories]

    def category(self, name: str) -> CodebookCategory | None:
        return next((category for category in self.categories if category.name == name), None)

    def __len__(self) -> int:
        return len(self.categories)

    def with_categories(self, names: Iterable[str]) -> Codebook:
        """A copy that also holds each of ``names`` it lacked (e.g. the categories already in the
        category column), added at the end with an empty definition."""
        known = set(self.names())
        added = [CodebookCategory(name) for name in dict.fromkeys(names) if name not in known]
        return Codebook([*(CodebookCategory(c.name, c.definition, list(c.examples)) for c in self.categories),
                         *added])

    def check(self) -> None:
        """A :class:`UserError` when a category has no name or two share one."""
        seen: set[str] = set()
        for position, category in enumerate(self.categories, start=1):
            if not category.name.strip():
                raise UserError(f"Category {position} of the codebook has no name.",
                                "Give every category a name, or remove the empty one.")
            if category.name in seen:
                raise UserError(f"The codebook names the category “{category.name}” twice.",
                                "Give each category its own name, or merge the two.")
            seen.add(category.name)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "categories": [c.to_dict() for c in self.categories]}

    @classmethod
    def from_dict(cls, data: object) -> Codebook:
        """The codebook in ``data`` (read from an untrusted file); :class:`UnreadableCodings` says
        what is wrong with it."""
        if not isinstance(data, dict):
            raise UnreadableCodings("it is not a list of categories", _WHAT)
        check_version(data, FORMAT, VERSION, _WHAT)
        entries = data.get("categories", [])
        if not isinstance(entries, list):
            raise UnreadableCodings("it is not a list of categories", _WHAT)
        codebook = cls([_category(entry, number) for number, entry in enumerate(entries, start=1)])
        try:
            codebook.check()
        except UserError as error:
            raise UnreadableCodings(error.message[0].lower() + error.message[1:].rstrip("."), _WHAT) from None
        return codebook


def _category(entry: object, number: int) -> CodebookCategory:
    if not isinstance(entry, dict):
        raise UnreadableCodings(f"category {number} is not a category", _WHAT)
    name, definition = entry.get("name"), entry.get("definition", "")
    if isinstance(name, int | float) and not isinstance(name, bool):
        name = category_label(name)
    if not isinstance(name, str):
        raise UnreadableCodings(f"category {number} has no name", _WHAT)
    if definition is None:
        definition = ""
    if not isinstance(definition, str):
        raise UnreadableCodings(f"the definition of “{name[:60]}” is not a text", _WHAT)
    examples = entry.get("examples", [])
    if examples is None:
        examples = []
    if isinstance(examples, str):
        examples = [examples]
    if not isinstance(examples, list) or not all(isinstance(example, str) for example in examples):
        raise UnreadableCodings(f"the examples of “{name[:60]}” are not texts", _WHAT)
    return CodebookCategory(name, definition, list(examples))
