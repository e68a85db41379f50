"""TextLab's look in one place: the named colours of every screen and chart, and the style sheets of
the roles that recur — notes and problems, headings, notice panels, cards, rules, buttons, the
list of steps. Widgets take their colours from here and never write one themselves.

A Python module rather than a ``.qss`` file: the same names colour style sheets, the brushes of
table models and the pens of pyqtgraph charts, and many styles depend on a state (a verdict, a
ticked card, how a run ended) that a fixed style sheet cannot choose between.
"""

from __future__ import annotations

# ----- text -----------------------------------------------------------------------------------------
INK = "#222222"  # chart text, the ordinary lines of the run's log
HEADING_INK = "#1f2933"  # section headings of the data check
DARK_TEXT = "#333333"  # titles of empty steps, plain status lines
SOFT_TEXT = "#444444"  # second lines: which study, a model's summary, a stage
NOTE_TEXT = "#555555"  # notes and captions under a result
MUTED = "#5a6270"  # blue-grey: what a setting does, captions of figures, rows too small to judge
HINT_TEXT = "#666666"  # hints ("… or drop a file"), chart axes and subtitles
FAINT_TEXT = "#777777"  # the message of an empty chart or view; a model still waiting
STAMP_TEXT = "#888888"  # the time stamps of the run's log
DISABLED_LINK = "#999999"  # a link that cannot be followed now
DISABLED_ACCENT = "#8a94a3"  # the Next button while the next step is not ready
ABSENT_TEXT = "#9aa1ab"  # the dash of a model that cannot be built
WHITE = "#ffffff"

# ----- blues: choices, links, things in progress ----------------------------------------------------
ACCENT = "#0b3d91"  # the chosen step, the Next button, the estimate of a ticked model
LINK = "#0b57d0"  # a button that reads like a link ("Change…")
TERM_LINK = "#1f4e79"  # technical terms underlined in a sentence
PRIMARY = "#1f6fb2"  # the Run button; notes of the data check
PRIMARY_HOVER = "#185a91"
PRIMARY_DISABLED = "#c3ccd7"
PRIMARY_DISABLED_TEXT = "#f4f6f9"
GO = "#1f5fa8"  # "See the results →"; a model that is running
GO_HOVER = "#174a85"
INFO_TEXT = "#143d61"  # the text of a note of the data check
INFO_BACKGROUND = "#eef5fc"
INFO_BORDER = "#c9dcf0"  # the applied category fixes
RUNNING_BACKGROUND = "#f6f9fe"  # the card of a model that is running
RUNNING_BORDER = "#8fb3de"
TICKED_BACKGROUND = "#e8f0fc"  # a ticked model card
TICKED_BORDER = "#8fb3e8"
HEADLINE_BACKGROUND = "#eef3f9"  # the sentence above a comparison
HEADLINE_BORDER = "#c9d6e6"
NEWS_BACKGROUND = "#e3f2fd"  # what changed in the data, a subset being shown
NEWS_BORDER = "#90caf9"
AGREE_BACKGROUND = "#e3edf8"  # an answer that agrees with the coding (as the confusion matrix's blue)
SIDEBAR = "#f3f5f8"  # the list of steps and the name above it
SIDEBAR_SELECTED = "#dbe7f7"
PANEL_TINT = "#f7f9fc"  # a panel unfolded under a line

# ----- greens: done, best ----------------------------------------------------------------------------
GOOD = "#2e7d32"  # ready, done, the best model, "your texts stay here"
GOOD_STRONG = "#1b5e20"  # a finished model's score, a clear difference
GOOD_TEXT = "#1b4d1f"
GOOD_BACKGROUND = "#e8f5e9"
GOOD_BORDER = "#a5d6a7"
CHOSEN_BACKGROUND = "#e3f1e4"  # the setting the tuning chose

# ----- reds: problems ---------------------------------------------------------------------------------
ERROR = "#c62828"  # a problem to correct, a model that failed
ERROR_STRONG = "#b71c1c"  # why a model did not finish
ERROR_TEXT = "#5f1b1b"
ERROR_BACKGROUND = "#fdecea"
ERROR_BORDER = "#f5c6cb"
FIELD_ERROR_BACKGROUND = "#fdf1f0"  # a field with a wrong value; a problem card of the data check
FAILED_BACKGROUND = "#fff8f8"  # the card of a model that failed
FAILED_BORDER = "#f1b0b0"
PROBLEM = "#b03a2e"  # dark red: a limit line in a chart, a learning curve that could not be drawn
FLAG_BACKGROUND = "#fde8e4"  # a group of texts with clearly more mistakes
FLAG_TEXT = "#8a1c12"

