"""Team agreement: how far a coding team's coders agree, measured in the background from the
project's record of codings (``team_report.team_agreement_of_log``).

It shows Krippendorff's alpha over every text coded by two coders or more (with its interval and
its usual reading), Fleiss' kappa, alpha per category, a coders × coders table of Cohen's kappa
(each cell coloured by the reading and giving the texts the two share), each coder against the
adjudicated coding, alpha per codebook version when the codings span several (to show whether a
revision helped), the notes, and how many texts are still to settle, with a button to the
Disagreements tab. Where a text can have several categories, each category's alpha as a yes/no
question (``team_category_agreement_of_log``). When there are too few shared texts, it says so in
words instead of numbers.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from guiapp.core.coding.codings import CodingLog
from guiapp.core.errors import UserError
from guiapp.core.stats.wording import with_interval
from guiapp.ui import theme
from guiapp.ui.common.interval_strip import IntervalStrip
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.ui.common.section_title import section_title
from guiapp.ui.common.when_shown import WhenShown
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.coding.coder_agreement_view import ALPHA_READING, ALPHA_ZONES, FigureCard
from guiapp.workers import Worker, WorkerSlot

TITLE = "Agreement of the team"
RELIABLE, TENTATIVE = 0.8, 0.667  # Krippendorff (2004): rely on alpha ≥ 0.8; tentative conclusions from 0.667
SAMPLES = 1000
NO_TEAM = "Add coders with Team… above to code as a team; how far they agree shows here."
WORKING = "Measuring the team's agreement…"
BEFORE_VERSIONS = 0


def reading(value: float) -> str:
    """The usual reading of Krippendorff's alpha (or a kappa) in words."""
    if not math.isfinite(value):
        return "cannot be measured"
    if value >= RELIABLE:
        return "good: reliable coding (0.8 or more)"
    if value >= TENTATIVE:
        return "enough only for tentative conclusions (0.667 to 0.8)"
    return "too low to rely on (below 0.667)"


def zone_colour(value: float) -> str:
    if not math.isfinite(value):
        return theme.WHITE
    return theme.GOOD_BACKGROUND if value >= RELIABLE else (
        theme.WARNING_BACKGROUND if value >= TENTATIVE else theme.ERROR_BACKGROUND)


def version_name(label: Any) -> str:
    return "before the codebook had versions" if label == BEFORE_VERSIONS else f"version {label}"


def versions_sentence(by_label: list) -> str:
    """"version 1: 0.61, version 2: 0.78 — the revision helped.", in words, or "" with one version."""
    if len(by_label) < 2:
        return ""
    parts = ", ".join(f"{version_name(v.label)}: {'–' if not math.isfinite(v.alpha) else f'{v.alpha:.2f}'}"
                      f" ({v.n_texts:,} texts)" for v in by_label)
    first, last = by_label[0], by_label[-1]
    if not (math.isfinite(first.alpha) and math.isfinite(last.alpha)):
        return f"Alpha per codebook version: {parts}."
    low, high = last.interval
    earlier_low, earlier_high = first.interval
    apart = math.isfinite(low) and math.isfinite(earlier_high) and (low > earlier_high or high < earlier_low)
    if last.alpha > first.alpha:
        verdict = ("the revision helped" if apart else
                   "agreement rose after the revision, though their intervals overlap: it may be chance")
    elif last.alpha < first.alpha:
        verdict = ("agreement fell after the revision" if apart else
                   "agreement fell a little after the revision, though their intervals overlap: it may be chance")
    else:
        verdict = "the revision changed nothing in the agreement"
    return f"Alpha per codebook version: {parts} — {verdict}."


def _agreement_job(log: CodingLog, categories: list, several: bool, samples: int, on_event=None):  # noqa: ANN001, ANN202, ARG001
    from guiapp.core.coding.team_report import team_agreement_of_log, team_category_agreement_of_log

    measure = team_category_agreement_of_log if several else team_agreement_of_log
    try:
        return measure(log, categories=categories or None, samples=samples)
    except UserError as error:  # too few shared texts: the words are the answer
        return error


