"""Is the best model really better? The paired comparisons and agreement figures of a study.

Shows what :func:`guiapp.core.experiment.scores.comparisons.compare_models` finds: the headline sentences,
a table of every pair of models (McNemar's test on the test texts, Holm-corrected, and the fold
comparison where the folds allow it) and a table of each model's agreement with the human coding
(Cohen's kappa, Krippendorff's alpha, with intervals). Each table has a caption in plain words;
every column title and cell has a tooltip. No dialogs.

Where a text can have several categories, a model is seldom simply right or wrong about a text: the
pairs are compared by a paired bootstrap of the difference in macro-F1 (the difference and its
interval take the place of the “only A right / only B right” counts), and the agreement is kappa and
alpha per category (each a yes/no coding), averaged, beside the share of texts with all categories right.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from guiapp.core.experiment.scores.comparisons import ModelComparisons, compare_models
from guiapp.core.experiment import ExperimentResult
from guiapp.core.stats.pairwise import PairComparison, is_bootstrap
from guiapp.core.stats.wording import format_p, with_interval
from guiapp.ui import theme
from guiapp.ui.common.glossary import TERMS, GlossaryLabel
from guiapp.ui.common.read_only_table import ReadOnlyTable
from guiapp.ui.steps.results.results_tables import SortItem
from guiapp.ui.common.section_title import section_title
from guiapp.ui.steps.results.table_height import ROW_HEIGHT, fit_rows

WORDS = ["McNemar's test", "p-value", "Holm correction", "Cohen's kappa", "Krippendorff's alpha",
         "corrected resampled t-test", "macro-F1", "test text", "cross-validation", "fold",
         "confidence interval", "interval"]
RELIABLE, TENTATIVE = 0.80, 0.667  # Krippendorff (2004), Content Analysis, 2nd ed., p. 241


def explain_term(term: str) -> str:
    return f"{term[0].upper()}{term[1:]}: {TERMS[term]}"


def alpha_in_words(alpha: float) -> str:
    """Krippendorff's rule of thumb for an agreement coefficient, in words."""
    if not math.isfinite(alpha):
        return "cannot be computed (one category only)"
    if alpha >= RELIABLE:
        return "high: as reliable human coding (0.80 or more)"
    if alpha >= TENTATIVE:
        return "moderate: tentative conclusions only"
    return "low: below the usual minimum of 0.67"


def _caption(name: str = "") -> GlossaryLabel:
    label = GlossaryLabel("", terms=WORDS, objectName=name)
    label.setStyleSheet(theme.MUTED_STYLE)
    return label


def _add_section(layout: QVBoxLayout, title: str, table: _Table,
                 caption: str = "") -> tuple[QLabel, GlossaryLabel, _Table]:
    """A part of the view after some space: its title, a grey caption (object name ``caption``) and its table."""
    layout.addSpacing(10)
    parts = (section_title(title), _caption(caption), table)
    for part in parts:
        layout.addWidget(part)
    return parts


