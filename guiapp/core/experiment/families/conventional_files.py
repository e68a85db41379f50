"""A trained conventional model (representation + classifier) saved in a folder, and opened again.

It lives in ``experiment`` rather than ``models`` because it needs the representations
(``features``) and :class:`~guiapp.core.experiment.protocol.fitting.CalibratedSVM`, both above ``models``.

The folder holds no pickle and opening it runs no code from it:

- ``model.json`` — format and version, the kinds, the representation's options, the classifier's
  settings and class codes, the categories, the caller's ``meta``, library versions, and the
  SHA-256 of every other file (a changed or damaged file is refused);
- ``representation.json`` — the representation's learned state in JSON (vocabularies, options);
- ``representation.safetensors`` — its numeric arrays (idf weights, kept word vectors), if any;
- ``classifier.xgboost.json`` — XGBoost's own JSON model format, or
- ``classifier.skops`` — a scikit-learn classifier in skops format, opened only if it holds
  nothing but the types in :data:`TRUSTED_SKOPS_TYPES`;
- or, where a text can have several categories, one such file per category
  (``classifier_0.skops`` …), with each category's decision threshold in ``model.json``.

Saving writes a temporary folder beside the target and renames it into place, so an interrupted
save leaves either the old folder or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.atomic import fsync_folder, sha256_of_file
from guiapp.core.errors import UserError
from guiapp.core.experiment.protocol.fitting import CalibratedSVM
from guiapp.core.experiment.results.output_folder import swap_into_place
from guiapp.core.experiment.protocol.per_category import ConstantAnswer, PerCategoryClassifier
from guiapp.core.features.registry import REPRESENTATIONS
from guiapp.core.untrusted.json_reading import read_json_file

FORMAT = "textlab-conventional-model"
FORMAT_VERSION = 1
MODEL_FILE = "model.json"
STATE_FILE = "representation.json"
ARRAYS_FILE = "representation.safetensors"
SKOPS_FILE = "classifier.skops"
XGBOOST_FILE = "classifier.xgboost.json"
PER_CATEGORY = "per_category"  # one classifier per category (a text can have several), each in its own file

# Everything a saved scikit-learn classifier may contain beyond numbers (skops trusts numpy and
# plain Python values itself). Nothing else is ever loaded.
TRUSTED_SKOPS_TYPES = [
    "sklearn.svm._classes.SVC",
    "sklearn.linear_model._logistic.LogisticRegression",
    "sklearn.naive_bayes.MultinomialNB",
    "sklearn.calibration.CalibratedClassifierCV",
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._SigmoidCalibration",
    "sklearn.model_selection._split.StratifiedKFold",
    "scipy.sparse._csr.csr_matrix",
]
_PICKLE_SUFFIXES = {".pkl", ".pickle", ".pck", ".pcl", ".joblib", ".jbl", ".sav", ".dill", ".pt", ".pth", ".bin"}
_LIBRARIES = ("numpy", "scipy", "scikit-learn", "xgboost", "skops", "safetensors", "textlab")
_AGAIN = "Train the model again in TextLab and save it again."


@dataclass
class SavedConventional:
    """A conventional model opened from its folder: ``representation.transform(texts)`` gives the
    features for ``fitting.predict`` / ``fitting.predict_proba`` with these ``categories``."""

    representation: Any
    classifier: Any
    categories: list[str]
    meta: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------------------ saving
def save_conventional(
    folder: str | Path,
    representation: Any,
    classifier: Any,
    categories: list[str],
    meta: dict[str, Any],
) -> None:
    """Save a fitted representation and classifier (from ``fitting.fit_classifier``) in ``folder``.

    An existing folder is replaced only once the new one is complete. ``meta`` must be JSON data.
    """
    target = Path(folder)
    representation_kind = _representation_kind(representation)
    categories = [str(category) for category in categories]
    per_category = isinstance(classifier, PerCategoryClassifier)
    if per_category:
        if classifier.n_categories != len(categories):
            raise ValueError("the classifier's categories do not fit the categories")
    else:
        classifier_kind = _classifier_kind(classifier)
        classes = np.asarray(classifier.textlab_classes_, dtype=np.int64)
        if classes.size == 0 or classes.min() < 0 or classes.max() >= len(categories):
            raise ValueError("the classifier's classes do not fit the categories")
    state, arrays = representation.to_state()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}.saving"
    temporary.mkdir()
    try:
        _write(temporary / STATE_FILE, _json_bytes(state))
        if arrays:
            from safetensors.numpy import save

            _write(temporary / ARRAYS_FILE,
                   save({name: np.ascontiguousarray(array) for name, array in arrays.items()}))
        if per_category:
            classifier_entry = _save_per_category(temporary, classifier)
        else:
            classifier_file = _save_classifier(temporary, classifier_kind, classifier)
            classifier_entry = {"kind": classifier_kind, "file": classifier_file, "classes": classes.tolist(),
                                **_classifier_settings(classifier_kind, classifier)}
        info = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "representation": {"kind": representation_kind, "options": state["options"]},
            "classifier": classifier_entry,
            "categories": categories,
            "meta": meta,
            "libraries": _library_versions(),
            "files": {child.name: sha256_of_file(child) for child in sorted(temporary.iterdir())},
        }
        _write(temporary / MODEL_FILE, _json_bytes(info))
        fsync_folder(temporary)
        _move_into_place(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _representation_kind(representation: Any) -> str:
    for kind, cls in REPRESENTATIONS.items():
        if type(representation) is cls:
            return kind
    raise TypeError(f"cannot save a representation of type {type(representation).__name__}")


def _classifier_kind(classifier: Any) -> str:
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.svm import SVC
    from xgboost import XGBClassifier

    for kind, cls in (("svm_calibrated", CalibratedSVM), ("svm", SVC), ("xgboost", XGBClassifier),
                      ("logistic_regression", LogisticRegression), ("naive_bayes", MultinomialNB)):
        if type(classifier) is cls:
            if not hasattr(classifier, "textlab_classes_"):
                raise ValueError("save a classifier made by fitting.fit_classifier")
            return kind
    raise TypeError(f"cannot save a classifier of type {type(classifier).__name__}")


def _classifier_settings(kind: str, classifier: Any) -> dict[str, Any]:
    """The chosen settings, for people reading model.json (opening does not need them)."""
    if kind == "svm_calibrated":
        return {"settings": dict(classifier.params), "seed": classifier.seed,
                "calibrated": classifier.calibrated_ is not None}
    names = {"svm": ("kernel", "C", "gamma"), "xgboost": ("n_estimators", "max_depth", "learning_rate"),
             "logistic_regression": ("C",), "naive_bayes": ("alpha",)}[kind]
    params = classifier.get_params(deep=False)
    return {"settings": {name: params[name] for name in names if name in params}}


def _save_classifier(folder: Path, kind: str, classifier: Any, stem: str = "classifier") -> str:
    if kind == "xgboost":
        name = _file_name(kind, stem)
        classifier.save_model(str(folder / name))
        return name
    import skops.io

    if kind == "svm_calibrated":  # the SVC itself is calibrated_'s estimator, unless never calibrated
        payload = classifier.svm_ if classifier.calibrated_ is None else classifier.calibrated_
    else:
        payload = classifier
    name = _file_name(kind, stem)
    _write(folder / name, skops.io.dumps(payload))
    return name


def _file_name(kind: str, stem: str) -> str:
    return (XGBOOST_FILE if kind == "xgboost" else SKOPS_FILE).replace("classifier", stem, 1)


def _save_per_category(folder: Path, classifier: PerCategoryClassifier) -> dict[str, Any]:
    """Each category's classifier in a file of its own (a category learnt as a constant answer is
    only its share); the thresholds with them."""
    parts = []
    for index, part in enumerate(classifier.parts):
        if isinstance(part, ConstantAnswer):
            parts.append({"constant": part.share})
            continue
        kind = _classifier_kind(part)
        parts.append({"kind": kind, "file": _save_classifier(folder, kind, part, f"classifier_{index}"),
                      "classes": np.asarray(part.textlab_classes_, dtype=np.int64).tolist(),
                      **_classifier_settings(kind, part)})
    return {"kind": PER_CATEGORY, "parts": parts, "thresholds": [float(value) for value in classifier.thresholds]}


def _move_into_place(temporary: Path, target: Path) -> None:
    """The finished folder at ``target``, replacing an older model's folder there (removed)."""
    if target.exists() and not target.is_dir():
        raise UserError(f"“{target}” is a file, so the model cannot be saved there.",
                        "Choose another name for the model folder.")
    replaced = swap_into_place(temporary, target)
    if replaced is not None:
        shutil.rmtree(replaced, ignore_errors=True)


