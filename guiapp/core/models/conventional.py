"""The conventional classifiers: what they are called, their default grids, and how to build one.

The default grids are the reference paper's (Wankmüller 2022): SVM kernel {linear, RBF} ×
C {0.1, 1, 10} × γ {0.001, 0.01, 0.1} (γ only for the RBF kernel) and XGBoost trees {50, 250} ×
depth {5, 8} × learning rate {0.001, 0.01, 0.1}. Logistic regression and naive Bayes get
small grids over their one regularisation setting. Every grid is editable in the spec.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guiapp.core.errors import UserError, one_of
from guiapp.core.models.grid_settings import check_setting_names, setting_values
from guiapp.core.numbers import number_words, parse_number

if TYPE_CHECKING:
    from sklearn.base import ClassifierMixin

Params = dict[str, Any]


@dataclass(frozen=True)
class ParameterInfo:
    """One tunable setting: its plain name, what it does, and which values it may take."""

    label: str
    help: str
    kind: type  # int, float or str
    choices: tuple[str, ...] = ()
    minimum: float | None = None  # exclusive lower bound for numbers
    maximum: float | None = None  # inclusive upper bound for numbers


@dataclass(frozen=True)
class ClassifierInfo:
    key: str
    label: str
    description: str
    default_grid: dict[str, list[Any]]
    parameters: dict[str, ParameterInfo]
    needs_nonnegative: bool = False  # naive Bayes counts words: no negative feature values


CLASSIFIERS: dict[str, ClassifierInfo] = {
    "svm": ClassifierInfo(
        key="svm",
        label="SVM",
        description=(
            "Support vector machine: draws the boundary between categories with the widest "
            "margin. Strong and fast on bag-of-words features."
        ),
        default_grid={"kernel": ["linear", "rbf"], "C": [0.1, 1.0, 10.0], "gamma": [0.001, 0.01, 0.1]},
        parameters={
            "kernel": ParameterInfo(
                "Kernel", "Linear draws straight boundaries; RBF can draw curved ones.", str, ("linear", "rbf")
            ),
            "C": ParameterInfo(
                "C (strictness)",
                "How hard the model tries to classify every training text correctly; "
                "high values fit the training texts more closely.",
                float,
                minimum=0.0,
            ),
            "gamma": ParameterInfo(
                "γ (reach, RBF only)",
                "How far the influence of one training text reaches with the RBF kernel; "
                "small values give smoother boundaries.",
                float,
                minimum=0.0,
            ),
        },
    ),
    "xgboost": ClassifierInfo(
        key="xgboost",
        label="XGBoost",
        description=(
            "Gradient-boosted decision trees: many small trees, each correcting the last. "
            "Good with word-vector features; slower to tune."
        ),
        default_grid={"n_estimators": [50, 250], "max_depth": [5, 8], "learning_rate": [0.001, 0.01, 0.1]},
        parameters={
            "n_estimators": ParameterInfo("Trees", "How many trees are built one after another.", int, minimum=0),
            "max_depth": ParameterInfo("Tree depth", "How many questions each tree may ask in a row.", int, minimum=0),
            "learning_rate": ParameterInfo(
                "Learning rate", "How much each new tree may change the prediction.", float, minimum=0.0, maximum=1.0
            ),
        },
    ),
    "logistic_regression": ClassifierInfo(
        key="logistic_regression",
        label="Logistic regression",
        description=(
            "A linear model that weighs each feature; easy to interpret and quick to train."
        ),
        default_grid={"C": [0.01, 0.1, 1.0, 10.0, 100.0]},
        parameters={
            "C": ParameterInfo(
                "C (strictness)",
                "Inverse strength of the penalty on large weights; high values fit the "
                "training texts more closely.",
                float,
                minimum=0.0,
            ),
        },
    ),
    "naive_bayes": ClassifierInfo(
        key="naive_bayes",
        label="Naive Bayes",
        description=(
            "Multinomial naive Bayes: counts how often each word occurs per category. A classic, "
            "very fast baseline for bag-of-words features."
        ),
        default_grid={"alpha": [0.01, 0.1, 1.0]},
        parameters={
            "alpha": ParameterInfo(
                "Smoothing (α)", "How much unseen words are smoothed over; larger is smoother.", float, minimum=0.0
            ),
        },
        needs_nonnegative=True,
    ),
}


def classifier_info(key: str) -> ClassifierInfo:
    return one_of(CLASSIFIERS, key, f"Unknown classifier '{key}'.", "Use one of")


def normalise_grid(key: str, grid: dict[str, Any] | None) -> dict[str, list[Any]]:
    """The grid with defaults filled in and every value checked and converted to its type."""
    info = classifier_info(key)
    grid = dict(grid or {})
    check_setting_names(info.label, grid, info.parameters)
    return {
        name: setting_values(info.label, parameter.label, grid.get(name, info.default_grid[name]),
                             functools.partial(_convert, info, name, parameter))
        for name, parameter in info.parameters.items()
    }


def _convert(info: ClassifierInfo, name: str, parameter: ParameterInfo, value: Any) -> Any:
    where = f"'{parameter.label}' in the {info.label} grid"
    if parameter.kind is str:
        text = str(value).strip().lower()
        if text not in parameter.choices:
            raise UserError(f"{where} cannot be '{value}'.", f"Choose from: {', '.join(parameter.choices)}.")
        return text
    try:
        number = parse_number(value, parameter.kind)
    except ValueError:
        raise UserError(f"{where} must be {number_words(parameter.kind)}, not '{value}'.") from None
    if not math.isfinite(number) or (parameter.minimum is not None and number <= parameter.minimum):
        raise UserError(f"{where} must be larger than {parameter.minimum:g}, not {value}.")
    if parameter.maximum is not None and number > parameter.maximum:
        raise UserError(f"{where} must be at most {parameter.maximum:g}, not {value}.")
    return number


def expand_grid(key: str, grid: dict[str, list[Any]] | None) -> list[Params]:
    """Every combination of the grid, in a fixed order; γ is only combined with the RBF kernel."""
    grid = normalise_grid(key, grid)
    names = list(grid)
    points: dict[tuple, Params] = {}  # keyed by the point's items: drops repeats in linear time
    for values in itertools.product(*(grid[name] for name in names)):
        point = dict(zip(names, values, strict=True))
        if key == "svm" and point["kernel"] != "rbf":
            point.pop("gamma")
        points.setdefault(tuple(point.items()), point)
    return list(points.values())


def make_classifier(key: str, params: Params, seed: int, n_threads: int = 1) -> ClassifierMixin:
    """A fresh scikit-learn-compatible classifier with these settings."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.svm import SVC
    from xgboost import XGBClassifier

    params = dict(params)
    if key == "svm":
        return SVC(random_state=seed, **params)
    if key == "xgboost":
        return XGBClassifier(tree_method="hist", random_state=seed, n_jobs=n_threads, **params)
    if key == "logistic_regression":
        return LogisticRegression(max_iter=2000, random_state=seed, **params)
    if key == "naive_bayes":
        return MultinomialNB(**params)
    classifier_info(key)  # raises the readable error
    raise AssertionError(key)


def describe_params(key: str, params: Params) -> str:
    """``C = 10, kernel = RBF`` in the words of the GUI; a language model with your codebook (classifier
    "in_textlab" or "server"): "2 examples per category, TextLab's instruction"."""
    if key == "fine_tune":
        from guiapp.core.models.transformers.options import describe_transformer_params

        return describe_transformer_params(params)
    if key in ("similarity", "nli"):
        return "nothing to tune (a zero-shot model learns nothing from the coded texts)"
    if key in ("in_textlab", "server"):  # a language model with your codebook: its prompt variant
        from guiapp.core.models.llm.codebook_options import describe_codebook_params

        return describe_codebook_params(params)
    if key == "setfit":
        from guiapp.core.models.few_shot_options import describe_setfit_params

        return describe_setfit_params(params)
    info = classifier_info(key)
    parts = []
    for name, value in params.items():
        label = info.parameters[name].label if name in info.parameters else name
        shown = value.upper() if name == "kernel" and value == "rbf" else value
        parts.append(f"{label} = {shown:g}" if isinstance(shown, float) else f"{label} = {shown}")
    return ", ".join(parts)
