"""The parts of the learning-curve panel around its chart: reading the sizes a researcher types,
the table of scores (model × size: mean and min–max over the draws), and the plain reading.

They only show what the engine computed (``core/experiment/curves/learning_curve_results.py`` and
``learning_curve_reading.py``); the one thing worked out here is what the sizes field means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult
from guiapp.core.experiment.curves.nested_subsets import SMALLEST_SIZE
from guiapp.ui import theme
from guiapp.ui.common.glossary import GlossaryLabel

DEFAULT_SIZES_TEXT = "500, 1000, 2000, 5000, 10000"
SIZES_EXAMPLE = "e.g. 500, 1000, 2000"
READING_TERMS = ["macro-F1", "F1", "learning curve", "draw", "setting"]
_GROUPED = re.compile(r"^\d{1,3}(,\d{3})+$")  # 1,000 or 10,000: a number with thousands separators


@dataclass(frozen=True)
class SizesInput:
    """What the sizes field says: the sizes, smallest first, or why it cannot be read."""

    sizes: tuple[int, ...] = ()
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def parse_sizes(text: str) -> SizesInput:
    """Read "500, 1000, 2000" (commas, semicolons or spaces between sizes; "1,000" with a thousands
    separator is one size when its parts could not be sizes on their own, as in "1,000" or "10,000")."""
    sizes: list[int] = []
    for token in re.split(r"[;\s]+|,\s+", text.strip()):
        if not token:
            continue
        for part in _split_token(token.strip(",")):
            if not part.isdigit():
                shown = part or token
                return SizesInput(problem=f"“{shown}” is not a number of texts. Type whole numbers separated by "
                                          f"commas, {SIZES_EXAMPLE}.")
            sizes.append(int(part))
    if not sizes:
        return SizesInput(problem=f"Type the numbers of coded texts the models should learn from, {SIZES_EXAMPLE}.")
    too_small = [size for size in sizes if size < SMALLEST_SIZE]
    if too_small:
        return SizesInput(problem=f"A model cannot learn from {too_small[0]:,} coded text"
                                  f"{'s' if too_small[0] != 1 else ''}; use sizes of at least {SMALLEST_SIZE}, "
                                  f"{SIZES_EXAMPLE}.")
    return SizesInput(tuple(sorted(set(sizes))))


def _split_token(token: str) -> list[str]:
    """"1,000" -> ["1000"]; "500,1000" -> ["500", "1000"]; "50,100,150" -> three sizes."""
    if "," not in token:
        return [token]
    parts = token.split(",")
    if _GROUPED.match(token):
        numbers = [int(part) for part in parts]
        as_sizes = all(n >= SMALLEST_SIZE and not part.startswith("0") for n, part in zip(numbers, parts, strict=True))
        if not (as_sizes and numbers == sorted(numbers)):
            return [token.replace(",", "")]
    return parts


def default_sizes_text(n_train: int, few_shot_categories: int | None = None) -> str:
    """The sizes field's proposal for a study of ``n_train`` training texts: the engine's default
    sizes below all of them ("80, 160, 320" for 639; the curve then ends with all 639). For a study
    that compares SetFit, of ``few_shot_categories`` categories: 8, 16, 32 and 64 coded texts per
    category on average first ("16, 32, 64, 128, 320" for 639 texts of 2 categories)."""
    from guiapp.core.experiment.curves.nested_subsets import default_sizes, few_shot_sizes

    sizes = few_shot_sizes(n_train, few_shot_categories) if few_shot_categories else default_sizes(n_train)
    below = [size for size in sizes if size < n_train]
    return ", ".join(str(size) for size in below) if below else DEFAULT_SIZES_TEXT


def final_sizes(sizes: tuple[int, ...], n_train: int) -> list[int] | None:
    """The sizes the engine will draw (capped, all training texts added), None when it cannot."""
    from guiapp.core.errors import UserError
    from guiapp.core.experiment.curves.nested_subsets import curve_sizes

    try:
        return curve_sizes(sizes, n_train)[0]
    except UserError:
        return None


def sizes_preview(sizes: tuple[int, ...], n_train: int) -> tuple[str, bool]:
    """"Curve at 500, 1,000 and all 3,114 texts." (and what was capped); True when it cannot be drawn."""
    chosen = final_sizes(sizes, n_train)
    if chosen is None:
        return (f"Your study has only {n_train:,} training texts, too few for a learning curve. Code more texts, "
                "or set fewer of them aside for the test."), True
    shown = [size_header(size, n_train) for size in chosen]
    text = "Curve at " + (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]) + " texts."
    left_out = [size for size in sizes if size > n_train]
    if left_out:
        text += (f" {', '.join(f'{size:,}' for size in left_out)} {'is' if len(left_out) == 1 else 'are'} more "
                 f"than your {n_train:,} training texts, so the curve ends with all of them.")
    return text, False


def work_preview(models: int, sizes: int, draws: int, examples: list[int] | None = None) -> str:
    """"2 models × 5 sizes × 5 draws: about 50 trainings, plus choosing the settings."; ``examples``:
    per language model with your codebook, the numbers of examples per category its curve is over
    (it trains nothing: it answers the test texts once per number and draw, and once without examples)."""
    parts = []
    if models or not examples:
        parts.append(f"{models} model{'s' if models != 1 else ''} × {sizes} size{'s' if sizes != 1 else ''} × "
                     f"{draws} draw{'s' if draws != 1 else ''}: about {models * sizes * draws:,} trainings, plus "
                     "choosing the settings.")
    for ks in examples or []:
        shown = [k for k in ks if k > 0]
        answered = len(shown) * draws + (0 in ks)
        listed = ", ".join(str(k) for k in shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else str(shown[0])
        parts.append(f"A language model with your codebook answers the test texts {answered:,} times: with {listed} "
                     f"examples per category, {'each drawn ' + str(draws) + ' times' if draws > 1 else 'drawn once'}"
                     f"{', and once without examples' if 0 in ks else ''}.")
    return " ".join(parts)


def size_header(size: int, n_train: int) -> str:
    return f"all {size:,}" if size == n_train else f"{size:,}"


def verdict(trends: list[tuple[str, str]], every: str = "Every model") -> str:
    """The answer in one line, from each model's trend ("rising", "levelling off", "falling",
    "unclear", "too short": ``learning_curve_reading.trend_of``)."""
    rising = [name for name, trend in trends if trend == "rising"]
    flat = [name for name, trend in trends if trend in ("levelling off", "falling")]
    unclear = [name for name, trend in trends if trend == "unclear"]
    if not rising and not flat and not unclear:
        return ""
    every = every if len(trends) > 1 else None
    if rising and not flat and not unclear:
        return f"{every or rising[0]} still improves with more coded texts: coding more is likely worth it."
    if flat and not rising and not unclear:
        return f"{every or flat[0]} has levelled off: more coded texts of the same kind will likely help little."
    if unclear and not rising and not flat:
        return (f"{every or unclear[0]} may still improve, but the draws vary too much to tell: more draws per size "
                "would.")
    parts = []
    if rising:
        parts.append(f"{_names(rising)} still {'improves' if len(rising) == 1 else 'improve'} with more coded texts")
    if flat:
        parts.append(f"{_names(flat)} {'has' if len(flat) == 1 else 'have'} levelled off")
    if unclear:
        parts.append(f"for {_names(unclear)} the curve cannot tell yet")
    return "; ".join(parts) + "."


def examples_verdict(trends: list[tuple[str, str]]) -> str:
    """The answer in one line for language models with your codebook alone, whose curves are over the
    examples per category in their prompt: more coded texts only give them more examples to choose from."""
    rising = [name for name, trend in trends if trend == "rising"]
    if not trends:
        return ""
    if rising:
        return (f"{_names(rising)} still {'improves' if len(rising) == 1 else 'improve'} with more examples per "
                "category in the prompt; coded texts matter to it only as examples.")
    return ("More examples per category in the prompt would likely help little; coded texts matter to a language "
            "model with your codebook only as examples.")


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def examples_header(k: int) -> str:
    """A column of the table over examples per category: "none (zero-shot)", "1 per category"."""
    return "none (zero-shot)" if k == 0 else f"{k:,} per category"


class CurveTable(QTableWidget):
    """Models (rows) × sizes (columns): "0.572 (0.564–0.579)", the mean test macro-F1 and its
    lowest and highest over the draws. A model that did not finish says why in its row.

    ``over_examples``: the table of the curves over the examples per category in a language model's
    prompt (columns: 0, 1, 2, 4 … examples per category); the other table leaves those curves out."""

    def __init__(self, parent: QWidget | None = None, *, over_examples: bool = False) -> None:
        super().__init__(parent)
        self.over_examples = over_examples
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setMinimumSectionSize(130)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setToolTip("Test macro-F1: the mean over the random draws, and in brackets the lowest and the "
                        "highest draw. Columns: " + ("the number of coded examples per category shown in the "
                                                     "language model's prompt (none: zero-shot)." if over_examples
                                                     else "the number of coded texts the models learned from."))

    def set_curve(self, result: LearningCurveResult | None) -> None:
        self.clear()
        self.clearSpans()
        if result is None:
            self.setRowCount(0)
            self.setColumnCount(0)
            return
        models = self.models_of(result)
        if self.over_examples:
            sizes = sorted({point.size for model in models for point in model.points})
            headers = [examples_header(size) for size in sizes]
        else:
            sizes = list(result.sizes)
            headers = [f"{size_header(size, result.n_train)} texts" for size in sizes]
        self.setColumnCount(len(sizes))
        self.setHorizontalHeaderLabels(headers)
        self.setRowCount(len(models))
        self.setVerticalHeaderLabels([model.name for model in models])
        for row, model in enumerate(models):
            by_size = {summary.size: summary for summary in model.summary()}
            if not model.ok and not by_size:
                why = model.message or "it was stopped before it finished"
                self._put(row, 0, f"did not finish: {why}", why)
                if sizes:
                    self.setSpan(row, 0, 1, len(sizes))
                continue
            for column, size in enumerate(sizes):
                summary = by_size.get(size)
                if summary is None:
                    self._put(row, column, "–", "No score for this size.")
                    continue
                if self.over_examples:
                    text, tip = self._examples_cell(model.name, size, summary)
                elif size == result.n_train and summary.low == summary.high:
                    text = f"{summary.mean:.3f}"
                    tip = (f"{model.name} with all {size:,} training texts: test macro-F1 {summary.mean:.3f}. Every "
                           "draw holds the same texts here, so there is one score.")
                else:
                    text = f"{summary.mean:.3f} ({summary.low:.3f}–{summary.high:.3f})"
                    tip = (f"{model.name} with {size:,} coded texts: mean test macro-F1 {summary.mean:.3f} over "
                           f"{summary.repeats} draw{'s' if summary.repeats != 1 else ''}, lowest {summary.low:.3f}, "
                           f"highest {summary.high:.3f}.")
                self._put(row, column, text, tip)
        self.setFixedHeight(self._fitting_height())

    def models_of(self, result: LearningCurveResult) -> list:
        """The models this table shows: those whose curve is over this table's axis."""
        return [model for model in result.models if model.over_examples == self.over_examples]

    @staticmethod
    def _examples_cell(name: str, k: int, summary) -> tuple[str, str]:  # noqa: ANN001 — a SizeSummary
        shown = "no examples (zero-shot)" if k == 0 else f"{k:,} example{'s' if k != 1 else ''} per category"
        if k == 0:
            return (f"{summary.mean:.3f}", f"{name} with {shown}: test macro-F1 {summary.mean:.3f}. Without examples "
                                           "nothing is drawn, so every draw has this one score.")
        if summary.low == summary.high:
            return (f"{summary.mean:.3f}", f"{name} with {shown}: test macro-F1 {summary.mean:.3f} in each of "
                                           f"{summary.repeats} draw{'s' if summary.repeats != 1 else ''} of examples.")
        return (f"{summary.mean:.3f} ({summary.low:.3f}–{summary.high:.3f})",
                f"{name} with {shown}: mean test macro-F1 {summary.mean:.3f} over {summary.repeats} draws of "
                f"examples, lowest {summary.low:.3f}, highest {summary.high:.3f}.")

    def _put(self, row: int, column: int, text: str, tip: str) -> None:
        item = QTableWidgetItem(text)
        item.setToolTip(tip)
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setItem(row, column, item)

    def _fitting_height(self) -> int:
        self.resizeRowsToContents()
        rows = sum(self.rowHeight(row) for row in range(self.rowCount()))
        return rows + self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth() + 2

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""

    def column_titles(self) -> list[str]:
        return [self.horizontalHeaderItem(column).text() for column in range(self.columnCount())]

    def row_titles(self) -> list[str]:
        return [self.verticalHeaderItem(row).text() for row in range(self.rowCount())]


