"""Where the language model with your codebook runs, as the Models step's card asks it.

Two sets of fields, one shown at a time:

* :class:`InTextLabFields`: a causal language model's folder (Choose folder…) or Hugging Face id,
  with the download row (consent, progress, Cancel) when a named model is not on this computer;
* :class:`ServerFields`: a language-model server's address (default Ollama's, on this computer), its
  kind (Ollama, or OpenAI-compatible: llama.cpp's llama-server, vLLM, LM Studio), the model chosen
  from the list the server gives ("Ask the server", in the background), and, for an address that is
  not this computer, a box that says the texts will leave it.

Each says in words why it cannot run as set (:meth:`problem`); the card shows that and blocks Run.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models.hub_download import HubDownloadRow, needs_download
from guiapp.workers import Worker, WorkerSlot

LOCAL_EXAMPLE = "Qwen/Qwen2.5-0.5B-Instruct"
DEFAULT_ADDRESS = "http://127.0.0.1:11434"
SERVER_KINDS = (("ollama", "Ollama"), ("openai", "OpenAI-compatible (llama.cpp server, vLLM, LM Studio)"))
LOCAL_TIP = ("An instruction-tuned language model that writes text (e.g. Qwen/Qwen2.5-0.5B-Instruct, "
             "meta-llama/Llama-3.2-1B-Instruct): the folder that holds it, or its name on Hugging Face.")
LOCAL_NOTE = ("A folder on this computer, or the model's name on Hugging Face: a named model not on this computer "
              "yet is downloaded once with “Download now” (this needs the internet; your texts never leave the "
              "computer). It runs on the graphics card when there is one, else on the processor (slow for large "
              "models).")
ADDRESS_TIP = ("The server's address: Ollama listens on http://127.0.0.1:11434, llama.cpp's llama-server on "
               "http://127.0.0.1:8080, LM Studio on http://127.0.0.1:1234.")
CONSENT_TEXT = "I agree that my texts are sent to {host} and leave this computer."
CONSENT_TIP = ("The server is on another computer: every text to code, the codebook and the examples are sent "
               "there. Tick only when your data may be shared with that computer.")


class InTextLabFields(QWidget):
    """The model's folder or Hugging Face id, with the download row; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="codebookLocalFields")
        self.model_edit = QLineEdit(objectName="codebookLocalModel", toolTip=LOCAL_TIP)
        self.model_edit.setPlaceholderText(f"e.g. {LOCAL_EXAMPLE}, or a folder")
        self.model_edit.setAccessibleName("Language model name or folder")
        self.model_edit.textChanged.connect(self._edited)
        self.folder_button = QPushButton("Choose folder…", objectName="codebookLocalFolder",
                                         toolTip="Choose the folder on this computer that holds the language model.",
                                         clicked=self.choose_folder)
        label = QLabel("Language model:", toolTip=LOCAL_TIP)
        label.setBuddy(self.model_edit)
        self.download = HubDownloadRow(self.model, "codebookLocal")
        self.download.finished.connect(self._edited)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        grid.addWidget(label, 0, 0)
        grid.addWidget(self.model_edit, 0, 1)
        grid.addWidget(self.folder_button, 0, 2)
        grid.addWidget(muted_note(LOCAL_NOTE, "codebookLocalNote"), 1, 1, 1, 2)
        grid.addWidget(self.download, 2, 1, 1, 2)
        grid.setColumnStretch(1, 1)

    def model(self) -> str:
        return self.model_edit.text().strip()

    def set_model(self, model: str) -> None:
        self.model_edit.blockSignals(True)
        self.model_edit.setText(model)
        self.model_edit.blockSignals(False)
        self.download.refresh()

    def choose_folder(self) -> str:
        path = QFileDialog.getExistingDirectory(self, "Choose the folder that holds the language model")
        if path:
            self.model_edit.setText(path)
        return path

    def problem(self) -> tuple[str, str]:
        """Why the model cannot be used as set, and what to do ("" when it can, or only the run can tell)."""
        from guiapp.core.models.transformers.sources.resolve import is_local_path

        name = self.model()
        if not name:
            return (f"Type the name of the language model (e.g. {LOCAL_EXAMPLE}) or choose its folder.", "")
        try:
            if is_local_path(name):
                folder = Path(name).expanduser()
                if not folder.is_dir():
                    return (f"There is no folder {name} on this computer.",
                            "Choose the folder that holds the language model.")
                return _not_a_language_model(folder)
        except (OSError, ValueError):  # an odd name: the run says what is wrong with it
            return "", ""
        if needs_download(name):
            return (f"The language model {name} is not on this computer.",
                    "Download it once with “Download now” below (this needs the internet), or choose the folder "
                    "that holds it.")
        return "", ""

    def cancel(self) -> None:
        self.download.cancel()

    def _edited(self) -> None:
        if not self.download.is_busy():
            self.download.refresh()
        self.changed.emit()


