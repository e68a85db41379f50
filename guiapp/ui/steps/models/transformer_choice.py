"""The "Fine-tuned Transformer" section of the Models step: tick it, pick a model, see the time.

Below the grid of conventional models: a checkbox (never pre-ticked: fine-tuning is slow), a
list of the short list of models (``transformer_registry.registry()``) plus "Choose a model
folder…" and "Use a Hugging Face model id…", a plain description of the chosen model, the
expected time (set by the page) and where it trains. Where it trains is found once, in the
background: a :class:`Worker` imports PyTorch and asks ``pick_device()`` — importing PyTorch
takes seconds, so neither the app's start nor the window waits for it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.core.models.transformers.options import DEFAULT_MODEL, OPTION_HELP
from guiapp.core.models.transformers.sources.registry import TransformerInfo, info_for, registry
from guiapp.ui import theme
from guiapp.ui.common.glossary import GlossaryLabel, explain
from guiapp.ui.steps.models.hub_download import HubDownloadRow, needs_download
from guiapp.ui.steps.models.ticked_models import section_column, show_ticked
from guiapp.workers import Worker, WorkerSlot

CHOOSE_FOLDER = "\x00folder"  # combo entries that open a dialog rather than name a model
ENTER_HUB_ID = "\x00hub"
INTRO = (
    "Instead of turning the texts into numbers first, a pre-trained language model (a Transformer) "
    "learns your categories from the texts themselves: fine-tuning. Often the most accurate choice, "
    "but much slower than the models above: hours on a laptop, minutes with a GPU."
)
CHECKING_TEXT = "Trains on: checking for a GPU…"
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")
TERMS = ["Transformer", "fine-tuning", "GPU", "validation split", "cross-validation", "fold", "token", "weight"]


def detect_device(on_event=None):
    """Where a Transformer would train here (imports PyTorch: seconds, so only in a worker)."""
    from guiapp.core.models.transformers.fine_tuning import pick_device

    return pick_device("auto")


def _detect(on_event=None):
    return detect_device(on_event)


def source_words(info: TransformerInfo) -> str:
    """Where the model's files come from, in plain words."""
    if info.source == "bundled":
        return "comes with TextLab, ready to use"
    if info.source == "parts":
        return "unpacked once from its parts installed with TextLab (about a minute the first time)"
    if info.source == "folder":
        return "from a folder on this computer"
    megabytes = round(info.params_millions * 4 / 10) * 10  # 32-bit weights
    return f"needs a one-time download from Hugging Face (about {megabytes:,} MB)"


def model_facts(info: TransformerInfo) -> str:
    """"22.7 M weights · English · reads up to 512 tokens · comes with TextLab, ready to use"."""
    language = {"unknown": "language not known", "multilingual": "many languages"}.get(info.language, info.language)
    reads = f"reads up to {info.max_length:,} tokens"
    if info.default_max_length < info.max_length:
        reads += f" (TextLab uses {info.default_max_length:,})"
    size = f"{info.params_millions:g} M weights" if info.params_millions else "size not known"
    return " · ".join([size, language, reads, source_words(info)])


def device_words(device: Any) -> str:
    """"NVIDIA H100 80GB HBM3 (GPU)", "this computer's processor"."""
    if device is None:
        return "this computer's processor"
    if device.kind == "cuda":
        return f"{device.name} (GPU)"
    if device.kind == "mps":
        return "this Mac's graphics chip (Apple GPU)"
    return "this computer's processor"


def tuning_method(tuning: str, on_gpu: bool) -> str:
    """The method a run will use: "cross-validation" or "validation split"."""
    if tuning == "auto":
        return "cross-validation" if on_gpu else "validation split"
    return tuning