class _Table(ReadOnlyTable):
    """A read-only table that is as tall as its rows (the page scrolls, not the table)."""

    def __init__(self, headers: list[str], tips: list[str], name: str, name_columns: tuple[int, ...]) -> None:
        super().__init__(headers, tips, ROW_HEIGHT)
        self.name_columns = name_columns
        self.setObjectName(name)
        self.setWordWrap(True)
        header = self.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setStretchLastSection(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    MAX_NAME_WIDTH = 200  # model names wrap onto a second line rather than push the numbers away
    MAX_COLUMN_WIDTH = 260

    def fit(self) -> None:
        """Columns as wide as their contents (names and long cells wrap), rows as tall as their
        text, and the table as tall as all its rows."""
        self.resizeColumnsToContents()
        for column in range(self.columnCount() - 1):
            limit = self.MAX_NAME_WIDTH if column in self.name_columns else self.MAX_COLUMN_WIDTH
            self.setColumnWidth(column, min(self.columnWidth(column) + 14, limit))
        self._wanted = [self.columnWidth(column) for column in range(self.columnCount())]
        self.fit_width()
        self.fit_rows()

    NARROWEST_NAME = 100

    def fit_width(self) -> None:
        """In a narrow window the columns give way — the names first, then the widest texts, never
        below their title — and their text wraps, so that the table does not scroll sideways."""
        wanted = getattr(self, "_wanted", None)
        if not wanted:
            return
        header = self.horizontalHeader()
        floors = [self.NARROWEST_NAME if column in self.name_columns else
                  min(header.sectionSizeFromContents(column).width(), wanted[column])
                  for column in range(self.columnCount())]
        widths = list(wanted)
        over = sum(widths) - self.viewport().width()
        order = list(self.name_columns) + sorted(
            (c for c in range(self.columnCount()) if c not in self.name_columns), key=lambda c: -wanted[c])
        for column in order:
            if over <= 0:
                break
            give = min(over, max(widths[column] - floors[column], 0))
            widths[column] -= give
            over -= give
        for column, width in enumerate(widths[:-1]):  # the last one stretches to what is left
            if self.columnWidth(column) != width:
                self.setColumnWidth(column, width)

    def fit_rows(self) -> None:
        """Rows as tall as their (wrapped) text plus some air; the table as tall as all rows."""
        height = fit_rows(self, air=8)
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.fit_width()
            # after the header has stretched its last column to the new width
            QTimer.singleShot(0, self.fit_rows)

    def rows(self) -> list[list[str]]:
        """The texts of every cell, in the order shown."""
        return [[self.item(r, c).text() if self.item(r, c) else "" for c in range(self.columnCount())]
                for r in range(self.rowCount())]

    def put(self, row: int, column: int, text: str, value, tip: str = "", *, number: bool = False,
            color: str = "") -> None:
        item = SortItem(text, value, tip)
        if number:
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if color:
            item.setForeground(QBrush(QColor(color)))
        self.setItem(row, column, item)


PAIR_HEADERS = ["Model A", "Model B", "Only A right", "Only B right", "p", "p (Holm)", "On the test texts",
                "Across the folds"]
PAIR_TIPS = [
    "The model ranked higher by macro-F1 on the test texts.",
    "The model it is compared with.",
    "How many test texts model A got right (your coding) and model B got wrong.",
    "How many test texts model B got right and model A got wrong.",
    explain_term("p-value") + " (McNemar's test, before the Holm correction.)",
    explain_term("Holm correction") + " A difference is called clear when this is below 0.05.",
    "The verdict of McNemar's test on the test texts, after the Holm correction.",
    explain_term("corrected resampled t-test") + " Shown only where both models were scored on the same folds.",
]
BOOTSTRAP_HEADERS = ["Model A", "Model B", "Macro-F1: A − B", "95 % interval", "p", "p (Holm)", "On the test texts",
                     "Across the folds"]
BOOTSTRAP_TIPS = [
    PAIR_TIPS[0],
    PAIR_TIPS[1],
    "How much higher model A's macro-F1 is than model B's on the test texts (negative: B is higher).",
    ("The range the difference would likely take with other test texts, from the same resamples of the test texts "
     "for both models (paired bootstrap). A range that includes 0 means the test texts cannot tell them apart."),
    explain_term("p-value") + " (Paired bootstrap of the difference in macro-F1, before the Holm correction.)",
    PAIR_TIPS[5],
    "The verdict of the paired bootstrap on the test texts, after the Holm correction.",
    PAIR_TIPS[7],
]
AGREEMENT_HEADERS = ["Model", "Agrees on", "Cohen's kappa", "Krippendorff's alpha", "In words"]
AGREEMENT_TIPS = [
    "The compared models, best macro-F1 first.",
    "The share of test texts where the model chose the category you coded.",
    explain_term("Cohen's kappa"),
    explain_term("Krippendorff's alpha"),
    "Krippendorff's rule of thumb for coding reliability, applied to the model's alpha.",
]


MULTI_LABEL_AGREEMENT_HEADERS = ["Model", "All categories right", "Cohen's kappa (mean)",
                                 "Krippendorff's alpha (mean)", "In words"]
MULTI_LABEL_AGREEMENT_TIPS = [
    AGREEMENT_TIPS[0],
    "The share of test texts where the model chose exactly the categories you coded: none missing, none added.",
    explain_term("Cohen's kappa") + " Here for each category (a text in it or not) and averaged over the "
    "categories; hover over a cell for each category's value.",
    explain_term("Krippendorff's alpha") + " Here for each category (a text in it or not) and averaged over the "
    "categories; hover over a cell for each category's value.",
    AGREEMENT_TIPS[4],
]


CODER_HEADERS = ["Model", "Agrees with the coders' majority", "One coder agrees with the others",
                 "Krippendorff's alpha among the coders", "In words"]
CODER_TIPS = [
    "The compared models, best macro-F1 first.",
    "The share of test texts where the model chose the category most of your coders chose (a tie counts "
    "as a random pick among the tied categories).",
    "How often a single coder chose the category most of the other coders of that text chose: what one "
    "more human coder would reach. Hold the model's share against this.",
    explain_term("Krippendorff's alpha") + " Among your coders only, with its interval.",
    "The comparison in a sentence.",
]


def models_versus_coders_job(result, rows, columns, on_event=None):  # noqa: ANN001 — a Worker's job
    from guiapp.core.experiment.scores.coder_agreement import models_versus_coders

    return models_versus_coders(result, rows, columns, on_event=on_event)


class ComparisonView(QWidget):
    """The paired comparisons and agreement of a study. :meth:`set_result` computes and shows them
    (about a second for a thousand test texts and twenty categories); :meth:`set_comparisons` shows
    figures already computed elsewhere (e.g. in a worker); :meth:`clear` empties the view."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("comparisonView")
        self.comparisons: ModelComparisons | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)

        layout.addWidget(section_title("Is the best model really better?"))
        self.headline = GlossaryLabel("", terms=WORDS, objectName="comparisonHeadline")
        self.headline.setStyleSheet(theme.headline_style("comparisonHeadline"))
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.08)
        self.headline.setFont(font)
        layout.addWidget(self.headline)

        self.pairs_title, self.pairs_caption, self.pairs_table = _add_section(
            layout, "Every pair of models on the same test texts",
            _Table(PAIR_HEADERS, PAIR_TIPS, "pairsTable", (0, 1)))
        self.folds_note = _caption("foldsNote")
        layout.addWidget(self.folds_note)
        self.agreement_title, self.agreement_caption, self.agreement_table = _add_section(
            layout, "How closely each model agrees with your coding",
            _Table(AGREEMENT_HEADERS, AGREEMENT_TIPS, "agreementTable", (0,)))
        self.coders_title, self.coders_caption, self.coders_table = _add_section(
            layout, "Does the model code like another coder?", _Table(CODER_HEADERS, CODER_TIPS, "codersTable", (0,)),
            "codersCaption")
        self.coders: list = []  # ModelVersusCoders, once computed
        self._result: ExperimentResult | None = None
        self._coders_slot = None
        layout.addStretch(1)
        self.clear()

    # -- public ------------------------------------------------------------------------------------
    def set_result(self, result: ExperimentResult | None) -> None:
        """Compute the comparisons of ``result`` and show them (None: empty the view)."""
        if result is None:
            self.clear()
            return
        self._result = result
        self.set_comparisons(compare_models(result), len(result.test_true))

    def set_comparisons(self, comparisons: ModelComparisons, n_texts: int) -> None:
        """Show comparisons computed by :func:`compare_models` for a study with ``n_texts`` test texts."""
        self.comparisons = comparisons
        self.headline.set_plain_text("\n".join(comparisons.headline))
        self._show_pairs(comparisons, n_texts)
        self._show_agreement(comparisons)
        for widget in (self.pairs_title, self.pairs_caption, self.pairs_table):
            widget.setVisible(bool(comparisons.test_set))
        self.folds_note.setVisible(bool(comparisons.test_set) and bool(self.folds_note.plain_text()))
        for widget in (self.agreement_title, self.agreement_caption, self.agreement_table):
            widget.setVisible(bool(comparisons.agreement))

    def set_coders(self, rows, columns: list[str], result: ExperimentResult | None = None) -> None:  # noqa: ANN001
        """Compare every model with several human coders, in a background worker: ``rows`` are the
        table's rows of the test texts (in the order of the test texts), ``columns`` count the coders
        per category in the study's category order; ``result`` defaults to the one last set."""
        from guiapp.workers import Worker, WorkerSlot

        result = result if result is not None else self._result
        self._hide_coders()
        if result is None or not columns:
            return
        self._result = result
        if self._coders_slot is None:
            self._coders_slot = WorkerSlot(self)
        self.coders_caption.set_plain_text("Comparing the models with your coders…")
        self.coders_title.setVisible(True)
        self.coders_caption.setVisible(True)
        worker = Worker(models_versus_coders_job, result, rows, list(columns), name="compare with coders")
        worker.signals.finished.connect(
            lambda found, result=result: self._result is result and self._show_coders(found, list(columns)))
        worker.signals.failed.connect(
            lambda error, result=result: self._result is result and self._coders_failed(error))
        self._coders_slot.start(worker)

    def coders_busy(self) -> bool:
        return self._coders_slot is not None and self._coders_slot.is_busy()

    def clear(self) -> None:
        self._result = None
        self._hide_coders()
        self.comparisons = None
        self.headline.set_plain_text("No study results yet: once models have finished, this compares them.")
        self.pairs_table.setRowCount(0)
        self.agreement_table.setRowCount(0)
        self.folds_note.set_plain_text("")
        for widget in (self.pairs_title, self.pairs_caption, self.pairs_table, self.folds_note,
                       self.agreement_title, self.agreement_caption, self.agreement_table):
            widget.setVisible(False)

    def headline_text(self) -> str:
        return self.headline.plain_text()

    # -- parts -------------------------------------------------------------------------------------
    def _hide_coders(self) -> None:
        if getattr(self, "_coders_slot", None) is not None:
            self._coders_slot.cancel()
        self.coders = []
        self.coders_table.setRowCount(0)
        self.coders_caption.set_plain_text("")
        for widget in (self.coders_title, self.coders_caption, self.coders_table):
            widget.setVisible(False)

    def _coders_failed(self, error) -> None:  # noqa: ANN001 — the worker's exception
        self.coders_caption.set_plain_text(f"The models could not be compared with your coders: {error}")

    def _show_coders(self, found: list, columns: list[str]) -> None:
        self.coders = list(found)
        first = found[0].agreement if found else None
        self.coders_caption.set_plain_text(
            f"Your table counts how many coders chose each category ({', '.join(columns)}). Each row holds a "
            "model against the majority of those coders beside how often one coder agrees with the others: a "
            "model that agrees with the majority about as often as a coder does codes like another coder."
            + (f" {first.n_without_majority:,} of the {first.n_texts:,} test texts have no majority (a tie)."
               if first is not None and first.n_without_majority else "")
            + " Hover over a row for the sentence."
        )
        table = self.coders_table
        table.setSortingEnabled(False)
        table.setRowCount(len(found))
        for row, item in enumerate(found):
            a = item.agreement
            table.put(row, 0, item.model, item.model, a.sentence)
            table.put(row, 1, f"{a.model_agrees_with_majority:.0%} of texts", a.model_agrees_with_majority,
                      a.sentence, number=True)
            table.put(row, 2, f"{a.coder_agrees_with_other_coders:.0%} of texts", a.coder_agrees_with_other_coders,
                      a.sentence, number=True)
            table.put(row, 3, with_interval(a.alpha_between_coders, a.alpha_between_coders_interval),
                      a.alpha_between_coders, a.sentence, number=True)
            table.put(row, 4, a.sentence, a.sentence, a.sentence)
        table.fit()
        for widget in (self.coders_title, self.coders_caption, self.coders_table):
            widget.setVisible(bool(found))

    def _show_pairs(self, comparisons: ModelComparisons, n_texts: int) -> None:
        pairs = comparisons.test_set
        n_pairs = len(pairs)
        alpha = comparisons.alpha
        bootstrap = any(is_bootstrap(c) for c in pairs)
        self.pairs_table.set_titles(*((BOOTSTRAP_HEADERS, BOOTSTRAP_TIPS) if bootstrap else (PAIR_HEADERS, PAIR_TIPS)))
        if bootstrap:
            self._show_bootstrap_pairs(comparisons, n_texts)
            self._show_fold_note(comparisons)
            return
        correction = (
            f"Because {n_pairs} pairs are compared, some would look different by chance alone, so each "
            f"p-value is raised by the Holm correction: p (Holm). " if n_pairs > 1 else ""
        )
        self.pairs_caption.set_plain_text(
            f"Each row puts two models side by side on the same {n_texts:,} test texts. Only the texts that "
            f"exactly one of the two got right tell them apart (“Only A right”, “Only B right”). McNemar's test "
            f"gives the p-value: how likely so uneven a split would be if both models were equally good. "
            f"{correction}A difference is called clear when p (Holm) is below {alpha:g}; “no clear difference” "
            f"does not mean the two are equally good, only that these test texts cannot tell. Hover over a row "
            f"for the full sentence."
        )
        folds = {frozenset((c.model_a, c.model_b)): (c, s)
                 for c, s in zip(comparisons.folds, comparisons.fold_sentences, strict=True)}
        skipped = {frozenset((s.model_a, s.model_b)): s.reason for s in comparisons.skipped_fold_pairs}
        table = self.pairs_table
        table.setSortingEnabled(False)
        table.setRowCount(n_pairs)
        for row, (c, sentence) in enumerate(zip(pairs, comparisons.test_set_sentences, strict=True)):
            clear = c.p_holm < alpha
            table.put(row, 0, c.model_a, c.model_a, sentence)
            table.put(row, 1, c.model_b, c.model_b, sentence)
            table.put(row, 2, f"{c.n_only_a_right:,}", c.n_only_a_right, sentence, number=True)
            table.put(row, 3, f"{c.n_only_b_right:,}", c.n_only_b_right, sentence, number=True)
            table.put(row, 4, _p(c.p_value), c.p_value, sentence, number=True)
            table.put(row, 5, _p(c.p_holm, alpha), c.p_holm, sentence, number=True)
            words = short_verdict(c, alpha)
            table.put(row, 6, words, words, sentence, color=theme.GOOD_STRONG if clear else "")
            _put_fold_cell(table, row, c, folds, skipped, alpha)
        table.fit()
        self._show_fold_note(comparisons)

    def _show_bootstrap_pairs(self, comparisons: ModelComparisons, n_texts: int) -> None:
        """Several categories per text: each pair's difference in macro-F1 with its interval (paired bootstrap)."""
        pairs, alpha = comparisons.test_set, comparisons.alpha
        correction = (
            f"Because {len(pairs)} pairs are compared, some would look different by chance alone, so each "
            f"p-value is raised by the Holm correction: p (Holm). " if len(pairs) > 1 else ""
        )
        how = " ".join(note for note in comparisons.notes if "bootstrap" in note) or (
            "A text can have several categories here, so a model is seldom simply right or wrong about a text: the "
            "two are compared by their macro-F1, with a paired bootstrap over the test texts.")
        self.pairs_caption.set_plain_text(
            f"Each row puts two models side by side on the same {n_texts:,} test texts. {how} The resamples give the "
            "range of the difference and the p-value: how likely so large a difference would be if both models "
            f"were equally good. {correction}A difference is called clear when p (Holm) is below {alpha:g}; “no "
            "clear difference” does not mean the two are equally good, only that these test texts cannot tell. "
            "Hover over a row for the full sentence."
        )
        table = self.pairs_table
        table.setSortingEnabled(False)
        table.setRowCount(len(pairs))
        folds = {frozenset((c.model_a, c.model_b)): (c, s)
                 for c, s in zip(comparisons.folds, comparisons.fold_sentences, strict=True)}
        skipped = {frozenset((s.model_a, s.model_b)): s.reason for s in comparisons.skipped_fold_pairs}
        for row, (c, sentence) in enumerate(zip(pairs, comparisons.test_set_sentences, strict=True)):
            difference = c.mean_difference or 0.0
            table.put(row, 0, c.model_a, c.model_a, sentence)
            table.put(row, 1, c.model_b, c.model_b, sentence)
            table.put(row, 2, f"{difference:+.3f}".replace("-", "−"), difference, sentence, number=True)
            shown = (f"{c.ci_low:+.3f} to {c.ci_high:+.3f}".replace("-", "−")
                     if c.ci_low is not None and c.ci_high is not None else "—")
            table.put(row, 3, shown, c.ci_low if c.ci_low is not None else 0.0, sentence, number=True)
            table.put(row, 4, _p(c.p_value), c.p_value, sentence, number=True)
            table.put(row, 5, _p(c.p_holm, alpha), c.p_holm, sentence, number=True)
            words = short_verdict(c, alpha)
            table.put(row, 6, words, words, sentence, color=theme.GOOD_STRONG if c.p_holm < alpha else "")
            _put_fold_cell(table, row, c, folds, skipped, alpha)
        table.fit()

    def _show_fold_note(self, comparisons: ModelComparisons) -> None:
        note = (
            "“Across the folds” compares the two models' macro-F1 fold by fold in cross-validation (corrected "
            f"resampled t-test, Holm-corrected over the {len(comparisons.folds)} pairs compared this way). "
            if comparisons.folds else "No pair could be compared across the cross-validation folds. "
        )
        by_reason: dict[str, list[str]] = {}
        for model, reason in comparisons.fold_excluded.items():
            by_reason.setdefault(reason, []).append(model)
        for reason, models in by_reason.items():
            names = " and ".join([", ".join(models[:-1]), models[-1]] if len(models) > 1 else models)
            verb = "are" if len(models) > 1 else "is"
            if reason.startswith("a combined model"):
                reason = "combined models" + reason.removeprefix("a combined model") if len(models) > 1 else reason
                reason = reason.replace(": its fold", ": their fold") if len(models) > 1 else reason
            note += f"Not comparable across the folds: {names} {verb} {reason}. "
        self.folds_note.set_plain_text(note.strip())

    def _show_agreement(self, comparisons: ModelComparisons) -> None:
        rows = comparisons.agreement
        level = rows[0].level if rows else 0.95
        samples = rows[0].samples if rows else 0
        several = any(a.multi_label for a in rows)
        self.agreement_table.set_titles(*((MULTI_LABEL_AGREEMENT_HEADERS, MULTI_LABEL_AGREEMENT_TIPS) if several
                                             else (AGREEMENT_HEADERS, AGREEMENT_TIPS)))
        if several:
            _agreement_per_category_rows(self, rows, level, samples)
            return
        self.agreement_caption.set_plain_text(
            "Both numbers say how often a model chooses the category you coded, beyond what chance alone would "
            "give: 1 means always, 0 means no better than guessing from how common each category is. Cohen's "
            "kappa and Krippendorff's alpha are the measures used for agreement between human coders (the model "
            "counts as a second coder), so you can hold them against your own coders' agreement. The range in "
            f"brackets is the {level:.0%} confidence interval, from {samples:,} resamples of the test texts."
        )
        _fill_agreement_rows(
            self.agreement_table, rows,
            lambda a: f"{a.model} chose the category you coded for {a.share_agreeing:.1%} of the test texts.",
            _interval_tip, explain_term("Krippendorff's alpha"))


def _agreement_per_category_rows(view: ComparisonView, rows: list, level: float, samples: int) -> None:
    """Fill the agreement table of a study where a text can have several categories."""
    view.agreement_caption.set_plain_text(
        "A text can have several categories here, so each category is taken as a yes/no coding of its own: for "
        "each category, Cohen's kappa and Krippendorff's alpha say how often the model decides as you coded, "
        "beyond what chance alone would give (1 means always, 0 no better than guessing), and the table shows "
        "their mean over the categories. Hover over a number for each category's value. “All categories right” "
        "is the share of test texts where the model chose exactly your categories. The range in brackets is the "
        f"{level:.0%} confidence interval, from {samples:,} resamples of the test texts."
    )
    _fill_agreement_rows(
        view.agreement_table, rows,
        lambda a: f"{a.model} chose exactly the categories you coded for {a.share_agreeing:.1%} of the test texts.",
        _per_category_tip, explain_term("Krippendorff's alpha") + " Applied to the mean over the categories.")


def _fill_agreement_rows(table, rows: list, share_tip: Callable[[Any], str],  # noqa: ANN001 — the agreement table
                         measure_tip: Callable[[Any, str], str], alpha_words_tip: str) -> None:
    """One row per model: the share of test texts where it chose your coding, Cohen's kappa and
    Krippendorff's alpha with their intervals, and alpha in words (green where it is reliable).
    ``measure_tip(agreement, "kappa" or "alpha")`` gives a number's tooltip."""
    table.setSortingEnabled(False)
    table.setRowCount(len(rows))
    for row, a in enumerate(rows):
        table.put(row, 0, a.model, a.model, a.model)
        table.put(row, 1, f"{a.share_agreeing:.0%} of texts", a.share_agreeing, share_tip(a), number=True)
        table.put(row, 2, with_interval(a.kappa, a.kappa_interval), a.kappa, measure_tip(a, "kappa"), number=True)
        table.put(row, 3, with_interval(a.alpha, a.alpha_interval), a.alpha, measure_tip(a, "alpha"), number=True)
        words = alpha_in_words(a.alpha)
        table.put(row, 4, words, a.alpha, alpha_words_tip, color=theme.GOOD_STRONG if a.alpha >= RELIABLE else "")
    table.fit()


def _interval_tip(agreement, measure: str) -> str:  # noqa: ANN001 — a ModelAgreement
    """A measure of one model with its interval, in words."""
    name = "Cohen's kappa" if measure == "kappa" else "Krippendorff's alpha"
    return (f"{name} of {agreement.model} with your coding of {agreement.n_texts:,} test texts; the interval "
            f"is the range it would likely take with other test texts ({agreement.level:.0%}).")


def _p(p: float, alpha: float | None = None) -> str:
    return format_p(p, alpha).removeprefix("p = ").replace("p < ", "< ")


def short_verdict(c: PairComparison, alpha: float) -> str:
    """"A agrees more often" / "B scores higher" / "No clear difference", A and B as in the table."""
    if c.n_only_a_right is not None:
        difference = c.n_only_a_right - (c.n_only_b_right or 0)
        better = "agrees more often"
    else:
        difference = c.mean_difference or 0.0
        better = "scores higher"
    if c.p_holm >= alpha or difference == 0:
        return "No clear difference"
    return f"{'A' if difference > 0 else 'B'} {better}"


def _put_fold_cell(table, row: int, c, folds: dict, skipped: dict, alpha: float) -> None:  # noqa: ANN001
    """The pair's comparison across the cross-validation folds, in the table's last column."""
    key = frozenset((c.model_a, c.model_b))
    if key in folds:
        fold, fold_sentence = folds[key]
        text = _fold_cell(fold, alpha)
        table.put(row, 7, text, text, fold_sentence, color=theme.GOOD_STRONG if fold.p_holm < alpha else "")
    else:
        reason = skipped.get(key, "these two models were not scored on the same folds")
        table.put(row, 7, "not comparable", "~", f"Not compared across the folds: {reason}.", color=theme.MUTED)


def _fold_cell(c: PairComparison, alpha: float) -> str:
    return f"{short_verdict(c, alpha)}\n({format_p(c.p_holm, alpha)})"


def _per_category_tip(agreement, measure: str) -> str:  # noqa: ANN001 — a ModelAgreement
    """The mean over the categories and each category's value, one line each."""
    values = [(c.category, getattr(c, measure)) for c in agreement.per_category]
    name = "Cohen's kappa" if measure == "kappa" else "Krippendorff's alpha"
    lines = [f"{name} of {agreement.model}, per category (a text in it or not):"]
    lines += [f"{category}: {value:.2f}" if math.isfinite(value) else f"{category}: cannot be computed"
              for category, value in values]
    return "\n".join(lines)
