"""Opening a trained model from its folder, whatever its family: a fine-tuned Transformer
(safetensors, tokenizer, label map), a conventional model (``conventional_files``), a zero-shot
model (``zero_shot.json``), a SetFit model (``setfit.json``), a language model with your codebook
(``codebook_model.json``, its language model found again by folder, Hugging Face id or server) or a
combined model (``combined_model``). Opening never runs code from the folder, and reads its JSON files with the
bounded, depth-limited reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from guiapp.core.errors import UserError
from guiapp.core.experiment.results.artefacts import COMBINED_FILE
from guiapp.core.models.llm.model_file import CODEBOOK_MODEL_FILE
from guiapp.core.models.setfit.folder import SETFIT_FILE
from guiapp.core.models.transformers.sources.files import LABELS_FILE
from guiapp.core.models.zero_shot.record_file import ZERO_SHOT_FILE
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel, TransformerModel

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

        return open_combined_model(folder, name, find_part, open_trained_model)
    if (folder / LABELS_FILE).is_file():
        from guiapp.core.models.transformers.fine_tuning import load_fine_tuned

        fine_tuned, categories = load_fine_tuned(folder)
        return TransformerModel(name, fine_tuned, categories)
    if (folder / ZERO_SHOT_FILE).is_file():  # needs no coded texts: similarity or NLI
        from guiapp.core.models.zero_shot import load_zero_shot
        from guiapp.core.predict.zero_shot_model import ZeroShotTrainedModel

        return ZeroShotTrainedModel(name, load_zero_shot(folder))
    if (folder / SETFIT_FILE).is_file():  # a sentence model fine-tuned on pairs of coded texts, and its head
        from guiapp.core.predict.setfit_model import open_setfit

        return open_setfit(folder, name)
    if (folder / CODEBOOK_MODEL_FILE).is_file():  # a generative language model coding with the codebook
        from guiapp.core.predict.codebook_trained_model import open_codebook_model

        return open_codebook_model(folder, name)
    return _open_conventional(folder, name)


def _open_conventional(folder: Path, name: str) -> TrainedModel:
    from guiapp.core.experiment.families.conventional_files import MODEL_FILE, load_conventional

    if not (folder / MODEL_FILE).is_file():
        raise UserError(f"The folder {folder} does not hold a model TextLab saved.",
                        "Choose the folder of a trained model (inside the results' models folder).")
    saved = load_conventional(folder)
    return ConventionalModel(name, saved.representation, saved.classifier, saved.categories)