def _not_a_language_model(folder: Path) -> tuple[str, str]:
    """Words when ``folder`` holds a model but not one that writes text ("" when it does, or when only the
    run can tell)."""
    from guiapp.core.models.llm.causal_model import is_causal_model_folder

    if not (folder / "config.json").is_file():
        return (f"The folder {folder} holds no language model (there is no config.json in it).",
                "Choose the folder that holds the model's config.json, tokenizer and weights.")
    try:
        causal = is_causal_model_folder(folder)
    except (UserError, OSError, ValueError):
        return "", ""
    if not causal:
        return (f"The model in {folder} does not write text, so it cannot answer with a category.",
                "Choose an instruction-tuned model that writes text (e.g. a Qwen, Llama or Gemma “Instruct” "
                "model).")
    return "", ""


def list_server_models(address: str, protocol: str, on_event=None) -> list[str]:  # noqa: ANN001
    """The names of the models the server at ``address`` offers (run in the background). Asking for the list
    sends none of the texts, so it needs no consent; coding with the server does."""
    from guiapp.core.models.llm.server_address import check_server_address
    from guiapp.core.models.llm.server_client import ServerClient

    checked = check_server_address(address, protocol, texts_may_leave_computer=True)
    return [model.name for model in ServerClient(checked, protocol, timeout=10.0).list_models()]


