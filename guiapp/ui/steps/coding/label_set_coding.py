"""The Coding step where a text can have several categories (the Data step's "A text can have
several categories"): what the page asks differently of such a study.

The text view shows check boxes and Done (``coding_text_view.py``); this module gives the page
the categories to tick (the codebook's, then those the table uses, then those coded here, as the
Data step's fixes leave them), the coded texts per category (the file's sets with those coded here
applied; texts with none of them counted apart), how an undone set reads, and the quick model
of several categories (``core/coding/label_set_model.py``: one yes/no question per category),
trained in the background every ten codings, which then suggests the texts whose categories it is
least sure about — at random before, every draw recorded with its chance. The stop signal and
"Codings to check" learn one category per text: they are off and say why. Codings of several
categories go into the same record (``Coding.labels``) and reach the study's table through
``with_codings``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from guiapp.core.errors import UserError
from guiapp.core.study.label_sets import NO_CATEGORY

if TYPE_CHECKING:
    from guiapp.core.coding.codings import CodingLog
    from guiapp.ui.session.study_session import StudySession

DRAWN_AT_RANDOM = ("Chosen at random: the quick model suggests texts once some coded texts have a category and "
                   "others do not. Each draw is recorded with its chance.")
SUGGESTED = ("Where a text can have several categories, TextLab asks one yes/no question per category and "
             "suggests the texts whose categories its quick model is least sure about (at random until it has "
             "learnt). Every draw is recorded with its chance.")
NO_CHECK = ("“Codings to check” is off where a text can have several categories: the quick model that doubts "
            "codings learns one category per text.")
NO_STOP = ("The stop signal is measured for one category per text. Where a text can have several, code toward "
           "the goal above.")
INTRO = ("Code the texts nobody has coded yet, one after another: tick every category that fits with its number "
         "key, then press Enter (nothing ticked records “none of these categories”; S skips, Z undoes, F flags). "
         "TextLab suggests which text to code next and learns from every coding; your spreadsheet is never changed.")


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
        self.found = None  # the quick model's last LabelSetRound, for the loop it was trained on
        self._found_loop = None
        self._sets_key: tuple | None = None
        self._file_sets: dict = {}
        self._failed_with: tuple | None = None

    def show_mode(self, bar, progress) -> None:  # noqa: ANN001 — the page's CodingBar and CodingProgress
        """The stop signal's place saying why it is off where a text can have several categories; as
        it was for one category per text."""
        several = self.on
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
        from collections import Counter

        counts = {category: 0 for category in categories}
        found = Counter(label for labels in self.training_sets(log).values() for label in (labels or (NO_CATEGORY,)))
        counts.update(dict(found.most_common()))  # the file's sets read once per table (a large one takes a moment)
        if counts.get(NO_CATEGORY) == 0:
            del counts[NO_CATEGORY]
        return counts

    def check_source(self, second_file: bool) -> None:
        """:class:`UserError` for a second file's texts, which are coded with one category each."""
        if second_file:
            raise UserError("The texts of a second file are coded with one category each.",
                            "Choose your table's texts under “Texts”: where a text can have several categories "
                            "TextLab codes the table's uncoded texts.")

    # ----- the quick model of several categories ---------------------------------------------------
    def training_sets(self, log: CodingLog) -> dict:
        """Row → the set of each coded text of the table: the file's, with those coded here applied."""
        from guiapp.core.coding.codings import coded_sets, file_label_sets

        frame, mapping = self.session.frame, self.session.mapping
        key = (id(frame), repr(mapping))
        if key != self._sets_key:
            self._sets_key = key
            self._file_sets = file_label_sets(frame, mapping) if frame is not None else {}
        merged = dict(self._file_sets)
        merged.update(coded_sets(log))
        return merged

    def forget(self) -> None:
        """A new loop (another table, coder or draw): the model is trained anew."""
        self.found, self._found_loop = None, None

    def is_due(self, loop, log: CodingLog, categories: list[str]) -> bool:  # noqa: ANN001 — a CodingLoop
        from guiapp.core.coding.label_set_model import due

        found = self.found if self._found_loop is loop else None
        return due(found, list(self.training_sets(log).values()), categories, len(log.entries_of()))

    def keep(self, loop, found) -> None:  # noqa: ANN001 — the CodingLoop trained for, a LabelSetRound or None
        if found is not None:
            self.found, self._found_loop = found, loop

    def retrain_if_due(self, page) -> None:  # noqa: ANN001 — the CodingPage
        """Train the yes/no models in the background when due, in the page's retraining slot (one at a
        time; the page's busy state and cancelling cover it). A failure is said once per coding."""
        from PySide6.QtCore import Qt

        from guiapp.ui.steps.coding.coding_files import snapshot
        from guiapp.workers import Worker

        loop, slot = page.loop, page._retrain_slot
        if loop is None or slot.current is not None:
            return
        log = page._codings()
        categories = page._categories()
        if self._failed_with == (id(loop), len(log)) or not self.is_due(loop, log, categories):
            return
        from guiapp.core.coding.quick_model import EMBEDDINGS

        if loop.kind == EMBEDDINGS and not page.isVisible():  # embedding a corpus takes a while: only once
            page._retrain_when_shown = True                    # the researcher codes
            return
        worker = Worker(train_job, loop, self.training_sets(snapshot(log)), categories, len(log.entries_of()),
                        name="retrain")
        worker.signals.finished.connect(lambda result: self.keep(*result) if result[0] is page.loop else None)
        worker.signals.failed.connect(lambda error, key=(id(loop), len(log)): self._failed(page, key, error))
        worker.signals.done.connect(page._retrain_if_due, Qt.ConnectionType.QueuedConnection)
        slot.start(worker)

    def _failed(self, page, key: tuple, error: BaseException) -> None:  # noqa: ANN001
        self._failed_with = key
        page.errorRaised.emit(error, "Training the quick model")

    def next_text(self, loop, log: CodingLog, file_categories):  # noqa: ANN001, ANN201 — a Suggestion or None
        """The next text: where the model is least sure about a category once it has learnt, else at
        random (the loop's draw); drawn with the chance recorded."""
        from guiapp.core.coding.coding_loop import Suggestion
        from guiapp.core.coding.label_set_model import set_distribution, set_reason
        from guiapp.core.coding.strategies import Choice, draw

        found = self.found if self._found_loop is loop else None
        if found is None:
            return loop.next_text(log, file_categories)
        open_texts = loop.pool.open_mask(log, file_categories)
        if not open_texts.any():
            return None
        distribution = set_distribution(found, open_texts, loop.settings)
        position = draw(distribution, loop.rng)
        choice = Choice(position=position, probability=float(distribution[position]), strategy="uncertainty")
        return Suggestion(loop.pool.rows[position], choice,
                          set_reason(found.probabilities[position], found.categories), loop.source,
                          loop.pool.texts[position])


def train_job(loop, sets: dict, categories: list[str], log_codings: int, on_event=None):  # noqa: ANN001, ANN201
    """In a background worker: the loop's features (once per table, kept in its cache) and one yes/no
    model per category; (loop, LabelSetRound or None)."""
    from guiapp.core.coding.coding_pool import TABLE
    from guiapp.core.coding.label_set_model import coded_positions, train_label_sets

    features = loop.features(on_event) if on_event is not None else loop.features()
    place = {row: loop.pool.position(row, TABLE) for row in sets}
    positions, coded = coded_positions(place, sets)
    return loop, train_label_sets(features, loop.pool.n_pool, positions, coded, categories, kind=loop.kind,
                                  seed=loop.seed, log_codings=log_codings)
