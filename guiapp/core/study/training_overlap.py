"""Test texts that are also training texts: a model tested on texts it learnt from scores far better
than it will on new texts, so such a test says little.

Texts are compared after the differences a copy often brings are removed: capitals, and spaces,
tabs and line breaks (at the ends, and how many between words). When most test texts (more than
half) are also training texts — a test file that is the training table itself, or a copy of it —
the study is refused in words; when some are, the run says how many.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from pathlib import Path

from guiapp.core.errors import DataError

MOST = 0.5  # more than this share of the test texts in the training texts: refused


def normalised(text: str) -> str:
    """A text as compared here: Unicode NFKC, case-folded, runs of spaces of any kind as one space."""
    return " ".join(unicodedata.normalize("NFKC", str(text)).casefold().split())


def shared_count(train_texts: Iterable[str], test_texts: Iterable[str]) -> tuple[int, int]:
    """``(test texts that are also training texts, test texts)``, compared as :func:`normalised`."""
    training = {normalised(text) for text in train_texts}
    tests = [normalised(text) for text in test_texts]
    return sum(text in training for text in tests), len(tests)


def check_test_overlap(train_texts: Iterable[str], test_texts: Iterable[str], how: str,
                       same_table: bool = False) -> list[str]:
    """Notes for the run (a count) when some test texts are also training texts; raises
    :class:`DataError` when most are. ``how``: "test file" or "split column"; ``same_table``: the
    test file is the training table's own file."""
    shared, total = shared_count(train_texts, test_texts)
    if shared == 0 or total == 0:
        return []
    count = "all" if shared == total else f"{shared:,}"
    if same_table or shared > MOST * total:
        if how == "test file":
            what = ("The test file is the training table itself" if same_table
                    else "The test file repeats the training texts")
            hint = ("Name a test file with other coded texts in [data] test_source, or leave test_source out: "
                    "TextLab then sets a share of the coded texts aside for the test.")
        else:
            what = "The split column marks texts as test that are also among the training rows"
            hint = ("Mark as test only texts that are not also training texts, or choose no split column and let "
                    "TextLab set texts aside at random.")
        raise DataError(
            f"{what}: {count} of the {total:,} test texts are also training texts (the same words, apart from "
            "capitals and spaces). Tested on texts they learnt from, the models would score far better than "
            "they will on new texts.",
            hint,
        )
    where = "the test file" if how == "test file" else "the rows marked test"
    return [f"{shared:,} of the {total:,} test texts in {where} are also training texts (the same words, apart "
            "from capitals and spaces); the test scores are somewhat too high for them."]


def same_file(first: Path | None, second: Path | None) -> bool:
    """Whether two paths name the same file (also through links)."""
    if first is None or second is None:
        return False
    try:
        return first.resolve() == second.resolve() or first.samefile(second)
    except OSError:
        return False
