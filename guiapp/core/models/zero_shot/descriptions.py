"""What a zero-shot model knows of the categories: their names, the researcher's one-sentence
definitions, the codebook's example texts, and the sentence that phrases a category
("This text is about {}.").

Every value is checked here, once, with a message in plain words: the same checks serve a new
model and one read back from its file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from guiapp.core.errors import UserError

DEFAULT_TEMPLATE = "This text is about {}."
MAX_CATEGORIES = 10_000
MAX_TEXT = 100_000  # characters in one definition, example or template: far more than a sentence
MAX_EXAMPLES = 1_000  # example texts per category


def check_categories(categories: Sequence[str], multi_label: bool) -> list[str]:
    """The category names as a list; a :class:`UserError` when one is empty, given twice, or there
    are too few to choose between (one category per text needs two)."""
    if isinstance(categories, str) or not isinstance(categories, Sequence):
        raise UserError("The categories must be a list of names.")
    names = list(categories)
    if not all(isinstance(name, str) and name.strip() for name in names):
        raise UserError("Every category needs a name (a category's name is empty or not a text).",
                        "Name every category, or remove the empty one.")
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise UserError(f"The category “{twice}” is named twice.", "Give each category its own name.")
    smallest = 1 if multi_label else 2
    if not smallest <= len(names) <= MAX_CATEGORIES:
        raise UserError(f"A zero-shot model needs at least {smallest} categor{'y' if smallest == 1 else 'ies'} "
                        f"(and at most {MAX_CATEGORIES:,}); it was given {len(names)}.",
                        "Check the categories of the study.")
    return names


def check_template(template: str) -> str:
    """The template, when it holds ``{}`` exactly once (where the category goes) and no other curly
    brackets; else a :class:`UserError`."""
    if not isinstance(template, str) or not template.strip():
        raise UserError("The sentence that phrases a category is empty.",
                        f"Use a sentence such as “{DEFAULT_TEMPLATE}”, where {{}} stands for the category.")
    if len(template) > MAX_TEXT:
        raise UserError(f"The sentence that phrases a category is {len(template):,} characters long.",
                        "Use one short sentence.")
    rest = template.replace("{}", "", 1)
    if "{}" not in template or "{" in rest or "}" in rest:
        raise UserError(f"The sentence “{template[:200]}” must hold {{}} exactly once, where the category goes, "
                        "and no other curly brackets.", f"For example: “{DEFAULT_TEMPLATE}”.")
    return template


def phrase(template: str, text: str) -> str:
    """``template`` with the category (its name or its description) in place of ``{}``; a description
    written as a sentence loses its full stop where the template goes on with its own ("…insurance.")."""
    text = text.strip()
    after = template.split("{}", 1)[1]
    if after.lstrip().startswith((".", "!", "?")) and text.endswith((".", "!", "?")):
        text = text.rstrip(".!? ")
    return template.replace("{}", text, 1)


def check_descriptions(descriptions: Mapping[str, str] | None, categories: list[str]) -> dict[str, str]:
    """Each category's one-sentence definition (stripped; categories without one are left out)."""
    if descriptions is None:
        return {}
    if not isinstance(descriptions, Mapping):
        raise UserError("The descriptions of the categories must pair each category with a sentence.")
    _check_known(descriptions, categories, "describes")
    checked: dict[str, str] = {}
    for name in categories:
        text = descriptions.get(name)
        if text is None:
            continue
        if not isinstance(text, str) or len(text) > MAX_TEXT:
            raise UserError(f"The description of “{name}” is not a short text.",
                            "Describe each category in one sentence.")
        if text.strip() and text.strip() != name:  # a category "described" by its name has no definition
            checked[name] = text.strip()
    return checked


def check_examples(examples: Mapping[str, Sequence[str]] | None, categories: list[str]) -> dict[str, list[str]]:
    """Each category's example texts from the codebook (empty ones dropped; categories without any
    are left out)."""
    if examples is None:
        return {}
    if not isinstance(examples, Mapping):
        raise UserError("The example texts must be listed per category.")
    _check_known(examples, categories, "gives example texts for")
    checked: dict[str, list[str]] = {}
    for name in categories:
        texts = examples.get(name)
        if texts is None:
            continue
        if isinstance(texts, str):
            texts = [texts]
        if (not isinstance(texts, Sequence) or len(texts) > MAX_EXAMPLES
                or not all(isinstance(text, str) and len(text) <= MAX_TEXT for text in texts)):
            raise UserError(f"The example texts of “{name}” are not a list of texts (at most {MAX_EXAMPLES:,}).")
        kept = [text.strip() for text in texts if text.strip()]
        if kept:
            checked[name] = kept
    return checked


def _check_known(mapping: Mapping[str, object], categories: list[str], verb: str) -> None:
    unknown = [key for key in mapping if key not in categories]
    if unknown:
        raise UserError(f"The codebook {verb} “{str(unknown[0])[:100]}”, which is not one of the study's categories.",
                        "Check that the codebook's categories are named as in the category column.")
