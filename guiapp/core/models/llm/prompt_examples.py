"""The coded examples shown to a language model with every text ("few-shot"), drawn only from the
training texts of the fold being scored, k per category, with a seed.

:func:`draw_examples` draws them; :func:`check_examples_apart` makes sure that none of them is
among the texts scored (by row and by identical text) and raises if one is, so that a model is never
scored on a text it was shown with its answer; :func:`examples_note` says so in a sentence for the
appendix.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Collection, Sequence

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_prompt import FewShotExample

MAX_PER_CATEGORY = 100


class ExampleAmongScoredTexts(UserError):
    """A few-shot example is one of the texts the model is scored on."""


def same_text_key(text: str) -> str:
    """Two texts are the same text when they differ only in spaces and line breaks."""
    return " ".join(text.split())


def draw_examples(train_texts: Sequence[str], train_labels: Sequence[str | Collection[str] | None],
                  categories: Sequence[str], k: int, seed: int, *,
                  train_positions: Sequence[int] | None = None,
                  scored_texts: Sequence[str] = ()) -> list[FewShotExample]:
    """Up to ``k`` examples per category, drawn from ``train_texts`` only (the fold's training
    texts) with ``seed``: the same seed draws the same examples.

    A label is one category name, or a collection of names where a text takes several categories
    (an example then counts for each of its categories); an uncoded text (None or no name) is never
    drawn. A category with fewer than ``k`` coded texts gives all it has, never more; no text is
    shown twice, and a training text identical to one of ``scored_texts`` is left out. The
    examples are shuffled, so that they are not grouped by category. ``train_positions`` are the
    training texts' rows in the study (their order in ``train_texts`` where not given)."""
    k = _check_k(k)
    seed = _whole(seed)
    if seed is None:
        raise UserError("The seed that draws the examples must be a whole number.")
    if len(train_texts) != len(train_labels):
        raise UserError(f"There are {len(train_texts):,} training texts but {len(train_labels):,} codings.")
    positions = list(range(len(train_texts))) if train_positions is None else [int(p) for p in train_positions]
    if len(positions) != len(train_texts):
        raise UserError(f"There are {len(train_texts):,} training texts but {len(positions):,} rows for them.")
    names = list(categories)
    if k == 0:
        return []
    scored = {same_text_key(text) for text in scored_texts if isinstance(text, str)}
    label_sets = [_label_set(label, names) for label in train_labels]
    rng = random.Random(seed)
    chosen: list[int] = []
    taken: set[int] = set()
    seen_texts: set[str] = set()
    for name in names:
        have = sum(1 for index in chosen if name in label_sets[index])
        candidates = [index for index, text in enumerate(train_texts)
                      if name in label_sets[index] and isinstance(text, str) and text.strip()
                      and same_text_key(text) not in scored and index not in taken]
        rng.shuffle(candidates)
        for index in candidates:
            if have >= k:
                break
            key = same_text_key(train_texts[index])
            if key in seen_texts:
                continue
            seen_texts.add(key)
            chosen.append(index)
            taken.add(index)
            have += 1
    rng.shuffle(chosen)
    return [FewShotExample(train_texts[index].strip(), tuple(n for n in names if n in label_sets[index]),
                           positions[index]) for index in chosen]


def check_examples_apart(examples: Sequence[FewShotExample], scored_texts: Sequence[str],
                         scored_positions: Sequence[int] | None = None) -> None:
    """Raises :class:`ExampleAmongScoredTexts` when an example is one of the texts scored: the same
    row of the study, or the same text (spaces aside)."""
    rows = set() if scored_positions is None else {int(row) for row in scored_positions}
    texts = {same_text_key(text) for text in scored_texts if isinstance(text, str)}
    for example in examples:
        if example.position is not None and example.position in rows:
            raise ExampleAmongScoredTexts(
                f"An example shown to the language model (row {example.position + 1}) is one of the texts "
                "it is scored on, so its score would be too good.",
                "Draw the examples again from the training texts of the fold; please report this to "
                "TextLab's makers if it happens again.")
        if same_text_key(example.text) in texts:
            raise ExampleAmongScoredTexts(
                f"An example shown to the language model (“{example.text[:80]}”) is also among the texts it "
                "is scored on, so its score would be too good.",
                "Draw the examples again, leaving out training texts that also appear among the texts scored.")


def examples_note(k: int, seed: int) -> str:
    """One sentence for the appendix on how the examples were chosen."""
    if k == 0:
        return "The language model was shown no coded examples (zero-shot): only the instruction and the codebook."
    return (f"The language model was shown up to {k} coded example{'s' if k != 1 else ''} per category, drawn "
            f"with seed {seed} from the training texts of the fold being scored; no example was among the "
            "texts it was scored on (checked by row and by identical text).")


def _check_k(k: int) -> int:
    whole = _whole(k)
    if whole is None or not 0 <= whole <= MAX_PER_CATEGORY:
        raise UserError(f"The number of examples per category must be a whole number from 0 to {MAX_PER_CATEGORY}; "
                        f"it is {k!r}.", "Use 0 for none (zero-shot), or a few, such as 2 or 5.")
    return whole


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _label_set(label: str | Collection[str] | None, names: list[str]) -> frozenset[str]:
    if label is None:
        return frozenset()
    if isinstance(label, str):
        return frozenset({label}) if label in names else frozenset()
    try:
        return frozenset(name for name in label if name in names)
    except TypeError:  # a number or NaN: not coded
        return frozenset()
