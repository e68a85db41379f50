"""Realistic hand-made study results for widget tests and screenshots (no training involved).

Predictions are drawn at random with a chosen hit rate per model; every number shown (per-category
scores, confusion counts, the bootstrap interval) is then computed from them with the core's own
metric functions, so the numbers agree with each other the way a real run's do.
"""

from __future__ import annotations

import numpy as np

from guiapp.core.experiment.scores.metrics import (
    accuracy,
    bootstrap_macro_f1,
    category_scores,
    confusion,
    macro_f1,
)
from guiapp.core.experiment.results.experiment_result import (
    ExperimentResult,
    GridPointResult,
    ModelResult,
    TestResult,
)
from guiapp.core.models.conventional import expand_grid
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.ui.sample_reports import POLICY_TOPICS

THREE_CATEGORIES = [("Economy", 560), ("Health", 455), ("Foreign affairs", 320)]

# (representation, classifier, hit rate); hit rates give macro-F1 of about 0.71 … 0.55
FIVE_MODELS = [
    ("bow", "svm", 0.745),
    ("sentence_embeddings", "logistic_regression", 0.73),
    ("word_vectors", "svm", 0.66),
    ("bow", "naive_bayes", 0.61),
    ("word_vectors", "xgboost", None),  # fails
]
FAILED_MESSAGE = (
    "XGBoost ran out of memory while building trees for Word vectors. Try fewer trees, or close "
    "other programs and run this model again."
)


def model_specs(models=FIVE_MODELS) -> list[ModelSpec]:
    return [ModelSpec(representation, classifier) for representation, classifier, _ in models]


def sample_spec(models=FIVE_MODELS, name="Party manifestos 2021", folds=5, **data) -> ExperimentSpec:
    mapping = ColumnMapping(text_columns=["Text"], category_column="Topic", id_column="ID")
    return ExperimentSpec(
        data=DataSpec(source=data.pop("source", "/home/user/manifestos.xlsx"), mapping=mapping, **data),
        name=name,
        evaluation=EvaluationSpec(folds=folds),
        models=model_specs(models),
    )


def _predict(rng: np.random.Generator, y_true: np.ndarray, n_categories: int, hit_rate: float) -> np.ndarray:
    """Right with probability ``hit_rate`` (a little lower for small categories), else a near miss."""
    sizes = np.bincount(y_true, minlength=n_categories).astype(float)
    rates = hit_rate * (0.85 + 0.15 * sizes / sizes.max())
    right = rng.random(len(y_true)) < rates[y_true]
    # mistakes go mostly to the neighbouring category, as real confusions cluster
    shift = rng.choice([1, 1, 1, 2, -1], size=len(y_true)) if n_categories > 2 else np.ones(len(y_true), int)
    wrong = (y_true + shift) % n_categories
    return np.where(right, y_true, wrong)


def _grid(rng: np.random.Generator, classifier: str, centre: float, folds: int) -> list[GridPointResult]:
    points = []
    for position, params in enumerate(expand_grid(classifier, None)):
        level = centre - 0.12 * abs(np.sin(position * 1.7 + 0.4)) - (0.02 if position % 3 else 0.0)
        scores = np.clip(level + rng.normal(0, 0.015, size=folds), 0, 1)
        points.append(GridPointResult(
            params=params, fold_scores=[round(float(s), 4) for s in scores],
            mean=float(scores.mean()), std=float(scores.std()), fit_seconds=float(rng.uniform(0.3, 9.0)),
        ))
    return points


def sample_model(rng, spec: ModelSpec, y_true, categories, hit_rate, folds=5, bootstrap=300) -> ModelResult:
    n = len(categories)
    base = ModelResult(
        name=spec.display_name, representation=spec.representation, classifier=spec.classifier,
        spec=spec.to_dict(),
    )
    if hit_rate is None:
        base.status = "failed"
        base.message = FAILED_MESSAGE
        base.seconds = {"features": 4.1, "total": 37.5}
        return base
    y_pred = _predict(rng, y_true, n, hit_rate)
    score = macro_f1(y_true, y_pred)
    grid = _grid(rng, spec.classifier, score + 0.01, folds)
    chosen = max(grid, key=lambda point: point.mean)
    base.test = TestResult(
        macro_f1=score,
        macro_f1_ci=bootstrap_macro_f1(y_true, y_pred, n, samples=bootstrap, seed=7),
        ci_level=0.95,
        accuracy=accuracy(y_true, y_pred),
        per_category=category_scores(y_true, y_pred, categories),
        confusion=confusion(y_true, y_pred, n),
    )
    base.grid = grid
    base.chosen_params = dict(chosen.params)
    base.cv_scores = list(chosen.fold_scores)
    base.predictions = [int(v) for v in y_pred]
    tuning = sum(point.fit_seconds for point in grid)
    features = {"bow": 1.8, "word_vectors": 14.2, "sentence_embeddings": 96.0}[spec.representation]
    base.seconds = {"features": features, "tuning": tuning, "final_fit": 2.4, "predict": 0.3,
                    "total": features + tuning + 2.7}
    base.n_features = {"bow": 12_408, "word_vectors": 300, "sentence_embeddings": 384}[spec.representation]
    return base