# ------------------------------------------------------------------------------------ opening
def load_conventional(folder: str | Path) -> SavedConventional:
    """Open a model saved by :func:`save_conventional`; :class:`UserError` says why it cannot be.

    Only the files model.json names are read, after their checksums; pickle or joblib files in
    the folder make it refused without being opened.
    """
    folder = Path(folder)
    name = folder.name
    if not folder.is_dir():
        raise UserError(f"The model folder “{folder}” does not exist.",
                        "Check where the model was saved, or train it again.")
    _refuse_pickles(folder)
    info = _read_model_json(folder)
    try:
        categories = _categories(info)
        per_category = info["classifier"]["kind"] == PER_CATEGORY
        classes = np.arange(len(categories)) if per_category else np.asarray(info["classifier"]["classes"], dtype=np.int64)
        if classes.ndim != 1 or classes.size == 0 or classes.min() < 0 or classes.max() >= len(categories):
            raise ValueError("the classes do not fit the categories")
        representation_kind = info["representation"]["kind"]
        classifier_kind = info["classifier"]["kind"]
        files = info["files"]
        meta = info.get("meta") or {}
        if not isinstance(files, dict) or not isinstance(meta, dict):
            raise TypeError("files and meta must be mappings")
    except (KeyError, TypeError, ValueError) as error:
        raise _damaged(name, f"{MODEL_FILE}: {error!r}") from error
    _check_files(folder, files)
    representation = _load_representation(folder, name, representation_kind, files)
    if per_category:
        classifier = _load_per_category(folder, name, info["classifier"], files, len(categories))
    else:
        classifier = _load_classifier(folder, name, classifier_kind, info["classifier"], files)
        classifier.textlab_classes_ = classes
    return SavedConventional(representation, classifier, categories, meta)