# ----- ambers: look at this ---------------------------------------------------------------------------
WARNING = "#a15c00"  # warnings in the log, a Transformer that will be slow
REASON = "#8a4b00"  # why Run cannot start yet
CAUTION_NOTE = "#8a5a00"  # a note that a choice is slow
CANCELLED = "#8d6e00"  # a model that was cancelled
WEAK = "#b05a00"  # a category the model mostly misses
WARNING_ACCENT = "#c77700"  # warnings of the data check
WARNING_TEXT = "#5c3800"
WARNING_BACKGROUND = "#fff4e0"
WARNING_BORDER = "#f0c36d"
WARNING_CARD = "#fff8ec"  # a warning card of the data check
CAUTION_TEXT = "#3d2a00"
CAUTION_BACKGROUND = "#fff8e1"  # read these results with care
CAUTION_BORDER = "#ffe082"
DISK_BACKGROUND = "#fff3cd"  # the data file changed on disk
DISK_BORDER = "#ffcc66"
HIGHLIGHT = "#ffe58a"  # rows the user asked to see from the data check
DISAGREE_BACKGROUND = "#fbe6d5"  # an answer that differs from the coding (as the confusion matrix's orange)

# ----- greys of panels and cards ------------------------------------------------------------------------
PAGE = "#f5f6f8"  # behind cards
BORDER = "#dde1e6"  # around cards, above a bar of buttons
ROW_BORDER = "#dde2e8"  # around a model's card on the Run step

# ----- charts -------------------------------------------------------------------------------------------
BAR_COLOR = "#4a7fb5"  # calm blue
FLAG_COLOR = "#d9822b"  # amber: "look at this"
LIMIT_COLOR = PROBLEM  # dark red dashed line
OVER_LIMIT_COLOR = "#e3a063"
TEXT_COLOR = INK
AXIS_COLOR = HINT_TEXT
BEST_COLOR = GOOD  # the model that agrees best with the coding
WHISKER_COLOR = DARK_TEXT
CHOSEN_COLOR = "#1b3a66"  # dark blue: the model whose details are shown
EARLIER_COLOR = "#a9b6c6"  # the loss of an earlier training run
EARLIER_TEXT = "#7d8a99"
AGREE_RGB = (31, 95, 168)  # confusion matrix: blue cells, model and coder agree
DISAGREE_RGB = (217, 110, 30)  # orange cells: a mistake
EMPTY_CELL_RGB = (246, 247, 249)
LABEL_FILL_RGBA = (255, 255, 255, 220)  # behind a label on a chart: white, a little see-through
ATTENTION_RGB = ((255, 255, 255), (158, 154, 200), (63, 0, 125))  # ColorBrewer Purples, light to dark
# distinct, colour-blind-friendly (Tableau 10); categories beyond ten repeat them dashed
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
           "#ff9da7", "#5b5b5b")

# ----- states -------------------------------------------------------------------------------------------
# a verdict or severity of the data check -> (accent, background, text)
SEVERITY_COLORS: dict[str, tuple[str, str, str]] = {
    "ready": (GOOD, GOOD_BACKGROUND, GOOD_TEXT),
    "warnings": (WARNING_ACCENT, WARNING_BACKGROUND, WARNING_TEXT),
    "not_ready": (ERROR, ERROR_BACKGROUND, ERROR_TEXT),
    "error": (ERROR, FIELD_ERROR_BACKGROUND, ERROR_TEXT),
    "warning": (WARNING_ACCENT, WARNING_CARD, WARNING_TEXT),
    "info": (PRIMARY, INFO_BACKGROUND, INFO_TEXT),
}
# a model's state on the Run step -> its colour
STATE_COLORS = {"waiting": FAINT_TEXT, "running": GO, "done": GOOD, "failed": ERROR, "cancelled": CANCELLED,
                "skipped": FAINT_TEXT}
# the columns of the data table by role -> (cell tint, header tint)
ROLE_TINTS: dict[str, tuple[str, str]] = {
    "text": ("#eef4fb", "#d6e6f7"),
    "category": ("#fdf3e6", "#f9dfb9"),
    "id": ("#eef6f6", "#d3e8e8"),
    "split": ("#eef7ee", "#d3ebd3"),
    "metadata": ("#f5f0fa", "#e4d8f0"),
}
DEFAULT_TINT = ("#f4f4f4", "#e2e2e2")
# a notice panel -> (background, border)
NOTICES = {
    "caution": (CAUTION_BACKGROUND, CAUTION_BORDER),
    "warning": (WARNING_BACKGROUND, WARNING_BORDER),
    "problem": (ERROR_BACKGROUND, ERROR_BORDER),
    "news": (NEWS_BACKGROUND, NEWS_BORDER),
    "done": (GOOD_BACKGROUND, GOOD_BORDER),
    "disk": (DISK_BACKGROUND, DISK_BORDER),
}


