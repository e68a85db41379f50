"""Opening Transformer model folders and saving fine-tuned models, safely.

Only safetensors weights are ever read (``use_safetensors=True``) and no code from a model
folder is ever run (``trust_remote_code=False`` on every load, and a folder whose configuration
asks for its own code is refused in words first: ``folders.refuse_custom_code``), so opening a
model cannot execute anything, and no library ever asks the user whether to run such code.
Saving is atomic: the model is written to a temporary folder next to the target, which is
then renamed into place. Problems become :class:`UserError` s in plain words.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from guiapp.core.atomic import current_umask, fsync_folder
from guiapp.core.errors import UserError
from guiapp.core.models.transformers.sources.folders import CONFIG_LIMIT, refuse_custom_code
from guiapp.core.untrusted.json_reading import read_json_file

LABELS_FILE = "textlab_labels.json"
WEIGHTS_FILES = ("model.safetensors", "model.safetensors.index.json")
PICKLE_WEIGHTS = ("pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack")
FORMAT_VERSION = 1
_REPORT_LOGGER = "transformers.modeling_utils"


class _NoLoadReport(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "LOAD REPORT" not in str(record.msg)


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Hide transformers' loading progress bar and its "newly initialized" load report.

    A new classification head is expected when fine-tuning; the caller reports it in one line.
    (A filter, not a higher log level: transformers runs extra checks when the level is raised.)
    """
    from transformers.utils import logging as hf_logging

    logger, quiet = logging.getLogger(_REPORT_LOGGER), _NoLoadReport()
    bars = hf_logging.is_progress_bar_enabled()
    logger.addFilter(quiet)
    if bars:
        hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        logger.removeFilter(quiet)
        if bars:
            hf_logging.enable_progress_bar()


def _is_local(path: str | Path) -> bool:
    text = str(path)
    return Path(text).expanduser().exists() or Path(text).is_absolute() or text.startswith((".", "~")) or (
        "\\" in text or text.count("/") > 1
    )


def check_folder(folder: Path, what: str = "model folder") -> None:
    """UserError unless ``folder`` holds a config and safetensors weights."""
    if not folder.exists():
        raise UserError(
            f"The {what} {folder} does not exist.",
            "Check the path, or choose the folder again (it may have been moved or deleted).",
        )
    if not folder.is_dir():
        raise UserError(f"{folder} is a file, not a {what}.", "Choose the folder that holds the model's files.")
    if not (folder / "config.json").is_file():
        raise UserError(
            f"The {what} {folder} has no config.json, so it is not a Hugging Face model folder.",
            "Choose the folder that holds config.json, model.safetensors and the tokenizer files.",
        )
    refuse_custom_code(folder)
    if not any((folder / name).is_file() for name in WEIGHTS_FILES):
        if any((folder / name).is_file() for name in PICKLE_WEIGHTS):
            raise UserError(
                f"The {what} {folder} holds its weights only in an older format (.bin or similar) "
                "that can run code when opened; TextLab opens only model.safetensors files.",
                "Convert the model to safetensors (for example with Hugging Face's convert tool) "
                "or download the safetensors version of the model.",
            )
        raise UserError(
            f"The {what} {folder} has no model weights (model.safetensors is missing).",
            "Copy the complete model folder again, or choose another model.",
        )


def _damaged(folder: Path | str, exc: BaseException, what: str = "model") -> UserError:
    return UserError(
        f"The {what} in {folder} could not be opened: its files are damaged, incomplete or of "
        "an unsupported kind.",
        "Copy or download the model again; if it was saved by TextLab, train it again.",
        details=f"{type(exc).__name__}: {exc}",
    )


def load_tokenizer(path: str | Path, local: bool) -> Any:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(str(path), local_files_only=local, trust_remote_code=False)
    except Exception as exc:
        raise _damaged(path, exc, "tokenizer") from exc


MULTI_LABEL = "multi_label_classification"  # the configuration's problem_type when a text can have several categories


def is_multi_label(config: Any) -> bool:
    """Whether a model's configuration says that a text can have several categories (one
    independent probability per category) rather than exactly one."""
    return getattr(config, "problem_type", None) == MULTI_LABEL


