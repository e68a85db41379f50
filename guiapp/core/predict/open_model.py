"""Opening a trained model from its folder, whatever its family: a fine-tuned Transformer
(safetensors, tokenizer, label map), a conventional model (``conventional_files``) or a combined
model (``combined_model``). Opening never runs code from the folder, and reads its JSON files
with the bounded, depth-limited reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from guiapp.core.errors import UserError
from guiapp.core.experiment.artefacts import COMBINED_FILE
from guiapp.core.models.transformers.sources.files import LABELS_FILE
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel, TransformerModel
from guiapp.core.untrusted.json_reading import read_json_file
from guiapp.core.untrusted.paths import path_problem

COMBINED_LIMIT = 16 << 20  # a combined model's one JSON file: the parts' names and a few numbers

PartFinder = Callable[[str], "Path | None"]


def open_trained_model(folder: str | Path, name: str = "", find_part: PartFinder | None = None) -> TrainedModel:
    """Open the model saved in ``folder``; a :class:`UserError` says why when it cannot be used.

    A combined model's parts are found by ``find_part(part name)`` when given, else beside its
    folder (where a run, a results folder and an opened project put them)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"The trained model “{name or folder.name}” is not where it was saved ({folder}).",
                        "Run the study again to train it, or open the project that holds it.")
    name = name or folder.name
    if (folder / COMBINED_FILE).is_file():
        from guiapp.core.predict.combined_model import open_combined_model

        _check_readable(folder / COMBINED_FILE, name)
        return open_combined_model(folder, name, find_part, open_trained_model)
    if (folder / LABELS_FILE).is_file():
        from guiapp.core.models.transformers.fine_tuning import load_fine_tuned

        fine_tuned, categories = load_fine_tuned(folder)
        return TransformerModel(name, fine_tuned, categories)
    return _open_conventional(folder, name)


def _open_conventional(folder: Path, name: str) -> TrainedModel:
    from guiapp.core.experiment.conventional_files import MODEL_FILE, load_conventional

    if not (folder / MODEL_FILE).is_file():
        raise UserError(f"The folder {folder} does not hold a model TextLab saved.",
                        "Choose the folder of a trained model (inside the results' models folder).")
    saved = load_conventional(folder)
    return ConventionalModel(name, saved.representation, saved.classifier, saved.categories)


def _check_readable(path: Path, name: str) -> None:
    """UserError unless ``path`` is JSON of a sane size and depth whose parts' folders are plain
    names that fit any file system (the combined model's own reader then reads it again)."""
    try:
        data = read_json_file(path, max_bytes=COMBINED_LIMIT)
        parts = data.get("parts") if isinstance(data, dict) else None
        for part in parts if isinstance(parts, list) else []:
            folder = part.get("folder") if isinstance(part, dict) else None
            if isinstance(folder, str) and folder and (problem := path_problem(folder) or ("/" in folder and "is a path")):
                raise ValueError(f"the folder of its part {folder[:60]!r} {problem}")
    except (OSError, ValueError) as error:
        raise UserError(f"The combined model “{name}” cannot be opened: its file {path.name} cannot be read ({error}).",
                        "The folder may be damaged or was not written by TextLab; run the study again to build "
                        "the combined models.") from None
