"""A row that downloads a Hugging Face model once, with the researcher's consent.

TextLab works offline: a model named by its Hugging Face id is used only when it is already on this
computer (TextLab's own model cache, or the usual Hugging Face cache). When it is not, this row
says so and offers "Download now": config, tokenizer and safetensors weights are fetched into
TextLab's cache in the background (``core.models.transformers.sources.resolve.download_model``),
with progress and Cancel; texts are never sent anywhere. The fine-tuned Transformer and the NLI
zero-shot model each show one under their model's name.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from guiapp.workers import Worker, WorkerSlot

DOWNLOAD_TIP = ("Download the model from huggingface.co once (this needs an internet connection); "
                "TextLab keeps it on this computer, and your texts are never sent anywhere.")


def needs_download(name: str) -> bool:
    """Whether ``name`` is a Hugging Face model that is not on this computer yet (False for a folder,
    the bundled model or a name only a run can judge)."""
    from guiapp.core.models.transformers.sources.resolve import needs_download as missing

    try:
        return bool(name) and missing(name)
    except Exception:  # noqa: BLE001 - an odd name: the run explains it
        return False


class HubDownloadRow(QWidget):
    """"<model> is not on this computer yet. [Download now]", then progress with [Cancel].

    ``model`` gives the name to look for (read again at every :meth:`refresh`); ``prefix`` starts
    the object names of the row's widgets. ``finished`` is emitted after every download attempt
    (done, failed or cancelled)."""

    finished = Signal()

    def __init__(self, model: Callable[[], str], prefix: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName=f"{prefix}DownloadRow")
        self._model = model
        self.label = QLabel("", objectName=f"{prefix}Download")
        self.label.setWordWrap(True)
        self.button = QPushButton("Download now", objectName=f"{prefix}DownloadButton", toolTip=DOWNLOAD_TIP,
                                  clicked=self.start)
        self.cancel_button = QPushButton("Cancel", objectName=f"{prefix}DownloadCancel", clicked=self.cancel)
        self.slot = WorkerSlot(self)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        row.addWidget(self.cancel_button)
        self.hide()

    def is_busy(self) -> bool:
        return self.slot.is_busy()

    def refresh(self, text: str = "") -> None:
        """Show the row while the model is missing or downloading, or to say ``text`` (how the last
        download went); hide it otherwise."""
        busy = self.slot.is_busy()
        missing = busy or needs_download(self._model())
        self.setVisible(missing or bool(text))
        if text:
            self.label.setText(text)
        elif missing:
            self.label.setText(f"{self._model()} is not on this computer yet. Download it once before you run "
                               "the study.")
        self.button.setVisible(missing and not busy)
        self.cancel_button.setVisible(busy)

    def start(self) -> None:
        from guiapp.core.models.transformers.sources.resolve import download_model

        source = self._model()
        worker = Worker(download_model, source, name=f"downloading {source}")
        worker.signals.progress.connect(lambda event: self.label.setText(f"Downloading {source}: "
                                                                         f"{event.message or '…'}"))
        worker.signals.finished.connect(lambda _path: self.refresh(f"{source} is downloaded and ready."))
        worker.signals.failed.connect(lambda error: self.refresh(
            f"{getattr(error, 'message', str(error))} {getattr(error, 'hint', '')}".strip()))
        worker.signals.cancelled.connect(lambda: self.refresh("The download was cancelled."))
        worker.signals.done.connect(lambda: (self.refresh(self.label.text()), self.finished.emit()))
        self.slot.start(worker)
        self.refresh(f"Downloading {source}…")

    def cancel(self) -> None:
        self.slot.cancel()