def load_pretrained(model_path: str | Path, n_labels: int, dropout: float,
                    multi_label: bool = False) -> tuple[Any, Any, list[str]]:
    """A pretrained model with a new head for ``n_labels`` categories, its fast tokenizer, and
    the names of the newly initialised weights (the classification head). With ``multi_label``
    the configuration says so (``problem_type``), and a saved model reopens the same way."""
    from transformers import AutoConfig, AutoModelForSequenceClassification

    local = _is_local(model_path)
    if local:
        model_path = Path(model_path).expanduser()
        check_folder(model_path)
    try:
        config = AutoConfig.from_pretrained(
            str(model_path), num_labels=n_labels, local_files_only=local, trust_remote_code=False
        )
    except Exception as exc:
        if local:
            raise _damaged(model_path, exc) from exc
        raise UserError(
            f"The model {model_path} is not on this computer and could not be downloaded.",
            "Connect to the internet once to download it, or choose a model folder on this computer.",
            details=f"{type(exc).__name__}: {exc}",
        ) from exc
    if multi_label:
        config.problem_type = MULTI_LABEL
    elif is_multi_label(config):  # a multi-label model fine-tuned again for one category per text
        config.problem_type = None
    for name in ("hidden_dropout_prob", "attention_probs_dropout_prob", "dropout", "attention_dropout",
                 "seq_classif_dropout", "hidden_dropout", "attention_probs_dropout"):
        if isinstance(getattr(config, name, None), float):
            setattr(config, name, float(dropout))
    tokenizer = load_tokenizer(model_path, local)
    try:
        with quiet_loading():
            model, info = AutoModelForSequenceClassification.from_pretrained(
                str(model_path), config=config, local_files_only=local, use_safetensors=True,
                trust_remote_code=False, output_loading_info=True,
            )
    except Exception as exc:
        raise _damaged(model_path, exc) from exc
    return model, tokenizer, sorted(info.get("missing_keys", []))


def write_folder(model: Any, tokenizer: Any, folder: Path, meta: dict[str, Any]) -> None:
    """Write model, tokenizer and ``meta`` (the label map) to ``folder`` atomically."""

    def fill(tmp: Path) -> None:
        with quiet_loading():  # no "Writing model shards" progress bar on the console
            model.save_pretrained(str(tmp))
            tokenizer.save_pretrained(str(tmp))
        with (tmp / LABELS_FILE).open("w", encoding="utf-8") as handle:
            json.dump({"format": FORMAT_VERSION, **meta}, handle, indent=2, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        for extra in PICKLE_WEIGHTS + ("training_args.bin",):
            (tmp / extra).unlink(missing_ok=True)

    write_folder_atomically(folder, fill)


def write_folder_atomically(folder: Path, fill: Callable[[Path], None]) -> None:
    """``fill(temporary folder)`` beside ``folder``, then the filled folder renamed into place with the
    user's usual permissions, replacing an older ``folder`` only once the new one is complete: an
    interrupted save leaves the old folder or the new one, never half of one."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".saving", dir=folder.parent))
    old: Path | None = None
    try:
        fill(tmp)
        _usual_permissions(tmp)
        fsync_folder(tmp)
        if folder.exists():
            old = folder.with_name(f".{folder.name}.old-{uuid.uuid4().hex[:8]}")
            os.replace(folder, old)
        os.replace(tmp, folder)
        fsync_folder(folder.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not folder.exists():
            os.replace(old, folder)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _usual_permissions(folder: Path) -> None:
    """The permissions any new folder and file of the user gets (their umask), not the owner-only
    ones of ``tempfile.mkdtemp`` and of some library writes, so colleagues can open a saved model."""
    if os.name != "posix":
        return
    mask = current_umask()
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~mask)


def read_folder(folder: Path) -> tuple[Any, Any, dict[str, Any]]:
    """Model, tokenizer and label map of a folder written by :func:`write_folder`."""
    from transformers import AutoModelForSequenceClassification

    folder = Path(folder)
    check_folder(folder, "saved model folder")
    try:
        meta = read_json_file(folder / LABELS_FILE, max_bytes=CONFIG_LIMIT)
    except FileNotFoundError as exc:
        raise UserError(
            f"The folder {folder} is not a model saved by TextLab ({LABELS_FILE} is missing).",
            "Choose a folder that TextLab saved after fine-tuning, or train the model again.",
        ) from exc
    except (OSError, ValueError) as exc:
        raise _damaged(folder, exc, "saved model") from exc
    if not isinstance(meta, dict) or not isinstance(meta.get("categories"), list):
        raise UserError(
            f"The category list in {folder / LABELS_FILE} is damaged.",
            "Train the model again.",
        )
    try:
        with quiet_loading():
            model = AutoModelForSequenceClassification.from_pretrained(
                str(folder), local_files_only=True, use_safetensors=True, trust_remote_code=False
            )
    except Exception as exc:
        raise _damaged(folder, exc, "saved model") from exc
    if model.config.num_labels != len(meta["categories"]):
        raise UserError(
            f"The saved model in {folder} predicts {model.config.num_labels} categories, but its "
            f"category list names {len(meta['categories'])}.",
            "The folder's files do not belong together; train the model again.",
        )
    tokenizer = load_tokenizer(folder, True)
    return model, tokenizer, meta


__all__ = ["LABELS_FILE", "MULTI_LABEL", "check_folder", "is_multi_label", "load_pretrained", "load_tokenizer", "quiet_loading", "read_folder", "write_folder"]
