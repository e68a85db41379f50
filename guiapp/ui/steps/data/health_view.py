"""The data-health report on screen: can these coded texts be used to compare models, and if not,
what exactly to fix.

:class:`HealthReportView` only lays out a :class:`guiapp.core.health.report.HealthReport`; every number
comes from the core. Top to bottom: a verdict banner, key figures, the issues (each with "What to
do" and a button that shows the affected rows), category sizes, text lengths
(:mod:`~guiapp.ui.steps.data.text_lengths`) and identical texts (:mod:`~guiapp.ui.steps.data.identical_texts`).
Clicking "Show rows" or a line of identical texts emits :attr:`HealthReportView.rowsRequested`
with table positions (0-based), which the page passes to the table
(:meth:`guiapp.ui.common.frame_model.DataFrameModel.highlight_rows`).

Widgets tests (and the page) can find by objectName: ``verdict_banner`` (property ``verdict``),
``verdict_text``, ``figure_<key>`` / ``caption_<key>`` for key in :data:`FIGURE_KEYS`,
``issues_summary``, ``issue_card`` (property ``severity``, ``code``), ``issue_title``,
``issue_explanation``, ``issue_fix``, ``show_rows_button``, ``category_caption``,
``category_chart``, ``words_summary``, ``words_chart``, ``tokens_summary``, ``tokens_chart``,
``tokens_note``, ``duplicates_caption``, ``duplicates_table``, ``health_placeholder``,
``fix_button`` (property ``code``), ``applied_fixes`` (frame), ``applied_fixes_text``, ``undo_fix_button``;
where a text can have several categories (``HealthReport.label_health``) also ``category_combinations``
with ``combinations_caption``, ``combinations_table``, ``cooccurrence_caption`` and ``cooccurrence_heatmap``.

One-click fixes of the categories: a finding's ``fix_button`` adds its
:class:`~guiapp.core.study.category_fixes.CategoryFixes` to the view's (:meth:`category_fixes`) and
emits :attr:`categoryFixesChanged`; the page checks the data again with them and records them in
the study (``DataSpec.category_fixes``). "Applied fixes: … [Undo]" takes the last one back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.health.findings import FixAction, HealthReport
from guiapp.core.study.category_fixes import CategoryFixes, visible
from guiapp.ui import theme
from guiapp.ui.common.layouts import hbox
from guiapp.ui.common.lazy_widget import LazyWidget
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.ui.steps.data.category_combinations import CategoryCombinations
from guiapp.ui.steps.data.health_parts import (
    FIGURE_CAPTIONS,
    FIGURE_KEYS,
    SEVERAL_FIGURE_TIPS,
    FigureTile,
    IssueCard,
    make_font,
    muted_label,
    plural,
    several_categories_caption,
    severity_pixmap,
)
from guiapp.ui.steps.data.identical_texts import IdenticalTexts
from guiapp.ui.steps.data.text_lengths import TextLengths

if TYPE_CHECKING:  # the charts load pyqtgraph: made with the first report
    from guiapp.ui.steps.data.charts import CategoryBarChart


class HealthReportView(QWidget):
    """Scrollable view of a data-health report. Emits ``rowsRequested(list[int])`` with table
    positions when the user asks to see the rows behind an issue or a group of identical texts.

    Its sections: ``combinations`` (the combinations of categories and their heatmap, shown when a
    text can have several), ``lengths`` (:class:`TextLengths`: the words and tokens histograms) and
    ``identical`` (:class:`IdenticalTexts`: its ``table``)."""

    rowsRequested = Signal(list)
    categoryFixesChanged = Signal(object)  # CategoryFixes: all fixes now applied

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._report: HealthReport | None = None
        self._fixes = CategoryFixes()
        self._fix_history: list[CategoryFixes] = []  # the fixes before each click, for Undo
        self._keep_position = False  # True once a report is shown: a new check keeps the scroll position
        self._position = 0
        # the content narrows to fit (figures in fewer columns); where it still cannot, it scrolls
        self._scroll = ScrollArea(parent=self, name="health_scroll")
        fill(self, self._scroll)

        self._content = QWidget()
        self._content.setObjectName("health_content")
        self._content.setStyleSheet(self._style_sheet())
        self._scroll.setWidget(self._content)
        self._content.installEventFilter(self)
        layout = QVBoxLayout(self._content)
        layout.setContentsMargins(18, 16, 18, 24)
        layout.setSpacing(14)
        self._layout = layout

        self._placeholder = QLabel(
            "No check yet. Open a spreadsheet and choose the columns that hold your texts and your "
            "categories; the check of your data appears here.",
            self._content,
        )
        self._placeholder.setObjectName("health_placeholder")
        self._placeholder.setWordWrap(True)
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._placeholder.setStyleSheet(f"{theme.MUTED_STYLE} padding: 40px;")
        layout.addWidget(self._placeholder)

        self._sections: list[QWidget] = []
        self._build_banner()
        self._build_applied_fixes()
        self._build_figures()
        self._build_issues()
        self._build_categories()
        self._build_combinations()
        self._build_lengths()
        self._build_duplicates()
        layout.addStretch(1)
        self.set_report(None)

    # ----- public API -------------------------------------------------------------------------
    def report(self) -> HealthReport | None:
        return self._report

    def category_fixes(self) -> CategoryFixes:
        """The category fixes applied now (recorded in the study; the spreadsheet is unchanged)."""
        return CategoryFixes.from_dict(self._fixes.to_dict())

    def set_category_fixes(self, fixes: CategoryFixes | None) -> None:
        """Start from these fixes (a new table: none; an opened study: its own); no signal."""
        self._fixes = CategoryFixes.from_dict(fixes.to_dict()) if fixes is not None else CategoryFixes()
        self._fix_history = []
        self._keep_position = False  # another table: its report starts at the top
        self._show_applied_fixes()

    def apply_fix(self, action: FixAction) -> None:
        """Add a finding's fix and ask for a new check (as its button does)."""
        self._fix_history.append(self._fixes)
        self._fixes = self._fixes.combined(action.fixes)
        self._show_applied_fixes()
        self.categoryFixesChanged.emit(self.category_fixes())

    def undo_fix(self) -> None:
        """Take back the last fix."""
        if not self._fix_history:
            self._fixes = CategoryFixes()
        else:
            self._fixes = self._fix_history.pop()
        self._show_applied_fixes()
        self.categoryFixesChanged.emit(self.category_fixes())

    def fix_buttons(self) -> list[QPushButton]:
        return [button for card in self._issue_cards for button in card.fix_buttons]

    def set_report(self, report: HealthReport | None) -> None:
        """Show a report (None: the "no check yet" placeholder). A new check of the same table (after
        a fix, another column role) keeps the place the user had scrolled to."""
        position = self._scroll.verticalScrollBar().value() if self._keep_position else 0
        self._keep_position = report is not None
        self._let_go_of_focus(self._issues_box.parentWidget())  # a removed button's focus must not pull the view
        self._show_report(report)
        self._scroll_to(position)

    def _show_report(self, report: HealthReport | None) -> None:
        self._report = report
        self._placeholder.setVisible(report is None)
        for section in self._sections:
            section.setVisible(report is not None)
        self._combinations_section.setVisible(report is not None and report.label_health is not None)
        if report is None:
            self._applied.hide()
            if self._category_slot.is_made():  # a chart not made yet is empty anyway
                self._category_chart.set_categories([], [], [], [])
            self.lengths.clear()
            self.identical.table.setRowCount(0)
            self.combinations.set_label_health(None)
            self._set_issues(())
            return
        self._show_verdict(report)
        self._show_applied_fixes()
        self._show_figures(report)
        self._set_issues(report.issues)
        self._show_categories(report)
        if report.label_health is not None:
            self.combinations.set_label_health(report.label_health)
        self.lengths.show(report)
        self.identical.show(report)

    def figures(self) -> dict[str, str]:
        """The key figures as shown, e.g. {"rows": "1,204", "coded": "1,180", …}."""
        return {key: fig.number.text() for key, fig in self._figures.items()}

    def issue_titles(self) -> list[str]:
        return [card.issue.title for card in self._issue_cards]

    def issue_cards(self) -> list[QFrame]:
        return list(self._issue_cards)

    def show_rows_buttons(self) -> list[QPushButton]:
        return [card.button for card in self._issue_cards if card.issue.rows]

    def category_chart(self) -> CategoryBarChart:
        return self._category_chart

    @property
    def _category_chart(self) -> CategoryBarChart:
        return self._category_slot.widget()

    def content_widget(self) -> QWidget:
        """The whole report as one widget (e.g. to grab it as a picture)."""
        return self._content

    def request_duplicate_rows(self, line: int) -> None:
        """Emit the rows of the identical-text group on ``line`` of the table (as a click does)."""
        if self._report is None or not 0 <= line < len(self._report.duplicate_groups):
            return
        self.rowsRequested.emit(list(self._report.duplicate_groups[line].rows))

    # ----- building ---------------------------------------------------------------------------
    def _section(self, heading: str | None = None, card: bool = True) -> tuple[QFrame, QVBoxLayout]:
        frame = QFrame(self._content)
        frame.setObjectName("section_card" if card else "section_plain")
        layout = QVBoxLayout(frame)
        margin = 16 if card else 0
        layout.setContentsMargins(margin, 14 if card else 0, margin, 16 if card else 0)
        layout.setSpacing(8)
        if heading:
            title = QLabel(heading, frame)
            title.setObjectName("section_heading")
            title.setFont(make_font(13, QFont.Weight.DemiBold))
            layout.addWidget(title)
        self._layout.addWidget(frame)
        self._sections.append(frame)
        return frame, layout

    def _build_banner(self) -> None:
        self._banner = QFrame(self._content)
        self._banner.setObjectName("verdict_banner")
        layout = hbox(self._banner, margins=(16, 14, 16, 14), spacing=12)
        self._verdict_icon = QLabel(self._banner)
        self._verdict_icon.setObjectName("verdict_icon")
        self._verdict_icon.setFixedSize(28, 28)
        layout.addWidget(self._verdict_icon, 0, Qt.AlignmentFlag.AlignVCenter)
        self._verdict_text = QLabel(self._banner)
        self._verdict_text.setObjectName("verdict_text")
        self._verdict_text.setWordWrap(True)
        self._verdict_text.setFont(make_font(12.5, QFont.Weight.DemiBold))
        layout.addWidget(self._verdict_text, 1)
        self._layout.addWidget(self._banner)
        self._sections.append(self._banner)

    def _build_applied_fixes(self) -> None:
        frame = QFrame(self._content)
        frame.setObjectName("applied_fixes")
        frame.setStyleSheet(theme.card_style("applied_fixes", theme.INFO_BACKGROUND, theme.INFO_BORDER, 3))
        layout = hbox(frame, margins=(12, 8, 12, 8))
        self._applied_text = QLabel(frame)
        self._applied_text.setObjectName("applied_fixes_text")
        self._applied_text.setWordWrap(True)
        self._applied_text.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self._applied_text, 1)
        self._undo_button = QPushButton("Undo", frame)
        self._undo_button.setObjectName("undo_fix_button")
        self._undo_button.setToolTip("Take back the last fix and check the data again.")
        self._undo_button.clicked.connect(self.undo_fix)
        layout.addWidget(self._undo_button, 0, Qt.AlignmentFlag.AlignTop)
        self._layout.addWidget(frame)
        self._applied = frame
        frame.hide()

    def _show_applied_fixes(self) -> None:
        summary = self._fixes.summary()
        if not summary:
            self._let_go_of_focus(self._applied)  # Undo pressed for the last fix: the button goes
        self._applied.setVisible(bool(summary) and self._report is not None)
        self._applied_text.setText(
            f"Applied fixes: {summary}. TextLab records them in the study; your spreadsheet is not changed."
            if summary else ""
        )

    def _build_figures(self) -> None:
        frame, layout = self._section(card=False)
        frame.setObjectName("figures")
        self._figures_grid = QGridLayout()
        self._figures_grid.setHorizontalSpacing(10)
        self._figures_grid.setVerticalSpacing(10)
        layout.addLayout(self._figures_grid)
        self._figures = {key: FigureTile(key, frame) for key in FIGURE_KEYS}
        self._figure_columns = 0
        self._arrange_figures(3)

    def _build_issues(self) -> None:
        frame, layout = self._section("What the check found")
        self._issues_summary = QLabel(frame)
        self._issues_summary.setObjectName("issues_summary")
        self._issues_summary.setWordWrap(True)
        self._issues_summary.setStyleSheet(theme.MUTED_STYLE)
        layout.addWidget(self._issues_summary)
        self._issues_box = QVBoxLayout()
        self._issues_box.setSpacing(10)
        layout.addLayout(self._issues_box)
        self._issue_cards: list[IssueCard] = []

    def _build_categories(self) -> None:
        frame, layout = self._section("Categories")
        self._category_caption = muted_label("", frame, "category_caption")
        layout.addWidget(self._category_caption)
        self._category_slot = LazyWidget(lambda: _make_category_chart(frame), frame)
        layout.addWidget(self._category_slot)

    def _build_combinations(self) -> None:
        frame, layout = self._section("Categories that go together")
        self.combinations = CategoryCombinations(frame)
        self.combinations.setObjectName("category_combinations")
        layout.addWidget(self.combinations)
        self._combinations_section = frame

    def _build_lengths(self) -> None:
        frame, layout = self._section("Text lengths")
        self.lengths = TextLengths(frame, layout)

    def _build_duplicates(self) -> None:
        frame, layout = self._section("Identical texts")
        self.identical = IdenticalTexts(frame, layout, self.request_duplicate_rows)

    # ----- filling ----------------------------------------------------------------------------
    def _show_verdict(self, report: HealthReport) -> None:
        verdict = report.verdict
        accent, background, text = theme.SEVERITY_COLORS[verdict]
        self._banner.setProperty("verdict", verdict)
        self._banner.setStyleSheet(
            f"QFrame#verdict_banner {{ background: {background}; border: 1px solid {accent};"
            f" border-left: 6px solid {accent}; border-radius: 3px; }}"
            f" QLabel#verdict_text {{ color: {text}; }}"
        )
        self._verdict_icon.setPixmap(severity_pixmap(verdict, 28))
        self._verdict_text.setText(report.verdict_text)

    def _show_figures(self, report: HealthReport) -> None:
        values = {
            "rows": report.n_rows,
            "coded": report.n_coded,
            "uncoded": report.n_uncoded,
            "categories": len(report.categories),
            "empty": report.n_empty_texts,
            "duplicates": report.n_repeated_texts,
        }
        for key, value in values.items():
            self._figures[key].number.setText(f"{value:,}")
        self._figures["categories"].caption.setText("category" if values["categories"] == 1 else "categories")
        several = report.label_health is not None
        for key in SEVERAL_FIGURE_TIPS:  # a text can have several categories: what the figures count then
            self._figures[key].setToolTip(SEVERAL_FIGURE_TIPS[key] if several else FIGURE_CAPTIONS[key][1])
        self._figures["duplicates"].caption.setText(
            "row repeats the text of another row" if values["duplicates"] == 1 else FIGURE_CAPTIONS["duplicates"][0])

    def _set_issues(self, issues) -> None:
        for card in self._issue_cards:
            self._issues_box.removeWidget(card)
            card.hide()
            card.setParent(None)  # gone from the view at once, not only after deleteLater
            card.deleteLater()
        self._issue_cards = []
        for issue in issues:
            card = IssueCard(issue, self.rowsRequested.emit, self._issues_box.parentWidget(), on_fix=self.apply_fix)
            self._issues_box.addWidget(card)
            self._issue_cards.append(card)
        counts = {s: sum(1 for i in issues if i.severity == s) for s in ("error", "warning", "info")}
        parts = []
        if counts["error"]:
            parts.append(plural(counts["error"], "problem") + " to fix")
        if counts["warning"]:
            parts.append(plural(counts["warning"], "warning"))
        if counts["info"]:
            parts.append(plural(counts["info"], "note"))
        if not parts:
            self._issues_summary.setText("Nothing to fix: the check found no problems.")
        else:
            self._issues_summary.setText(", ".join(parts) + ".")

    def _show_categories(self, report: HealthReport) -> None:
        health = report.label_health
        if health is not None:  # a text can have several categories: each bar counts the texts with it
            cats = sorted(health.categories, key=lambda c: -c.count)
            self._category_chart.set_categories(
                [visible(c.label) for c in cats], [c.count for c in cats], [c.share for c in cats],
                [c.too_rare for c in cats])
            self._category_caption.set_plain_text(
                several_categories_caption(health) if cats else
                "No categories yet: tick the columns of your categories, or choose the column that lists them.")
            return
        cats = report.categories
        self._category_chart.set_categories(
            [visible(c.label) for c in cats], [c.count for c in cats], [c.share for c in cats], [c.too_small for c in cats]
        )
        k = report.n_folds
        if not cats:
            text = "No coded texts yet: choose the column that holds your categories."
        else:
            text = "How many coded texts each category has, largest first."
            n_small = sum(c.too_small for c in cats)
            if n_small:
                text += (
                    f" {plural(n_small, 'category', 'categories')} in orange "
                    f"{'has' if n_small == 1 else 'have'} too few examples for {k}-fold cross-validation."
                )
            else:
                text += f" Every category has enough examples for {k}-fold cross-validation."
        self._category_caption.set_plain_text(text)

    # ----- layout -----------------------------------------------------------------------------
    def scroll_position(self) -> int:
        return self._scroll.verticalScrollBar().value()

    def _scroll_to(self, position: int) -> None:
        """Scroll to ``position`` now and once the new content has its height (the cards are laid
        out after this event)."""
        self._position = position
        self._content.layout().activate()
        self._restore_position()
        if self.scroll_position() != position:
            QTimer.singleShot(0, self._restore_position)

    def _restore_position(self) -> None:
        self._scroll.verticalScrollBar().setValue(self._position)

    @staticmethod
    def _let_go_of_focus(inside: QWidget) -> None:
        """Take the keyboard focus from a widget in ``inside`` that is about to be hidden or removed:
        Qt would hand it to the next widget and scroll the view to that one."""
        focused = QApplication.focusWidget()
        if focused is not None and (focused is inside or inside.isAncestorOf(focused)):
            focused.clearFocus()

    def _arrange_figures(self, columns: int) -> None:
        if columns == self._figure_columns:
            return
        self._figure_columns = columns
        for key in FIGURE_KEYS:
            self._figures_grid.removeWidget(self._figures[key])
        for i, key in enumerate(FIGURE_KEYS):
            self._figures_grid.addWidget(self._figures[key], i // columns, i % columns)
        for column in range(6):
            self._figures_grid.setColumnStretch(column, 1 if column < columns else 0)

    def eventFilter(self, watched, event) -> bool:
        if watched is self._content and event.type() == QEvent.Type.Resize:
            width = self._content.width()
            self._arrange_figures(6 if width >= 900 else 3 if width >= 480 else 2)
        return super().eventFilter(watched, event)

    @staticmethod
    def _style_sheet() -> str:
        return (
            f"QWidget#health_content {{ background: {theme.PAGE}; }}"
            f" {theme.card_style('section_card', radius=8)}"
            f" {theme.card_style('figure_card', radius=8)}"
            f" QLabel#section_heading {{ color: {theme.HEADING_INK}; }}"
            f" QLabel {{ background: transparent; }}"
        )


def _make_category_chart(parent: QWidget) -> CategoryBarChart:
    from guiapp.ui.steps.data.charts import CategoryBarChart

    chart = CategoryBarChart(parent)
    chart.setObjectName("category_chart")
    return chart

