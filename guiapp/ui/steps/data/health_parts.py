"""Building blocks of the data-health view: colours, severity icons, the wording of numbers,
muted captions, a key-figure tile and an issue card. Layout only; every number comes from the core's report."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from guiapp.core.health.findings import HealthIssue, LengthStats
from guiapp.core.health.label_sets import LabelHealth
from guiapp.core.study.category_fixes import visible
from guiapp.ui import theme
from guiapp.ui.common.chart_numbers import format_share
from guiapp.ui.common.eliding_button import ElidingButton
from guiapp.ui.common.flow_layout import FlowRow
from guiapp.ui.common.glossary import GlossaryLabel

SEVERITY_WORDS = {"error": "Problem", "warning": "Warning", "info": "Note"}

FIGURE_KEYS = ("rows", "coded", "uncoded", "categories", "empty", "duplicates")
FIGURE_CAPTIONS = {
    "rows": ("rows in the table", "All rows of the sheet below its header row."),
    "coded": ("coded texts", "Texts that have a category: these are used to train and test the models."),
    "uncoded": (
        "not yet coded",
        "Texts without a category. They are not used for the comparison; the chosen model can code them later.",
    ),
    "categories": ("categories", "The different codes found in your category column."),
    "empty": ("empty texts", "Rows whose text cell is empty or contains only spaces."),
    "duplicates": (
        "rows repeat the text of another row",
        "Rows whose text already appears in another row (spaces and capitals ignored); a text in 3 rows "
        "counts 2. They are listed at the bottom.",
    ),
}


def severity_pixmap(kind: str, size: int = 22) -> QPixmap:
    """A small drawn icon (no font or theme needed): a check, an exclamation mark, a cross or
    an "i" in a circle of the severity colour."""
    accent = QColor(theme.SEVERITY_COLORS.get(kind, theme.SEVERITY_COLORS["info"])[0])
    ratio = 2.0
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(accent)
    s = float(size)
    painter.drawEllipse(QRectF(0.5, 0.5, s - 1, s - 1))
    pen = QPen(QColor(theme.WHITE), max(2.0, s / 9), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
               Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    if kind == "ready":
        path = QPainterPath(QPointF(s * 0.28, s * 0.52))
        path.lineTo(QPointF(s * 0.44, s * 0.68))
        path.lineTo(QPointF(s * 0.73, s * 0.34))
        painter.drawPath(path)
    elif kind in ("not_ready", "error"):
        painter.drawLine(QPointF(s * 0.33, s * 0.33), QPointF(s * 0.67, s * 0.67))
        painter.drawLine(QPointF(s * 0.67, s * 0.33), QPointF(s * 0.33, s * 0.67))
    elif kind in ("warnings", "warning"):
        painter.drawLine(QPointF(s * 0.5, s * 0.24), QPointF(s * 0.5, s * 0.58))
        painter.drawPoint(QPointF(s * 0.5, s * 0.75))
    else:
        painter.drawLine(QPointF(s * 0.5, s * 0.45), QPointF(s * 0.5, s * 0.76))
        painter.drawPoint(QPointF(s * 0.5, s * 0.26))
    painter.end()
    return pixmap


def make_font(point_size: float, weight: QFont.Weight = QFont.Weight.Normal) -> QFont:
    font = QFont()
    font.setPointSizeF(point_size)
    font.setWeight(weight)
    return font


def muted_label(text: str, parent: QWidget, name: str) -> GlossaryLabel:
    """A caption in the report's muted colour (technical words in it explained on hover)."""
    label = GlossaryLabel(text, parent)
    label.setObjectName(name)
    label.setStyleSheet(theme.MUTED_STYLE)
    return label