def sample_result(categories=THREE_CATEGORIES, models=FIVE_MODELS, seed=3, folds=5, name="Party manifestos 2021",
                  status="done") -> ExperimentResult:
    """A finished study: ``categories`` are (name, number of test texts) pairs."""
    rng = np.random.default_rng(seed)
    names = [name for name, _ in categories]
    y_true = np.concatenate([np.full(count, i) for i, (_, count) in enumerate(categories)])
    rng.shuffle(y_true)
    spec = sample_spec(models, name=name, folds=folds)
    results = [
        sample_model(rng, model_spec, y_true, names, hit_rate, folds)
        for model_spec, (_, _, hit_rate) in zip(spec.models, models, strict=True)
    ]
    n_test = len(y_true)
    return ExperimentResult(
        spec=spec.to_dict(),
        categories=names,
        split={"how": "random", "n_train": int(n_test * 7 / 3), "n_test": n_test,
               "description": "30 % of the coded texts, drawn at random within each category"},
        test_rows=list(range(2, n_test + 2)),
        test_ids=list(range(n_test)),
        test_texts=[f"Text {i}" for i in range(n_test)],
        test_true=[int(v) for v in y_true],
        models=results,
        notes=["Random oversampling was off: the smallest category has 24 % of the texts."],
        started_at="2024-05-02T10:14:03",
        finished_at="2024-05-02T10:21:47",
        status=status,
    )


def policy_result(seed=5) -> ExperimentResult:
    """The US Congress example: 20 policy topics, three models, test counts about 30 %."""
    categories = [(name, max(2, round(count * 0.3))) for name, count in POLICY_TOPICS]
    models = [("bow", "svm", 0.72), ("bow", "logistic_regression", 0.7), ("word_vectors", "svm", 0.6)]
    return sample_result(categories, models, seed=seed, name="US Congress bills")


TRANSFORMER_ARTEFACT = "/home/user/.cache/textlab/runs/2024-05-02T10-14-03/Fine-tuned-all-MiniLM-L6-v2"
TRANSFORMER_NOTES = [
    ("214 of 3,114 training texts and 97 of 1,335 test texts were longer than 512 tokens and were cut "
     "(first 128 + last 382 tokens kept)."),
]


def transformer_model(rng, y_true, categories, hit_rate=0.77, *, device=None, tuning=None, folds=5,
                      artefact=TRANSFORMER_ARTEFACT, bootstrap=300) -> ModelResult:
    """A fine-tuned MiniLM as ``transformer_runner`` reports it: learning rate × epochs grid tuned on
    one validation split (or k folds on a GPU), device and notes in ``spec``, weights as features."""
    from guiapp.core.models.transformers.options import (
        expand_transformer_grid,
        full_options,
        normalise_transformer_grid,
    )

    device = device or {"kind": "cpu", "name": "CPU, 2 threads", "bf16": False}
    on_gpu = device["kind"] == "cuda"
    tuning = tuning or (f"{folds}-fold cross-validation" if on_gpu else "one validation split (20% of the training texts)")
    splits = folds if "cross-validation" in tuning else 1
    model = ModelSpec("transformer", "fine_tune", {"model": "all-MiniLM-L6-v2"})
    n = len(categories)
    y_pred = _predict(rng, y_true, n, hit_rate)
    score = macro_f1(y_true, y_pred)
    grid = []
    for position, params in enumerate(expand_transformer_grid({}, "all-MiniLM-L6-v2")):
        level = score - 0.09 * abs(np.sin(position * 1.3 + 0.9)) - (0.0 if position == 4 else 0.015)
        scores = np.clip(level + rng.normal(0, 0.012, size=splits), 0, 1)
        seconds = (40 if not on_gpu else 1.2) * 2.5 * params["epochs"] * splits
        grid.append(GridPointResult(params=params, fold_scores=[round(float(s), 4) for s in scores],
                                    mean=float(scores.mean()), std=float(scores.std()), fit_seconds=seconds))
    chosen = max(grid, key=lambda point: point.mean)
    spec = model.to_dict()
    spec.update(name=model.display_name, representation_options=full_options(model.representation_options),
                grid=normalise_transformer_grid({}, "all-MiniLM-L6-v2"), tuning=tuning, device=device,
                notes=list(TRANSFORMER_NOTES))
    tuning_seconds = sum(point.fit_seconds for point in grid)
    final = (40 if not on_gpu else 1.2) * 3.1 * chosen.params["epochs"]
    return ModelResult(
        name=model.display_name, representation="transformer", classifier="fine_tune", spec=spec,
        chosen_params=dict(chosen.params), cv_scores=list(chosen.fold_scores), grid=grid,
        test=TestResult(
            macro_f1=score,
            macro_f1_ci=bootstrap_macro_f1(y_true, y_pred, n, samples=bootstrap, seed=7),
            ci_level=0.95,
            accuracy=accuracy(y_true, y_pred),
            per_category=category_scores(y_true, y_pred, categories),
            confusion=confusion(y_true, y_pred, n),
        ),
        predictions=[int(v) for v in y_pred],
        seconds={"features": 0.0, "tuning": tuning_seconds, "final_fit": final, "predict": 21.0,
                 "total": tuning_seconds + final + 21.0 + 4.0},
        n_features=22_713_219,
        artefact=artefact,
    )


def result_with_transformer(device=None, tuning=None, artefact=TRANSFORMER_ARTEFACT, seed=3) -> ExperimentResult:
    """``sample_result()`` with a fine-tuned MiniLM beside the conventional models."""
    result = sample_result(seed=seed)
    rng = np.random.default_rng(seed + 100)
    y_true = np.asarray(result.test_true)
    model = transformer_model(rng, y_true, result.categories, device=device, tuning=tuning, artefact=artefact)
    result.models.insert(0, model)
    result.spec["models"].insert(0, ModelSpec("transformer", "fine_tune", {"model": "all-MiniLM-L6-v2"}).to_dict())
    return result