class ServerFields(QWidget):
    """Address, kind, model and consent of a language-model server; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="codebookServerFields")
        self.address_edit = QLineEdit(DEFAULT_ADDRESS, objectName="codebookServerAddress", toolTip=ADDRESS_TIP)
        self.address_edit.setAccessibleName("Server address")
        self.address_edit.textChanged.connect(self._server_changed)
        self.kind_combo = QComboBox(objectName="codebookServerKind")
        for key, text in SERVER_KINDS:
            self.kind_combo.addItem(text, key)
        self.kind_combo.setToolTip("How TextLab talks to the server: Ollama's own chat, or the OpenAI-compatible "
                                   "chat that llama.cpp's llama-server, vLLM and LM Studio speak.")
        self.kind_combo.currentIndexChanged.connect(self._server_changed)
        self.model_combo = QComboBox(objectName="codebookServerModel", editable=True)
        self.model_combo.setToolTip("The server's model to code with: ask the server for its list, or type the name.")
        self.model_combo.lineEdit().setPlaceholderText("Ask the server for its models, or type a name")
        self.model_combo.setAccessibleName("Server model")
        self.model_combo.currentTextChanged.connect(self._edited)
        self.ask_button = QPushButton("Ask the server", objectName="codebookAskServer",
                                      toolTip="Ask the server which models it offers (nothing of your texts is sent).",
                                      clicked=self.ask_server)
        self.answer_label = muted_note("", "codebookServerAnswer")
        self.answer_label.hide()  # shown with the server's answer
        self.consent_box = QCheckBox(objectName="codebookConsent", toolTip=CONSENT_TIP)
        self.consent_box.setStyleSheet(theme.text_style(theme.REASON))
        self.consent_box.toggled.connect(self._edited)
        self.slot = WorkerSlot(self)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        for row, (text, field) in enumerate((("Address:", self.address_edit), ("Kind of server:", self.kind_combo))):
            label = QLabel(text)
            label.setBuddy(field)
            grid.addWidget(label, row, 0)
            grid.addWidget(field, row, 1, 1, 2)
        model_label = QLabel("Model:")
        model_label.setBuddy(self.model_combo)
        grid.addWidget(model_label, 2, 0)
        grid.addWidget(self.model_combo, 2, 1)
        grid.addWidget(self.ask_button, 2, 2)
        grid.addWidget(self.answer_label, 3, 1, 1, 2)
        grid.addWidget(self.consent_box, 4, 1, 1, 2)
        grid.setColumnStretch(1, 1)
        self._show_consent()

    # -- values ----------------------------------------------------------------------------------------
    def address(self) -> str:
        return self.address_edit.text().strip()

    def protocol(self) -> str:
        return str(self.kind_combo.currentData())

    def model(self) -> str:
        return self.model_combo.currentText().strip()

    def consent(self) -> bool:
        """The researcher's agreement that the texts leave this computer (only for another computer)."""
        return self.consent_box.isChecked() and self.remote_host() is not None

    def set_values(self, address: str, protocol: str, model: str, consent: bool) -> None:
        widgets = (self.address_edit, self.kind_combo, self.model_combo, self.consent_box)
        for widget in widgets:
            widget.blockSignals(True)
        self.address_edit.setText(address or DEFAULT_ADDRESS)
        index = self.kind_combo.findData(protocol)
        self.kind_combo.setCurrentIndex(max(index, 0))
        self.model_combo.setEditText(model)
        self.consent_box.setChecked(bool(consent))
        for widget in widgets:
            widget.blockSignals(False)
        self._show_consent()

    def remote_host(self) -> str | None:
        """The host when the address names another computer; None for this computer or a wrong address."""
        from guiapp.core.models.llm.server_address import check_server_address

        try:
            checked = check_server_address(self.address(), self.protocol(), texts_may_leave_computer=True)
        except UserError:
            return None
        return None if checked.on_this_computer else checked.host

    def problem(self) -> tuple[str, str]:
        """Why the server cannot be used as set, and what to do ("" when it can, as far as the window knows)."""
        from guiapp.core.models.llm.server_address import check_server_address

        try:
            check_server_address(self.address(), self.protocol(), texts_may_leave_computer=True)
        except UserError as error:
            return error.message, error.hint or ""
        host = self.remote_host()
        if host is not None and not self.consent_box.isChecked():
            return (f"The server at {host} is not this computer: tick the box that says your texts may be sent "
                    "there, or use a server on this computer.", "")
        if not self.model():
            return ("Choose the server's model: “Ask the server” lists the models it offers.", "")
        return "", ""

    # -- asking the server ------------------------------------------------------------------------------
    def ask_server(self) -> None:
        """List the server's models in the background; the answer, or why there is none, in words."""
        if self.slot.is_busy():
            return
        address, protocol = self.address(), self.protocol()
        worker = Worker(list_server_models, address, protocol, light=True,
                        name=f"asking {address} for its models")
        worker.signals.finished.connect(self._listed)
        worker.signals.failed.connect(self._not_listed)
        worker.signals.done.connect(lambda: self.ask_button.setEnabled(True))
        self.ask_button.setEnabled(False)
        self._say(f"Asking {address} for its models…")
        self.slot.start(worker)

    def is_busy(self) -> bool:
        return self.slot.is_busy()

    def _listed(self, names: list[str]) -> None:
        typed = self.model()
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        self.model_combo.addItems(names)
        self.model_combo.setEditText(typed if typed in names or not names else names[0])
        self.model_combo.blockSignals(False)
        if names:
            self._say(f"The server offers {len(names)} model{'s' if len(names) != 1 else ''}: "
                                      f"{', '.join(names[:6])}{'…' if len(names) > 6 else ''}.")
        else:
            self._say("The server answers but offers no model yet: load or pull one there "
                                      "(e.g. ollama pull llama3.2), then ask again.")
        self.changed.emit()

    def _not_listed(self, error: Exception) -> None:
        message = getattr(error, "message", "") or "The server could not be asked for its models."
        hint = getattr(error, "hint", "") or ""
        self._say(f"{message} {hint}".strip(), problem=True)

    def cancel(self) -> None:
        self.slot.cancel()

    def _say(self, text: str, *, problem: bool = False) -> None:
        self.answer_label.setText(text)
        self.answer_label.setStyleSheet(theme.text_style(theme.REASON) if problem else theme.MUTED_STYLE)
        self.answer_label.setVisible(bool(text))

    # -- showing -----------------------------------------------------------------------------------------
    def _show_consent(self) -> None:
        host = self.remote_host()
        self.consent_box.setText(CONSENT_TEXT.format(host=host or "that computer"))
        self.consent_box.setVisible(host is not None)

    def _server_changed(self) -> None:
        """Another address or kind: the last answer was another server's."""
        if not self.slot.is_busy():
            self._say("")
        self._edited()

    def _edited(self) -> None:
        self._show_consent()
        self.changed.emit()