def _table(name: str) -> QTableWidget:
    table = QTableWidget(0, 0, objectName=name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setShowGrid(False)
    table.verticalHeader().hide()
    table.horizontalHeader().setHighlightSections(False)
    table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return table


def _fill(table: QTableWidget, titles: list[str], rows: list[list[str]], *, vertical: list[str] | None = None) -> None:
    table.clear()
    table.setColumnCount(len(titles))
    table.setRowCount(len(rows))
    table.setHorizontalHeaderLabels(titles)
    if vertical is not None:
        table.verticalHeader().show()
        table.setVerticalHeaderLabels(vertical)
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            left = vertical is None and c in (0, len(cells) - 1)
            item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter if left
                                  else Qt.AlignmentFlag.AlignCenter)
            table.setItem(r, c, item)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch if vertical is not None
                                else QHeaderView.ResizeMode.ResizeToContents)
    if vertical is None and titles:
        header.setSectionResizeMode(len(titles) - 1, QHeaderView.ResizeMode.Stretch)
    table.resizeRowsToContents()
    height = table.horizontalHeader().sizeHint().height() + sum(table.rowHeight(r) for r in range(len(rows))) + 4
    table.setFixedHeight(height)


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(f"{theme.BOLD_STYLE} {theme.text_style(theme.HEADING_INK)}")
    return label


def _note(name: str) -> QLabel:
    label = QLabel(objectName=name)
    label.setWordWrap(True)
    label.setStyleSheet(theme.MUTED_STYLE)
    return label


