"""The Coding step where a text can have several categories (the Data step's "A text can have
several categories"): what the page asks differently of such a study.

The text view shows check boxes and Done (``coding_text_view.py``); this module gives the page
the categories to tick (the codebook's, then those the table uses, then those coded here, as the
Data step's fixes leave them), the coded texts per category (the file's sets with those coded here
applied; texts with none of them counted apart), how an undone set reads, and the reasons the
parts built for one category per text are off: TextLab draws the texts to code at random — every
draw recorded with its chance, as always — since the quick model behind the suggestions, the stop
signal and "Codings to check" learn one category per text. Codings of several categories go into
the same record (``Coding.labels``) and reach the study's table through ``with_codings``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from guiapp.core.errors import UserError
from guiapp.core.study.label_sets import NO_CATEGORY

if TYPE_CHECKING:
    from guiapp.core.coding.codings import CodingLog
    from guiapp.ui.session.study_session import StudySession

DRAWN_AT_RANDOM = ("Texts are drawn at random where a text can have several categories: the quick model that "
                   "suggests texts learns one category per text. Each draw is recorded with its chance.")
NO_CHECK = ("“Codings to check” is off where a text can have several categories: the quick model that doubts "
            "codings learns one category per text.")
NO_STOP = ("The stop signal compares the quick model's answers from one round to the next, and that model learns "
           "one category per text. Where a text can have several, code toward the goal above.")
NO_QUICK_MODEL = ("No quick model learns while you code where a text can have several categories: the texts are "
                  "drawn at random.")
QUICK_MODEL_TIP = "The quick model that learns while you code and suggests the next text."
INTRO = ("Code the texts nobody has coded yet, one after another: tick every category that fits with its number "
         "key, then press Enter (nothing ticked records “none of these categories”; S skips, Z undoes, F flags). "
         "Texts are drawn at random; your spreadsheet is never changed.")


def set_words(labels: tuple[str, ...] | list[str] | None) -> str:
    """A coded set in words: "economy, health", or "none of these categories"."""
    if labels is None:
        return ""
    return ", ".join(labels) if labels else "none of these categories"


def undone_set_words(row: str, labels: tuple[str, ...]) -> str:
    """What Undo says for a set: "Undone: row 12 had been coded as “economy, health”."."""
    return f"Undone: row {row} had been coded as “{set_words(labels)}”."


class LabelSetCoding:
    """Follows the session: whether its study takes several categories per text, and what the Coding
    step shows for one."""

    def __init__(self, session: StudySession) -> None:
        self.session = session
        self._file_key: tuple | None = None
        self._file_categories: list[str] = []
        self._shown_several = False  # the bar and the progress say that the quick model is off

    def show_mode(self, bar, progress) -> None:  # noqa: ANN001 — the page's CodingBar and CodingProgress
        """The learning model's list off and the stop signal's place saying why, where a text can have
        several categories; as they were for one category per text."""
        several = self.on
        bar.kind_combo.setEnabled(not several)
        bar.kind_combo.setToolTip(NO_QUICK_MODEL if several else QUICK_MODEL_TIP)
        if several:
            progress.set_rounds(None)
            progress.stop_label.set_plain_text(NO_STOP)
        elif self._shown_several:
            progress.set_rounds(None)
        self._shown_several = several

    @property
    def on(self) -> bool:
        mapping = self.session.mapping
        return mapping is not None and bool(mapping.multi_label)

    def _fixes(self):  # noqa: ANN202 — the Data step's CategoryFixes, or None
        data = self.session.data_spec
        return data.category_fixes if data is not None else None

    def file_categories(self) -> list[str]:
        """The categories the table's category columns use (after the Data step's fixes), read once
        per table and column roles."""
        from guiapp.core.study.label_sets import read_label_sets

        session = self.session
        frame, mapping, fixes = session.frame, session.mapping, self._fixes()
        key = (id(frame), repr(mapping), repr(fixes))
        if key != self._file_key:
            self._file_key, self._file_categories = key, []
            has_columns = mapping.category_columns or (mapping.category_column is not None
                                                       and mapping.category_column in frame.columns)
            if frame is not None and has_columns and all(c in frame.columns for c in mapping.category_columns):
                self._file_categories = list(read_label_sets(frame, mapping, fixes).categories)
        return list(self._file_categories)

    def categories(self, codebook_names: list[str], log: CodingLog) -> list[str]:
        """The categories to tick: the codebook's, then the table's, then those coded here — a
        category the Data step leaves out never."""
        from guiapp.core.coding.current_table import left_out_names
        from guiapp.core.coding.coding_record import SOURCES

        left_out = left_out_names(self._fixes())
        names = [name for name in codebook_names if name not in left_out]
        coded = [label for source in SOURCES for labels in log.label_sets_by_row(source).values() for label in labels]
        for name in [*self.file_categories(), *coded]:
            if name not in names and name not in left_out:
                names.append(name)
        return names

    def counts(self, categories: list[str], log: CodingLog) -> dict[str, int]:
        """Coded texts per category (every category listed, the ones without codings too), the
        file's sets with those coded here applied; texts with none of them under their own name."""
        from guiapp.core.coding.codings import label_set_counts

        session = self.session
        counts = {category: 0 for category in categories}
        if session.frame is not None:
            counts.update(label_set_counts(session.frame, session.mapping, log))
        if counts.get(NO_CATEGORY) == 0:
            del counts[NO_CATEGORY]
        return counts

    def check_source(self, second_file: bool) -> None:
        """:class:`UserError` for a second file's texts, which are coded with one category each."""
        if second_file:
            raise UserError("The texts of a second file are coded with one category each.",
                            "Choose your table's texts under “Texts”: where a text can have several categories "
                            "TextLab codes the table's uncoded texts.")