def _load_per_category(folder: Path, name: str, entry: dict[str, Any], files: dict[str, Any],
                       n_categories: int) -> PerCategoryClassifier:
    parts_entries, thresholds = entry.get("parts"), entry.get("thresholds")
    if not isinstance(parts_entries, list) or len(parts_entries) != n_categories:
        raise _damaged(name, f"{MODEL_FILE}: one classifier per category")
    if (not isinstance(thresholds, list) or len(thresholds) != n_categories
            or not all(isinstance(value, int | float) and 0.0 <= value <= 1.0 for value in thresholds)):
        raise _damaged(name, f"{MODEL_FILE}: thresholds")
    parts: list[Any] = []
    for index, part in enumerate(parts_entries):
        if not isinstance(part, dict):
            raise _damaged(name, f"{MODEL_FILE}: category {index}")
        if "constant" in part:
            share = part["constant"]
            if not isinstance(share, int | float) or not 0.0 <= share <= 1.0:
                raise _damaged(name, f"{MODEL_FILE}: category {index}")
            parts.append(ConstantAnswer(share))
            continue
        classes = np.asarray(part.get("classes"), dtype=np.int64)
        if classes.tolist() not in ([0, 1], [0], [1]):
            raise _damaged(name, f"{MODEL_FILE}: classes of category {index}")
        loaded = _load_classifier(folder, name, part.get("kind"), part, files, f"classifier_{index}")
        loaded.textlab_classes_ = classes
        parts.append(loaded)
    return PerCategoryClassifier(parts, np.asarray(thresholds, dtype=float))


def _refuse_pickles(folder: Path) -> None:
    for child in sorted(folder.rglob("*")):
        if not child.is_file():
            continue
        if child.suffix.lower() in _PICKLE_SUFFIXES or _starts_like_pickle(child):
            raise UserError(
                f"The model folder “{folder.name}” contains “{child.name}”, a file in Python's "
                "pickle format. Such files can run programs on this computer when they are opened, "
                "so TextLab does not open this folder.",
                "Only open model folders that TextLab saved itself, from a source you trust. "
                + _AGAIN,
            )