class ReadingView(QWidget):
    """What the curve says, one paragraph per model (``learning_curve_reading.read_curves``),
    then the notes of the run (sizes that were capped, a run that was stopped)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(8)
        self._labels: list[GlossaryLabel] = []
        self.verdict = QLabel("", objectName="learningCurveVerdict")
        self.verdict.setWordWrap(True)
        font = self.verdict.font()
        font.setBold(True)
        self.verdict.setFont(font)
        self._column.addWidget(self.verdict)
        self.notes = QLabel("", objectName="learningCurveNotes")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(theme.NOTE_STYLE)
        self._column.addWidget(self.notes)
        self._column.addStretch(1)

    def set_curve(self, result: LearningCurveResult | None) -> None:
        for label in self._labels:
            self._column.removeWidget(label)
            label.deleteLater()
        self._labels = []
        if result is None:
            self.notes.setText("")
            self.verdict.setText("")
            return
        from guiapp.core.experiment.curves.learning_curve_reading import read_curves

        readings = read_curves(result)
        over_examples = {model.name for model in result.models if model.over_examples}
        trends = [(reading.model, reading.trend) for reading in readings if reading.model not in over_examples]
        every = "Every model that learns from the coded texts" if over_examples else "Every model"
        self.verdict.setText(verdict(trends, every) if trends else examples_verdict(
            [(reading.model, reading.trend) for reading in readings]))
        self.verdict.setVisible(bool(self.verdict.text()))
        sentences = [reading.words for reading in readings]
        failed = [model for model in result.models if not model.ok]
        sentences += [f"{model.name} has no curve: {model.message or 'it was stopped before it finished.'}"
                      for model in failed]
        if not sentences:
            sentences = ["No model finished, so there is nothing to read yet."]
        for position, sentence in enumerate(sentences):
            label = GlossaryLabel(sentence, terms=READING_TERMS)
            label.setObjectName("learningCurveReading")
            self._column.insertWidget(position + 1, label)
            self._labels.append(label)
        notes = []
        if result.status == "cancelled":
            notes.append("This curve was stopped before every model finished; only the finished models are shown.")
        notes += list(result.notes)
        notes.append(f"Scored on the same {result.n_test:,} test texts at every size; settings chosen "
                     + ("once, on one subset, and used for every size." if result.tuning == "once"
                        else "for each size on its own subset."))
        self.notes.setText("\n".join(notes))

    def verdict_text(self) -> str:
        return self.verdict.text()

    def sentences(self) -> list[str]:
        return [label.plain_text() for label in self._labels]