def number_text(value: float) -> str:
    """A count of words or tokens as a whole number: 12.0 -> "12", 141.9 -> "142", 1234 -> "1,234"
    (a median or percentile between two texts is not a length anyone can write)."""
    return f"{int(float(value) + 0.5):,}" if value >= 0 else f"{round(value):,}"


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def show_rows_text(issue: HealthIssue) -> str:
    """The label of an issue's button: "Show 12 rows", or "Show the first 10,000 of 25,000 rows"
    when the core capped the list."""
    shown = len(issue.rows)
    total = max(issue.count, shown)
    if shown < total:
        return f"Show the first {shown:,} of {total:,} rows"
    return f"Show {plural(shown, 'row')}"


def length_summary(stats: LengthStats, unit: str) -> str:
    """"Median 12 words; 90 % of texts have at most 25 words; the longest has 310 words." """
    return (
        f"Median {number_text(stats.median)} {unit}; 90 % of texts have at most {number_text(stats.p90)} {unit}; "
        f"the longest has {number_text(stats.max)} {unit}."
    )


def over_limit_summary(stats: LengthStats) -> str | None:
    """"3.4 % of texts (152) are longer than the 512 tokens a standard Transformer reads at once…" """
    n_over = stats.over_limit_count
    if stats.limit is None or stats.share_over_limit is None or n_over is None:
        return None
    if n_over == 0:
        return f"All texts fit within the {stats.limit:,} tokens a standard Transformer reads at once."
    count = f"{n_over:,} of the {stats.n:,} sampled" if stats.sampled else f"{n_over:,}"
    return (
        f"{format_share(stats.share_over_limit)} of texts ({count}) are longer than the {stats.limit:,} "
        "tokens a standard Transformer reads at once; it only reads their beginning."
    )


def sample_note(stats: LengthStats) -> str:
    return f" Estimated from a random sample of {stats.n:,} texts." if stats.sampled else ""


class FigureTile(QFrame):
    """A big number with a caption under it."""

    def __init__(self, key: str, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("figure_card")
        caption, tip = FIGURE_CAPTIONS[key]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 12)
        layout.setSpacing(2)
        self.number = QLabel("–", self)
        self.number.setObjectName(f"figure_{key}")
        self.number.setFont(make_font(20, QFont.Weight.DemiBold))
        self.caption = QLabel(caption, self)
        self.caption.setObjectName(f"caption_{key}")
        self.caption.setWordWrap(True)
        self.caption.setFont(make_font(9.5))
        self.caption.setStyleSheet(theme.MUTED_STYLE)
        layout.addWidget(self.number)
        layout.addWidget(self.caption)
        layout.addStretch(1)
        self.setToolTip(tip)