class TeamAgreementView(QWidget):
    """The agreement of the whole coding team."""

    disagreementsWanted = Signal()  # open the Disagreements tab

    def __init__(self, session: StudySession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("teamAgreementView")
        self.session = session
        self.samples = SAMPLES
        self.result: Any = None  # the TeamAgreement / TeamCategoryAgreement shown, or the UserError
        self._key: Any = None
        self._slot = WorkerSlot(self)

        self.headline = QLabel(objectName="teamAgreementHeadline")
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet(theme.headline_style("teamAgreementHeadline"))
        self.alpha_card = FigureCard("Krippendorff's alpha", "teamAlpha",
                                     IntervalStrip(ALPHA_ZONES, (0.0, 1.0, 0.8, 0.667)), ALPHA_READING)
        self.fleiss_card = FigureCard("Fleiss' kappa", "teamFleiss", IntervalStrip(),
                                      "1: the coders always agree · 0: no better than chance")
        self.disagreements_card = FigureCard("Disagreements", "teamDisagreements")
        self.settle_button = QPushButton("Settle them…", objectName="openDisagreements")
        self.settle_button.setToolTip("Open the Disagreements tab to decide each text the coders coded differently.")
        self.settle_button.clicked.connect(self.disagreementsWanted)
        self.disagreements_card.layout().insertWidget(3, self.settle_button)
        self.cards = QWidget()
        hbox(self.cards, (self.alpha_card, 3), (self.fleiss_card, 3), (self.disagreements_card, 2),
             margins=(0, 0, 0, 0), spacing=12)
        self.versions_line = QLabel(objectName="teamVersions")
        self.versions_line.setWordWrap(True)
        self.versions_line.setStyleSheet(theme.notice_style("news"))
        self.matrix_title = _heading("Cohen's kappa of each pair of coders")
        self.matrix_note = _note("teamMatrixNote")
        self.matrix_note.setText("Each cell: the two coders' kappa over the texts both coded (how many, in brackets). "
                                 "Green: 0.8 or more · yellow: 0.667 to 0.8 · red: below.")
        self.matrix = _table("teamKappaMatrix")
        self.categories_title = _heading("Alpha per category")
        self.categories_note = _note("teamCategoriesNote")
        self.categories_table = _table("teamCategoryAlphas")
        self.reference_title = _heading("Each coder against the adjudicated coding")
        self.reference_note = _note("teamReferenceNote")
        self.reference_table = _table("teamAgainstReference")
        self.notes = _note("teamAgreementNotes")
        content = QWidget()
        vbox(content, section_title(TITLE), self.headline, self.cards, self.versions_line,
             self.matrix_title, self.matrix_note, self.matrix, self.categories_title, self.categories_note,
             self.categories_table, self.reference_title, self.reference_note, self.reference_table, self.notes,
             STRETCH, margins=(0, 0, 8, 0), spacing=8)
        fill(self, ScrollArea(content, sideways=False, whole=True))
        self._parts = [self.cards, self.versions_line, self.matrix_title, self.matrix_note, self.matrix,
                       self.categories_title, self.categories_note, self.categories_table, self.reference_title,
                       self.reference_note, self.reference_table, self.notes]
        self._when_shown = WhenShown(self, self.refresh)
        for signal in (session.codingsChanged, session.codebookChanged, session.dataChanged):
            signal.connect(self._when_shown.now_or_when_shown)
        self.refresh()

    # ----- measuring --------------------------------------------------------------------------------
    def several(self) -> bool:
        """Whether a text can have several categories (then each category is measured as yes/no)."""
        mapping = self.session.mapping
        return bool(mapping is not None and mapping.multi_label) or any(e.several for e in self.session.codings.entries)

    def refresh(self) -> None:
        """Measure again when the codings, the team or the codebook changed (in the background)."""
        log = self.session.codings
        team = log.team
        if team is None or not team.is_team:
            self._slot.cancel()
            self._key, self.result = None, None
            self._say(NO_TEAM)
            return
        categories = list(self.session.codebook.names())
        several = self.several()
        entries = list(log.entries)
        key = (len(entries), entries[-1] if entries else None, repr(team.to_dict()), tuple(categories), several,
               self.samples)
        if key == self._key:
            return
        self._key = key
        snapshot = CodingLog(entries, team=team.copy(), history=log.history)
        self._say(WORKING)
        worker = Worker(_agreement_job, snapshot, categories, several, self.samples, name="agreement of the team")
        worker.signals.finished.connect(lambda found, w=worker: self._found(w, found))
        worker.signals.failed.connect(lambda error, w=worker: self._failed(w, error))
        self._slot.start(worker)

    def _failed(self, worker: Worker, error: BaseException) -> None:
        if worker is self._slot.current:
            self._key = None  # measured again on the next change
            self._say("The team's agreement could not be measured: TextLab has said why in its message; change the codings and it measures again.")
        self.session.report_error(error, "Measuring the team's agreement")

    def is_busy(self) -> bool:
        return self._slot.is_busy()

    def cancel_jobs(self) -> None:
        self._slot.cancel()

    def _found(self, worker: Worker, found: Any) -> None:
        if worker is not self._slot.current:
            return
        self.result = found
        if isinstance(found, UserError):
            self._say(str(found))
        elif hasattr(found, "fleiss"):
            self._show_one_category(found)
        else:
            self._show_several(found)

    # ----- drawing ----------------------------------------------------------------------------------
    def _say(self, words: str) -> None:
        self.headline.setText(words)
        for part in self._parts:
            part.hide()

    def headline_text(self) -> str:
        return self.headline.text()

    def matrix_cells(self) -> list[list[str]]:
        return [[self.matrix.item(r, c).text() for c in range(self.matrix.columnCount())]
                for r in range(self.matrix.rowCount())]

    def _coefficient(self, card: FigureCard, value: float, interval: tuple, level: float, detail: str) -> None:
        card.value_label.setText("–" if not math.isfinite(value) else f"{value:.2f}")
        low, high = interval
        shown = (f"{round(level * 100)} % interval: {low:.2f} to {high:.2f}"
                 if math.isfinite(low) and math.isfinite(high) else "no interval")
        card.detail.set_plain_text(f"{shown} — {detail}" if math.isfinite(value) else detail)
        if card.strip is not None:
            card.strip.show_value(value, interval)
            card.strip.setVisible(math.isfinite(value))

    def _show_disagreements(self, count: int) -> None:
        still = len(self._unsettled())
        self.disagreements_card.value_label.setText(f"{count:,}")
        self.disagreements_card.detail.set_plain_text(
            f"texts coded differently; {still:,} still to settle" if count else "The coders coded every shared text alike.")
        self.settle_button.setVisible(still > 0)

    def _unsettled(self) -> list:
        from guiapp.core.coding.adjudication import disagreements
        from guiapp.core.coding.team import codings_by_coder

        log, found = self.session.codings, []
        for source in ("table", "second file"):
            found += disagreements(codings_by_coder(log.entries, source), log.team.adjudications_of(source),
                                   coders=log.team.coders, include_adjudicated=False)
        return found

    def _show_one_category(self, agreement: Any) -> None:
        level = agreement.level
        self.headline.setText(
            f"Krippendorff's alpha {with_interval(agreement.alpha, agreement.alpha_interval)}: "
            f"{reading(agreement.alpha)} — over the {agreement.n_texts_compared:,} texts coded by two coders or more, "
            f"{len(agreement.coders)} coders, {agreement.n_codings:,} codings.")
        self._coefficient(self.alpha_card, agreement.alpha, agreement.alpha_interval, level,
                          f"over {agreement.n_texts_compared:,} texts")
        self.fleiss_card.title.set_plain_text("Fleiss' kappa")
        fleiss = agreement.fleiss
        if fleiss is None:
            self._coefficient(self.fleiss_card, math.nan, (math.nan, math.nan), level,
                              "Cannot be measured: it needs texts coded by the same number of coders.")
        else:
            self._coefficient(self.fleiss_card, fleiss.kappa, fleiss.interval, level,
                              fleiss.note or f"over {fleiss.n_texts:,} texts with {fleiss.coders_per_text} coders each")
        self._show_disagreements(len(agreement.disagreements))
        versions = versions_sentence(agreement.by_label)
        self.versions_line.setText(versions)
        self._show_matrix(agreement)
        self._show_categories(agreement.per_category, "Each category as its own yes/no question: did the coders "
                              "agree whether a text belongs to it?")
        self._show_reference(agreement)
        self.notes.setText("\n".join(agreement.notes))
        for part in self._parts:
            part.show()
        self.versions_line.setVisible(bool(versions))
        self.notes.setVisible(bool(agreement.notes))

    def _show_several(self, agreement: Any) -> None:
        level = agreement.level
        self.headline.setText(
            f"Mean alpha over the categories {with_interval(agreement.mean_alpha, agreement.mean_alpha_interval)}: "
            f"{reading(agreement.mean_alpha)} — a text can have several categories, so each category is measured as "
            f"its own yes/no question, over the {agreement.n_texts_compared:,} texts coded by two coders or more.")
        self._coefficient(self.alpha_card, agreement.mean_alpha, agreement.mean_alpha_interval, level,
                          "mean over the categories")
        self._show_disagreements(len(agreement.disagreements))
        self._show_categories(agreement.per_category, "Did the coders agree whether a text belongs to the category?")
        self.notes.setText("\n".join(agreement.notes))
        for part in self._parts:
            part.hide()
        for part in (self.cards, self.categories_title, self.categories_note, self.categories_table):
            part.show()
        self.fleiss_card.hide()
        self.notes.setVisible(bool(agreement.notes))

    def _show_matrix(self, agreement: Any) -> None:
        kappas, shared = agreement.kappa_matrix()
        coders = [str(c) for c in agreement.coders]
        rows = []
        for i in range(len(coders)):
            rows.append([f"{shared[i][i]:,} texts coded" if i == j else
                         (f"{kappas[i][j]:.2f}  ({shared[i][j]:,})" if math.isfinite(kappas[i][j])
                          else f"–  ({shared[i][j]:,})") for j in range(len(coders))])
        _fill(self.matrix, coders, rows, vertical=coders)
        for i in range(len(coders)):
            for j in range(len(coders)):
                item = self.matrix.item(i, j)
                if i == j:
                    item.setForeground(QColor(theme.MUTED))
                    item.setToolTip(f"{coders[i]} coded {shared[i][i]:,} texts.")
                    continue
                item.setBackground(QColor(zone_colour(kappas[i][j])))
                item.setToolTip(f"{coders[i]} and {coders[j]}: Cohen's kappa over the {shared[i][j]:,} texts both "
                                f"coded — {reading(kappas[i][j])}." if shared[i][j] >= 2 else
                                f"{coders[i]} and {coders[j]} share fewer than two texts: no kappa.")

    def _show_categories(self, per_category: list, note: str) -> None:
        self.categories_note.setText(note)
        _fill(self.categories_table, ["Category", "Alpha (95 % interval)", "Codings", "Reading"],
              [[str(c.category), with_interval(c.alpha, c.interval), f"{c.n_codings:,}", reading(c.alpha)]
               for c in per_category])
        for r, c in enumerate(per_category):
            self.categories_table.item(r, 1).setBackground(QColor(zone_colour(c.alpha)))

    def _show_reference(self, agreement: Any) -> None:
        against = agreement.against_reference
        if not against:
            self.reference_note.setText("Once disagreements are settled on the Disagreements tab, each coder is held "
                                        "against the adjudicated coding here.")
            _fill(self.reference_table, [], [])
            self.reference_table.setFixedHeight(0)
            return
        self.reference_note.setText("Over the adjudicated texts each coder coded: how often the coder chose the "
                                    "adjudicated category, and their kappa with it.")
        _fill(self.reference_table, ["Coder", "Texts", "Chose the adjudicated category", "Cohen's kappa"],
              [[str(c.coder), f"{c.n_texts:,}",
                _percent(c.accuracy, c.accuracy_interval),
                with_interval(c.kappa, c.kappa_interval)] for c in against])


def _percent(share: float, interval: tuple[float, float]) -> str:
    """A share as a percentage with its interval: "83 %  (70 to 92 %)"."""
    if not math.isfinite(share):
        return "–"
    low, high = interval
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{share * 100:.0f} %"
    return f"{share * 100:.0f} %  ({low * 100:.0f} to {high * 100:.0f} %)"
