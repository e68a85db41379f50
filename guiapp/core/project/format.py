"""The ``.textlab`` project file: what it holds, and the rules every member name follows.

A project file is a zip archive of plain, safe files — never a pickle:

==============================  ===========================================================
member                          what it holds
==============================  ===========================================================
``project.json``                format name and version, TextLab's version, when it was
                                saved, the original table's name and SHA-256, the model
                                folders (model name → folder) and the SHA-256 and size of
                                every other member (the index)
``study.json``                  the study: ``ExperimentSpec.to_dict()``
``data/table.parquet``          a snapshot of the loaded table
``data/test_table.parquet``     a snapshot of the separate test table, if one was used
``results.json``                ``ExperimentResult.to_json(include_texts=True)``, if a run finished
``models/<folder>/…``           the trained models' folders as a run saved them
                                (safetensors, JSON, skops)
``ui.json``                     the window's state (current step, chosen columns, …)
``explanations/<model>.json``   explanations already computed (word attributions and their
                                faithfulness, one JSON file per model; see
                                ``core/explain/cache.py``), so reopening need not redo them
``codebook.json``               the codebook of the Coding step (``Codebook.to_dict()``), if any
``codings.json``                every coding made in TextLab (``CodingLog.to_dict()``), if any
``data/coding_texts.parquet``   a snapshot of the second file of texts to code, if one was used
``data/predicted.parquet``      the texts predicted on the Predict step, as read (format 2)
``data/answers.parquet``        every model's answers and chances for them (format 2; see
                                ``core/predict/predicted_texts.py``)
``predictions.json``            what those answers are: models, categories, warnings, where the
                                texts came from (format 2)
``findings.json``               the findings last shown on the Findings step, with what they
                                measured (format 2; ``core/findings/kept_findings.py``)
==============================  ===========================================================

A project is written in the lowest format that holds it: format 1 unless it keeps predictions or
findings (format 2), so an older TextLab still opens a project without them, and says "update"
for one with them.

Opening checks every member name before anything is read or written: no absolute paths, no
``..``, no name longer than file systems allow, only the members above, and no file whose ending
says pickle (``.pkl``, ``.joblib``, …). It also checks every member's size before unpacking it:
no more than its kind can need (:func:`member_limit`), no more than deflate can honestly shrink
(:func:`inflation_limit`), and all of them together no more than :data:`TOTAL_LIMIT`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.codings import CodingLog
from guiapp.core.errors import UserError
from guiapp.core.untrusted.paths import path_problem, short_name

if TYPE_CHECKING:  # not imported at run time: listing autosaves needs neither (nor scikit-learn)
    import pandas as pd

    from guiapp.core.experiment.results.experiment_result import ExperimentResult
    from guiapp.core.findings.kept_findings import KeptFindings
    from guiapp.core.predict.predicted_texts import PredictedTexts
    from guiapp.core.study.spec import ExperimentSpec

FORMAT_NAME = "textlab-project"
FORMAT_VERSION = 2  # the newest format this TextLab reads and writes
SUFFIX = ".textlab"

PROJECT_JSON = "project.json"
STUDY_JSON = "study.json"
TABLE = "data/table.parquet"
TEST_TABLE = "data/test_table.parquet"
RESULTS_JSON = "results.json"
UI_JSON = "ui.json"
LEARNING_CURVE_JSON = "learning-curve.json"
CODEBOOK_JSON = "codebook.json"
CODINGS_JSON = "codings.json"
CODING_TEXTS = "data/coding_texts.parquet"
PREDICTED_TEXTS = "data/predicted.parquet"
PREDICTION_ANSWERS = "data/answers.parquet"
PREDICTIONS_JSON = "predictions.json"
FINDINGS_JSON = "findings.json"
FORMAT_2_MEMBERS = frozenset({PREDICTED_TEXTS, PREDICTION_ANSWERS, PREDICTIONS_JSON, FINDINGS_JSON})
MODELS = "models/"
EXPLANATIONS = "explanations/"
_EXPLANATION_NAME = re.compile(r"^[A-Za-z0-9._-]{1,120}\.json$")
SINGLE_MEMBERS = frozenset({STUDY_JSON, TABLE, TEST_TABLE, RESULTS_JSON, UI_JSON, LEARNING_CURVE_JSON,
                            CODEBOOK_JSON, CODINGS_JSON, CODING_TEXTS}) | FORMAT_2_MEMBERS

_MB, _GB = 1 << 20, 1 << 30
# The most each member can need once inflated. A project beyond them is refused before anything is
# unpacked or read: a small file that inflates to gigabytes is a zip bomb, not a study.
_MEMBER_LIMITS = {PROJECT_JSON: 16 * _MB, STUDY_JSON: 16 * _MB, UI_JSON: 16 * _MB, LEARNING_CURVE_JSON: 64 * _MB,
                  RESULTS_JSON: 1 * _GB, TABLE: 4 * _GB, TEST_TABLE: 4 * _GB,
                  CODEBOOK_JSON: 16 * _MB, CODINGS_JSON: 64 * _MB, CODING_TEXTS: 4 * _GB,
                  PREDICTED_TEXTS: 4 * _GB, PREDICTION_ANSWERS: 4 * _GB, PREDICTIONS_JSON: 16 * _MB,
                  FINDINGS_JSON: 64 * _MB}
EXPLANATION_LIMIT = 256 * _MB  # one model's explanations
MODEL_FILE_LIMIT = 8 * _GB  # one file of a trained model (a large Transformer's weights are 1–3 GB)
TOTAL_LIMIT = 32 * _GB  # all members together, inflated
# Deflate shrinks TextLab's JSON and text files 3 to 10 times; a member that inflates far more is
# made to, and is refused once it would be larger than what any small member needs.
MAX_INFLATION = 100
MAX_INFLATION_COMPRESSED_KINDS = 10  # Parquet, safetensors, skops: already dense, they hardly shrink
INFLATION_FREE = 16 * _MB

# File endings whose loaders run code (pickle and its relatives): never written, never opened.
PICKLE_ENDINGS = frozenset({".pkl", ".pickle", ".joblib", ".pt", ".pth", ".bin", ".npy", ".npz", ".dill"})
# Members that are already compressed are stored as they are; the rest are deflated.
STORED_ENDINGS = frozenset({".parquet", ".safetensors", ".skops", ".zip"})


@dataclass
class Project:
    """Everything a user keeps of one study: what was asked, on which data, and what came out."""

    spec: ExperimentSpec
    table: pd.DataFrame
    test_table: pd.DataFrame | None = None
    result: ExperimentResult | None = None
    model_folders: dict[str, Path] = field(default_factory=dict)  # model name → its trained model folder
    ui_state: dict[str, Any] = field(default_factory=dict)
    learning_curve: Any = None  # a LearningCurveResult drawn for this study (JSON in the file), or None
    explanations: dict[str, bytes] = field(default_factory=dict)  # cache file name → its JSON (explain/cache.py)
    source_sha256: str = ""  # of the original spreadsheet the table was read from
    source_name: str = ""  # its file name
    saved_at: str = ""  # set by open_project: when the file was saved (ISO 8601, UTC)
    textlab_version: str = ""  # set by open_project: which TextLab saved it
    codebook: Codebook = field(default_factory=Codebook)  # the categories of the Coding step, defined
    codings: CodingLog = field(default_factory=CodingLog)  # every coding made in TextLab, in order
    coding_texts: pd.DataFrame | None = None  # the second file of texts to code, if the texts come from one
    predicted: PredictedTexts | None = None  # the texts predicted on the Predict step, with the answers
    findings: KeptFindings | None = None  # the findings last shown on the Findings step

    def model_folder(self, model_name: str) -> Path | None:
        """The trained model folder of the model called ``model_name``, if the project holds one."""
        folder = self.model_folders.get(model_name)
        return Path(folder) if folder is not None else None


def model_folders_of(result: ExperimentResult) -> dict[str, Path]:
    """The trained model folders a run saved (``ModelResult.artefact``) that still exist."""
    folders = {}
    for model in result.models:
        if model.artefact and Path(model.artefact).is_dir():
            folders[model.name] = Path(model.artefact)
    return folders


def archive_folder_names(names: list[str]) -> dict[str, str]:
    """A distinct, safe folder name inside ``models/`` for each model name (a long name shortened,
    so that the folder can be unpacked on any file system)."""
    chosen: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = short_name(re.sub(r"[^A-Za-z0-9._-]", "-", name).strip("-.") or "model")
        folder, n = base, 2
        while folder.lower() in used:
            folder, n = f"{base}-{n}", n + 1
        used.add(folder.lower())
        chosen[name] = folder
    return chosen


def explanation_member_ok(file_name: str) -> bool:
    """Whether ``file_name`` may be stored as ``explanations/<file_name>``."""
    return _EXPLANATION_NAME.match(file_name) is not None


def is_pickle_like(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in PICKLE_ENDINGS


def check_member_name(name: str) -> None:
    """Refuse a member name that could write outside its folder, that no file system can hold, or
    that names a pickle."""
    parts = name.split("/")
    problem = path_problem(name[:-1] if name.endswith("/") else name)
    if problem:
        shown = name if len(name) <= 80 else name[:60] + "…"
        raise damaged(f"it holds a file with an unsafe name ({shown!r}), which {problem}")
    if name.endswith("/"):
        if not name.startswith(MODELS):
            raise damaged(f"it holds an unexpected folder ({name!r})")
        return
    if is_pickle_like(name):
        raise damaged(f"it holds a file that could run code when opened ({name!r}); TextLab never opens those")
    if name == PROJECT_JSON or name in SINGLE_MEMBERS:
        return
    if name.startswith(EXPLANATIONS):
        if len(parts) != 2 or not _EXPLANATION_NAME.match(parts[1]):
            raise damaged(f"it holds an unexpected file ({name!r})")
        return
    if not name.startswith(MODELS) or len(parts) < 3:
        raise damaged(f"it holds an unexpected file ({name!r})")


def member_limit(name: str) -> int:
    """The most bytes the member ``name`` can need, inflated."""
    if name in _MEMBER_LIMITS:
        return _MEMBER_LIMITS[name]
    return EXPLANATION_LIMIT if name.startswith(EXPLANATIONS) else MODEL_FILE_LIMIT


def inflation_limit(name: str, compressed_size: int) -> int:
    """The most bytes a member stored in ``compressed_size`` bytes may inflate to."""
    already_dense = PurePosixPath(name).suffix.lower() in STORED_ENDINGS
    ratio = MAX_INFLATION_COMPRESSED_KINDS if already_dense else MAX_INFLATION
    return max(INFLATION_FREE, ratio * compressed_size)


def damaged(reason: str, details: str = "") -> UserError:
    return UserError(
        f"This project file cannot be opened: {reason}.",
        "It may be damaged or was not written by TextLab. Open an earlier copy, or a recovered autosave.",
        details=details,
    )