def device_sentence(device: Any, error: str, device_option: str, tuning: str, folds: int,
                    validation_share: float) -> tuple[str, str]:
    """The "Trains on: …" line and its colour, for a detected ``device`` (None: still checking)."""
    if error:
        return (f"Could not check for a GPU: {error} Without PyTorch the Transformer cannot run; "
                "reinstall TextLab to repair it."), theme.ERROR
    if device is None:
        return CHECKING_TEXT, theme.MUTED
    if device_option == "cuda" and device.kind != "cuda":
        return ("You chose the NVIDIA GPU in Advanced settings, but this computer has none: the Transformer "
                "would stop with an error. Choose “automatic” there."), theme.ERROR
    if device_option == "mps" and device.kind != "mps":
        return ("You chose the Apple GPU in Advanced settings, but this computer has none: the Transformer "
                "would stop with an error. Choose “automatic” there."), theme.ERROR
    on_cpu = device_option == "cpu" or device.kind == "cpu"
    if device_option == "cpu" and device.kind != "cpu":
        where = "this computer's processor (as chosen in Advanced settings, although a GPU was found)"
    elif on_cpu:
        where = "this computer's processor (no GPU found)"
    else:
        where = device_words(device)
    method = tuning_method(tuning, not on_cpu and device.kind == "cuda")
    share = f"{validation_share * 100:g} % of the training texts"
    if tuning == "auto" and method == "validation split":
        how = (f"settings are chosen on one validation split ({share}) instead of {folds}-fold "
               "cross-validation, to keep the time reasonable.")
    elif tuning == "auto":
        how = f"settings are chosen by {folds}-fold cross-validation, like the other models."
    elif method == "validation split":
        how = f"settings are chosen on one validation split ({share}), as set in Advanced settings."
    elif on_cpu:
        how = (f"settings are chosen by {folds}-fold cross-validation, as set in Advanced settings: "
               f"about {folds} times longer than one validation split.")
        return f"Trains on: {where} — {how}", theme.WARNING
    else:
        how = f"settings are chosen by {folds}-fold cross-validation, as set in Advanced settings."
    return f"Trains on: {where} — {how}", theme.MUTED