# ----- styles of the recurring roles ---------------------------------------------------------------------
def text_style(colour: str) -> str:
    return f"color: {colour};"


NOTE_STYLE = text_style(NOTE_TEXT)  # a note or caption under a result
SOFT_STYLE = text_style(SOFT_TEXT)  # a second line
MUTED_STYLE = text_style(MUTED)  # what a setting does, a caption
HINT_STYLE = text_style(HINT_TEXT)  # a hint
ERROR_STYLE = text_style(ERROR)  # a problem to correct
BOLD_STYLE = "font-weight: 600;"  # a small heading: a title above a chart, a table or a list
FIELD_ERROR_STYLE = f"QLineEdit {{ border: 1px solid {ERROR}; background: {FIELD_ERROR_BACKGROUND}; }}"


def heading_style(size: int) -> str:
    """A title of ``size`` pixels, semi-bold."""
    return f"font-size: {size}px; font-weight: 600;"


def notice_style(kind: str, padding: str = "4px 8px", radius: int = 4) -> str:
    """A coloured panel around a notice: ``kind`` is one of :data:`NOTICES`."""
    background, border = NOTICES[kind]
    padding_part = f" padding: {padding};" if padding else ""
    return f"background: {background}; border: 1px solid {border};{padding_part} border-radius: {radius}px;"


def card_style(name: str, background: str = WHITE, border: str = BORDER, radius: int = 6) -> str:
    """A card: the frame called ``name`` with a background, a thin border and round corners."""
    return f"QFrame#{name} {{ background: {background}; border: 1px solid {border}; border-radius: {radius}px; }}"


def tickable_card_style(name: str) -> str:
    """A card that turns blue while its ``ticked`` property is true (a model chosen for the study)."""
    return (card_style(name)
            + f'QFrame#{name}[ticked="true"] {{ background: {TICKED_BACKGROUND}; border: 1px solid {TICKED_BORDER}; }}')


def top_rule_style(name: str, background: str = "") -> str:
    """A line above the frame called ``name`` (a bar of buttons, a panel under the page)."""
    fill = f" background: {background};" if background else ""
    return f"QFrame#{name} {{ border-top: 1px solid {BORDER};{fill} }}"


def headline_style(name: str) -> str:
    """The framed sentence that sums up a comparison, above its tables (the label called ``name``)."""
    return (f"QLabel#{name} {{ background: {HEADLINE_BACKGROUND}; border: 1px solid {HEADLINE_BORDER}; "
            "border-radius: 4px; padding: 8px 10px; }")


LINK_BUTTON_STYLE = (f"QPushButton {{ border: none; color: {LINK}; text-decoration: underline; padding: 0 2px; }}"
                     f"QPushButton:disabled {{ color: {DISABLED_LINK}; }}")
RUN_BUTTON_STYLE = (  # the Models step's large Run button
    f"QPushButton#runButton {{ background: {PRIMARY}; color: white; font-size: 15px; font-weight: 600;"
    " padding: 10px 26px; border-radius: 6px; border: none; }"
    f"QPushButton#runButton:hover {{ background: {PRIMARY_HOVER}; }}"
    f"QPushButton#runButton:disabled {{ background: {PRIMARY_DISABLED}; color: {PRIMARY_DISABLED_TEXT}; }}"
)
GO_BUTTON_STYLE = (  # the button that goes on to what a finished job made ("See the results →")
    f"QPushButton {{ background: {GO}; color: white; font-weight: 600; font-size: 14px;"
    f" padding: 7px 18px; border-radius: 5px; }} QPushButton:hover {{ background: {GO_HOVER}; }}"
)
NEXT_STEP_STYLE = (
    f"QPushButton#nextStep {{ color: {ACCENT}; font-weight: 600; padding: 3px 14px; }}"
    f"QPushButton#nextStep:disabled {{ color: {DISABLED_ACCENT}; }}"
)
STEP_LIST_STYLE = (  # the list of steps on the left of the window
    f"QListWidget {{ background: {SIDEBAR}; border: none; font-size: 14px; padding-top: 8px; }}"
    "QListWidget::item { padding: 10px 12px; border-radius: 6px; }"
    f"QListWidget::item:selected {{ background: {SIDEBAR_SELECTED}; color: {ACCENT}; }}"
)
BRAND_STYLE = f"font-size: 18px; font-weight: 700; padding: 14px 12px 4px 16px; background: {SIDEBAR};"  # above it