def _starts_like_pickle(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(2)
    except OSError:
        return False
    return len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5  # pickle protocol 2 to 5


def _read_model_json(folder: Path) -> dict[str, Any]:
    path = folder / MODEL_FILE
    if not path.is_file():
        raise UserError(
            f"The folder “{folder.name}” does not hold a model saved by TextLab ({MODEL_FILE} is missing).",
            "Choose the folder of a trained model. " + _AGAIN,
        )
    try:
        info = read_json_file(path, max_bytes=64 << 20)  # settings and checksums: a few KB
    except (OSError, ValueError) as error:
        raise _damaged(folder.name, f"{MODEL_FILE}: {error}") from error
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise UserError(f"The folder “{folder.name}” does not hold a conventional model saved by TextLab.",
                        "Choose the folder of a trained model. " + _AGAIN)
    version = info.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _damaged(folder.name, f"format_version = {version!r}")
    if version > FORMAT_VERSION:
        raise UserError(
            f"The model “{folder.name}” was saved by a newer version of TextLab "
            f"(model format {version}; this TextLab reads up to {FORMAT_VERSION}).",
            "Update TextLab to open this model, or train it again with this version.",
        )
    return info


def _categories(info: dict[str, Any]) -> list[str]:
    categories = info["categories"]
    if not isinstance(categories, list) or not categories or not all(isinstance(c, str) for c in categories):
        raise ValueError("categories must be a list of names")
    return categories


def _check_files(folder: Path, files: dict[str, Any]) -> None:
    for file_name, digest in files.items():
        path = folder / str(file_name)
        if Path(str(file_name)).name != file_name or file_name == MODEL_FILE:
            raise _damaged(folder.name, f"unexpected file entry {file_name!r}")
        if not path.is_file():
            raise UserError(f"The model “{folder.name}” is incomplete: the file “{file_name}” is missing.",
                            "Copy the whole model folder again, or train the model again.")
        if sha256_of_file(path) != digest:
            raise _damaged(folder.name, f"{file_name}: the checksum does not match")


def _load_representation(folder: Path, name: str, kind: Any, files: dict[str, Any]) -> Any:
    cls = REPRESENTATIONS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise _damaged(name, f"unknown representation {kind!r}")
    if STATE_FILE not in files:
        raise _damaged(name, f"{STATE_FILE} is not listed")
    try:
        state = read_json_file(folder / STATE_FILE, max_bytes=4 << 30)  # vocabularies; arrays are apart
        arrays: dict[str, np.ndarray] = {}
        if ARRAYS_FILE in files:
            from safetensors.numpy import load

            arrays = load((folder / ARRAYS_FILE).read_bytes())
        if not isinstance(state, dict):
            raise TypeError("the representation's state is not a mapping")
        return cls.from_state(state, arrays)
    except Exception as error:  # any failure to read or check it means a damaged file
        raise _damaged(name, f"representation: {error!r}") from error


def _load_classifier(folder: Path, name: str, kind: Any, entry: dict[str, Any], files: dict[str, Any],
                     stem: str = "classifier") -> Any:
    file_name = entry.get("file")
    if kind not in ("svm_calibrated", "svm", "xgboost", "logistic_regression", "naive_bayes"):
        raise _damaged(name, f"unknown classifier {kind!r}")
    expected = _file_name(kind, stem)
    if file_name != expected or expected not in files:
        raise _damaged(name, f"classifier file {file_name!r}")
    path = folder / expected
    if kind == "xgboost":
        from xgboost import XGBClassifier

        try:
            model = XGBClassifier()
            model.load_model(str(path))
        except Exception as error:
            raise _damaged(name, f"{expected}: {error!r}") from error
        return model
    model = _load_skops(path, name, kind)
    if kind == "svm_calibrated":
        settings, seed = entry.get("settings"), entry.get("seed")
        if not isinstance(settings, dict) or not isinstance(seed, int):
            raise _damaged(name, f"{MODEL_FILE}: the SVM's settings or seed")
        model.params, model.seed = settings, seed
    return model


def _load_skops(path: Path, name: str, kind: str) -> Any:
    import skops.io
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.svm import SVC

    data = path.read_bytes()
    try:
        untrusted = skops.io.get_untrusted_types(data=data)
    except Exception as error:
        raise _damaged(name, f"{path.name}: {error!r}") from error
    unknown = sorted(set(untrusted) - set(TRUSTED_SKOPS_TYPES))
    if unknown:
        raise UserError(
            f"The model “{name}” contains kinds of objects that TextLab does not open, because "
            "they could run programs on this computer.",
            "Only open model folders that TextLab saved itself. " + _AGAIN,
            details="untrusted: " + ", ".join(unknown),
        )
    try:
        model = skops.io.loads(data, trusted=TRUSTED_SKOPS_TYPES)
    except Exception as error:
        raise _damaged(name, f"{path.name}: {error!r}") from error
    wanted = {"svm_calibrated": (CalibratedClassifierCV, SVC), "svm": (SVC,),
              "logistic_regression": (LogisticRegression,), "naive_bayes": (MultinomialNB,)}[kind]
    if type(model) not in wanted:
        raise _damaged(name, f"{path.name} holds a {type(model).__name__}")
    if kind != "svm_calibrated":
        return model
    calibrated = CalibratedSVM.__new__(CalibratedSVM)
    if isinstance(model, CalibratedClassifierCV):
        calibrated.calibrated_ = model
        calibrated.svm_ = model.calibrated_classifiers_[0].estimator
    else:
        calibrated.calibrated_, calibrated.svm_ = None, model
    return calibrated


def _damaged(name: str, details: str) -> UserError:
    return UserError(f"The model “{name}” is damaged or was changed after it was saved, so it "
                     "cannot be opened.", _AGAIN, details=details)


# ------------------------------------------------------------------------------------ helpers
def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, indent=1, allow_nan=False).encode("utf-8")


def _write(path: Path, data: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _library_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for package in _LIBRARIES:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "unknown"
    return versions