class IssueCard(QFrame):
    """One finding: severity, title, explanation, what to do, a button to see its rows, and the
    one-click fixes it offers (``fix_button``, calling ``on_fix(action)``)."""

    def __init__(self, issue: HealthIssue, on_show_rows, parent=None, on_fix=None) -> None:
        super().__init__(parent)
        self.issue = issue
        accent, background, text = theme.SEVERITY_COLORS.get(issue.severity, theme.SEVERITY_COLORS["info"])
        self.setObjectName("issue_card")
        self.setProperty("severity", issue.severity)
        self.setProperty("code", issue.code)
        self.setStyleSheet(
            f"QFrame#issue_card {{ background: {background}; border: 1px solid {background};"
            f" border-left: 5px solid {accent}; border-radius: 3px; }}"
        )
        outer = QHBoxLayout(self)
        outer.setContentsMargins(12, 10, 14, 12)
        outer.setSpacing(12)
        icon = QLabel(self)
        icon.setObjectName("issue_icon")
        icon.setPixmap(severity_pixmap(issue.severity, 20))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        icon.setFixedWidth(22)
        outer.addWidget(icon)
        body = QVBoxLayout()
        body.setSpacing(5)
        outer.addLayout(body, 1)

        severity = QLabel(SEVERITY_WORDS.get(issue.severity, issue.severity).upper(), self)
        severity.setObjectName("issue_severity")
        severity.setFont(make_font(8, QFont.Weight.Bold))
        severity.setStyleSheet(f"color: {accent}; letter-spacing: 1px;")
        body.addWidget(severity)

        title = GlossaryLabel(issue.title, self)
        title.setObjectName("issue_title")
        title.setFont(make_font(11, QFont.Weight.DemiBold))
        title.setStyleSheet(f"color: {text};")
        body.addWidget(title)

        if issue.explanation:
            explanation = GlossaryLabel(issue.explanation, self)
            explanation.setObjectName("issue_explanation")
            body.addWidget(explanation)
        if issue.fix:
            fix = GlossaryLabel("", self)
            fix.set_plain_text(issue.fix, bold_prefix="What to do:")
            fix.setObjectName("issue_fix")
            body.addWidget(fix)
        self.fix_buttons: list[QPushButton] = []
        if issue.rows or (issue.actions and on_fix is not None):
            row = FlowRow(self)  # the buttons wrap onto a second line rather than widen the report
            row.setContentsMargins(0, 4, 0, 0)
            for action in issue.actions if on_fix is not None else ():
                fix_button = ElidingButton(action.label, self)  # a long category name is shortened
                fix_button.setObjectName("fix_button")
                fix_button.setProperty("code", issue.code)
                fix_button.setCursor(Qt.CursorShape.PointingHandCursor)
                fix_button.setStyleSheet(
                    f"QPushButton#fix_button {{ background: {theme.WHITE}; color: {accent}; border: 1px solid {accent};"
                    " border-radius: 3px; padding: 4px 10px; font-weight: 600; }"
                )
                fix_button.setToolTip("TextLab records this fix in the study and checks the data again. "
                                      "Your spreadsheet is not changed; Undo takes it back.")
                fix_button.clicked.connect(lambda _checked=False, a=action: on_fix(a))
                row.add_widget(fix_button)
                self.fix_buttons.append(fix_button)
        if issue.rows:
            self.button = QPushButton(show_rows_text(issue), self)
            self.button.setObjectName("show_rows_button")
            self.button.setProperty("code", issue.code)
            self.button.setCursor(Qt.CursorShape.PointingHandCursor)
            self.button.setToolTip("Marks these rows in the table and jumps to the first one.")
            self.button.clicked.connect(lambda: on_show_rows(list(issue.rows)))
            row.add_widget(self.button)
        if issue.rows or self.fix_buttons:
            body.addWidget(row)


# ----- several categories per text -------------------------------------------------------------------
SEVERAL_FIGURE_TIPS = {
    "coded": "Texts you coded, also those with none of the categories: these are used to train and test the models.",
    "uncoded": "Rows where every category is left empty. They are not used for the comparison; the chosen model "
               "can code them later.",
    "categories": "The categories of your study: one per ticked column, or each name found in the column that "
                  "lists them. A text can have several.",
}


def combination_words(labels: tuple[str, ...]) -> str:
    """("economy", "health") -> "economy + health"; ("economy",) -> "economy only"; () -> "none of the categories"."""
    if not labels:
        return "none of the categories"
    return " + ".join(visible(label) for label in labels) + (" only" if len(labels) == 1 else "")


def several_categories_caption(health: LabelHealth) -> str:
    """What the bars of a study with several categories per text show, and what to watch for."""
    text = ("How many coded texts have each category, largest first. A text can have several categories, "
            "so the shares add up to more than 100 %.")
    k = health.n_folds
    n_rare = len(health.too_rare)
    if n_rare:
        text += (f" {plural(n_rare, 'category', 'categories')} in orange {'has' if n_rare == 1 else 'have'} too few "
                 f"training texts for {k}-fold cross-validation (each needs at least {k}).")
    elif health.categories:
        text += f" Every category has enough texts for {k}-fold cross-validation."
    if health.n_no_category:
        n = health.n_no_category
        text += f" {plural(n, 'coded text')} {'has' if n == 1 else 'have'} none of the categories."
    if health.n_thresholded:  # (study_data loads pandas: with a report, it is there by now)
        from guiapp.core.study.study_data import thresholded_note

        text += " " + thresholded_note(health.n_thresholded)
    return text