class TransformerChoice(QFrame):
    """The Transformer section; emits ``changed`` when ticked or when another model is chosen,
    and ``deviceChanged`` once the device is known."""

    changed = Signal()
    deviceChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transformerSection")
        self._device: Any = None
        self._device_error = ""
        self._checking = False
        self._slot = WorkerSlot(self)
        self._previous = 0
        self._context = ("auto", "auto", 5, 0.2)  # device option, tuning, folds, validation share

        title = QLabel("<b>Fine-tuned Transformer</b>", objectName="transformerTitle")
        title.setStyleSheet("font-size: 14px;")
        intro = GlossaryLabel(INTRO, terms=["Transformer", "fine-tuning", "GPU"])
        intro.setObjectName("transformerIntro")
        intro.setStyleSheet(theme.MUTED_STYLE)

        box = _Box(objectName="transformerBox")
        box.setStyleSheet(theme.tickable_card_style("transformerBox"))
        box.setProperty("ticked", False)
        self.box = box
        self.checkbox = QCheckBox("Fine-tune a Transformer", objectName="transformerCheck")
        self.checkbox.setStyleSheet("QCheckBox { font-weight: 600; } QCheckBox::indicator { width: 18px; height: 18px; }")
        self.checkbox.setToolTip(
            "Compare a fine-tuned Transformer with the models above.\n" + explain(["Transformer", "fine-tuning"]))
        self.checkbox.toggled.connect(self._toggled)
        box.box = self.checkbox
        self.estimate_label = QLabel("", objectName="transformerEstimate")
        self.estimate_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        model_label = QLabel("Model:")
        self.combo = QComboBox(objectName="transformerModel")
        self.combo.setToolTip(OPTION_HELP["model"])
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        model_label.setBuddy(self.combo)
        for info in registry():
            self._add_item(info.label, info.key, info)
        self.combo.insertSeparator(self.combo.count())
        self.combo.addItem("Choose a model folder…", CHOOSE_FOLDER)
        self.combo.setItemData(self.combo.count() - 1, (
            "Use a Transformer saved in a folder on this computer (a Hugging Face model folder "
            "with config.json, its weights and tokenizer)."), Qt.ItemDataRole.ToolTipRole)
        self.combo.addItem("Use a Hugging Face model id…", ENTER_HUB_ID)
        self.combo.setItemData(self.combo.count() - 1, (
            "Type the name of any model on huggingface.co, such as “deepset/gbert-base”; it is "
            "downloaded once."), Qt.ItemDataRole.ToolTipRole)
        self.combo.currentIndexChanged.connect(self._index_changed)

        self.description_label = QLabel("", objectName="transformerDescription")
        self.description_label.setWordWrap(True)
        self.facts_label = GlossaryLabel("", terms=["token", "weight"])
        self.facts_label.setObjectName("transformerFacts")
        self.facts_label.setStyleSheet(theme.MUTED_STYLE)
        self.problem_label = QLabel("", objectName="transformerProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(theme.ERROR_STYLE)
        self.problem_label.hide()
        # a Hugging Face model that is not on this computer yet: download it now, with consent
        self.download_row = HubDownloadRow(self.model, "transformer")
        self.download_row.finished.connect(self.changed.emit)
        self.download_label, self.download_button = self.download_row.label, self.download_row.button
        self.download_cancel, self._download_slot = self.download_row.cancel_button, self.download_row.slot
        self.device_label = GlossaryLabel(CHECKING_TEXT, terms=["GPU", "validation split", "cross-validation"])
        self.device_label.setObjectName("transformerDevice")

        top = QHBoxLayout()
        top.addWidget(self.checkbox)
        top.addStretch(1)
        top.addWidget(self.estimate_label)
        model_row = QHBoxLayout()
        model_row.setSpacing(8)
        model_row.addWidget(model_label)
        model_row.addWidget(self.combo)
        model_row.addStretch(1)
        details = QGridLayout()
        details.setContentsMargins(28, 0, 0, 0)
        details.setVerticalSpacing(4)
        details.addLayout(model_row, 0, 0)
        details.addWidget(self.problem_label, 1, 0)
        details.addWidget(self.description_label, 2, 0)
        details.addWidget(self.facts_label, 3, 0)
        details.addWidget(self.download_row, 4, 0)
        details.addWidget(self.device_label, 5, 0)
        inner = QVBoxLayout(box)
        inner.setContentsMargins(12, 10, 12, 10)
        inner.setSpacing(6)
        inner.addLayout(top)
        inner.addLayout(details)

        column = section_column(self, title, intro, spacing=4)
        column.addWidget(box)
        self._show_model()
        self._restyle()

    # -- state ------------------------------------------------------------------------------------
    def is_checked(self) -> bool:
        return self.checkbox.isChecked()

    def set_checked(self, checked: bool) -> None:
        self.checkbox.setChecked(checked)

    def model(self) -> str:
        """The chosen model as a spec names it: a short-list key, a hub id or a folder path."""
        data = self.combo.currentData()
        return data if isinstance(data, str) and not data.startswith("\x00") else DEFAULT_MODEL

    def set_model(self, source: str) -> None:
        """Choose ``source`` (added to the list when it is not on it)."""
        source = str(source or DEFAULT_MODEL)
        index = self._find(source)
        if index < 0:
            index = self._add_custom(source)
        self.combo.setCurrentIndex(index)

    def models(self) -> list[tuple[str, str]]:
        """(label, source) of every model in the list, custom ones included."""
        return [(self.combo.itemText(i), self.combo.itemData(i)) for i in range(self.combo.count())
                if isinstance(self.combo.itemData(i), str) and not self.combo.itemData(i).startswith("\x00")]

    def info(self) -> TransformerInfo:
        return info_for(self.model())

    def estimate_text(self) -> str:
        return self.estimate_label.text()

    def set_estimate(self, text: str, tip: str = "") -> None:
        self.estimate_label.setText(text)
        self.estimate_label.setToolTip(tip)

    def device_text(self) -> str:
        return self.device_label.plain_text()

    def device(self) -> Any:
        """The detected device (a DeviceInfo), or None while checking or after a failure."""
        return self._device

    def on_gpu(self) -> bool:
        """True when the Transformer would train on an NVIDIA GPU."""
        return self._device is not None and self._device.kind == "cuda" and self._context[0] != "cpu"

    def is_checking(self) -> bool:
        return self._checking

    def set_protocol(self, device_option: str, tuning: str, folds: int, validation_share: float) -> None:
        """What the Advanced settings say about the device and how settings are chosen."""
        self._context = (device_option, tuning, folds, validation_share)
        self._show_device()

    # -- device ------------------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._device is None and not self._device_error and not self._checking:
            self.start_device_check()

    def start_device_check(self) -> None:
        """Find the device in the background (PyTorch is imported there, not here)."""
        if self._checking:
            return
        self._checking = True
        self._show_device()
        worker = Worker(_detect, name="checking for a GPU")
        worker.signals.finished.connect(self._device_found)
        worker.signals.failed.connect(self._device_failed)
        worker.signals.done.connect(self._check_done)
        self._slot.start(worker)

    def cancel_jobs(self) -> None:
        self._download_slot.cancel()
        self._slot.cancel()

    def _device_found(self, device: Any) -> None:
        self._device = device
        self._device_error = ""
        self._show_device()
        self.deviceChanged.emit()

    def _device_failed(self, error: BaseException) -> None:
        self._device_error = error.message if isinstance(error, UserError) else f"{type(error).__name__}: {error}."
        self._show_device()
        self.deviceChanged.emit()

    def _check_done(self) -> None:
        self._checking = False

    def _show_device(self) -> None:
        device_option, tuning, folds, share = self._context
        text, colour = device_sentence(self._device, self._device_error, device_option, tuning, folds, share)
        self.device_label.set_plain_text(text)
        self.device_label.setStyleSheet(theme.text_style(theme.DARK_TEXT if colour == theme.MUTED else colour))

    # -- the list of models ----------------------------------------------------------------------------
    def _add_item(self, label: str, source: str, info: TransformerInfo | None, position: int | None = None) -> int:
        index = self.combo.count() if position is None else position
        self.combo.insertItem(index, label, source)
        if info is not None:
            self.combo.setItemData(index, f"{info.description}\n{model_facts(info)}.", Qt.ItemDataRole.ToolTipRole)
        return index

    def _find(self, source: str) -> int:
        for index in range(self.combo.count()):
            if self.combo.itemData(index) == source:
                return index
        from guiapp.core.models.transformers.sources.registry import registry_entry

        entry = registry_entry(source)  # another name of a short-list model
        return self._find(entry.key) if entry is not None and entry.key != source else -1

    def _custom_position(self) -> int:
        """Custom models go just above the separator."""
        for index in range(self.combo.count()):
            if self.combo.itemData(index) == CHOOSE_FOLDER:
                return index - 1
        return self.combo.count()

    def _add_custom(self, source: str) -> int:
        try:
            info = info_for(source)
        except Exception:  # noqa: BLE001 - an odd folder only means less to say about it
            info = None
        is_folder = Path(source).expanduser().is_absolute() or (info is not None and info.source == "folder")
        label = f"{Path(source).name or source} (folder)" if is_folder else f"{source} (Hugging Face)"
        index = self._add_item(label, source, info, self._custom_position())
        if is_folder:
            tip = self.combo.itemData(index, Qt.ItemDataRole.ToolTipRole) or ""
            self.combo.setItemData(index, f"{source}\n{tip}".strip(), Qt.ItemDataRole.ToolTipRole)
        return index

    def _index_changed(self, index: int) -> None:
        data = self.combo.itemData(index)
        if data in (CHOOSE_FOLDER, ENTER_HUB_ID):
            self.combo.blockSignals(True)
            self.combo.setCurrentIndex(self._previous)
            self.combo.blockSignals(False)
            if data == CHOOSE_FOLDER:
                self.choose_folder()
            else:
                self.ask_hub_id()
            return
        self._previous = index
        self.problem_label.hide()
        self._show_model()
        self._show_download_state()
        self.changed.emit()

    def choose_folder(self) -> str:
        """Ask for a folder holding a model; returns the chosen path ("" when cancelled or wrong)."""
        path = QFileDialog.getExistingDirectory(self, "Choose a folder that holds a Transformer model")
        if not path:
            return ""
        from guiapp.core.models.transformers.sources.folders import check_model_folder

        try:
            check_model_folder(path)
        except UserError as error:
            self._show_problem(f"{error.message} {error.hint}".strip())
            return ""
        self.set_model(path)
        return path

    def ask_hub_id(self) -> str:
        """Ask for a Hugging Face model id; returns it ("" when cancelled or not a valid id)."""
        text, accepted = QInputDialog.getText(
            self,
            "Use a Hugging Face model",
            "The name of a model on huggingface.co, e.g. “deepset/gbert-base” or “roberta-base”.\n"
            "It is downloaded once (this needs an internet connection the first time).",
        )
        name = text.strip() if accepted else ""
        if not name:
            return ""
        if not _HUB_ID.match(name):
            self._show_problem(
                f"“{name}” is not a Hugging Face model name. Names look like “roberta-base” or "
                "“deepset/gbert-base”: letters, numbers, - _ . and at most one “/”, without spaces.")
            return ""
        self.set_model(name)
        return name

    # -- downloading a hub model ----------------------------------------------------------------
    def needs_download(self) -> bool:
        return needs_download(self.model())

    def _show_download_state(self, text: str = "") -> None:
        self.download_row.refresh(text)

    def start_download(self) -> None:
        self.download_row.start()

    def _show_problem(self, text: str) -> None:
        self.problem_label.setText(text)
        self.problem_label.show()

    def _show_model(self) -> None:
        try:
            info = self.info()
        except Exception:  # noqa: BLE001 - say what we know
            self.description_label.setText(f"The model {self.model()}.")
            self.facts_label.set_plain_text("")
            return
        self.description_label.setText(info.description)
        self.facts_label.set_plain_text(model_facts(info))
        self.combo.setToolTip(f"{OPTION_HELP['model']}\n\n{info.description}\n{model_facts(info)}.")

    def _toggled(self) -> None:
        self._restyle()
        self.changed.emit()

    def _restyle(self) -> None:
        ticked = self.checkbox.isChecked()
        show_ticked(self.box, ticked)
        self.estimate_label.setStyleSheet(f"{theme.text_style(theme.ACCENT)} {theme.BOLD_STYLE}" if ticked else theme.MUTED_STYLE)


class _Box(QFrame):
    """The section's frame: a click on its empty part toggles the checkbox (like the grid's cells)."""

    box: QCheckBox

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        child = self.childAt(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and (child is None or isinstance(child, QLabel) and
                                                             child.objectName() == "transformerEstimate"):
            self.box.toggle()
            event.accept()
            return
        super().mouseReleaseEvent(event)
