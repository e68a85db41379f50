"""run_experiment: the whole protocol on small synthetic studies."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Progress, TaskUpdate
from guiapp.core.experiment.run import runner as runner_module
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts


def study(models: list[ModelSpec], **evaluation) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(**{"folds": 3, **evaluation}),
        models=models,
        seed=5,
    )


QUICK = [ModelSpec("bow", "naive_bayes"), ModelSpec("bow", "logistic_regression", grid={"C": [1.0, 10.0]})]


def test_study_reports_every_model_with_metrics_ci_and_times() -> None:
    events = []
    result = runner_module.run_experiment(study(QUICK, combine=False), events.append, table=coded_texts(240), n_jobs=1)
    assert [model.status for model in result.models] == ["done", "done"]
    assert result.categories == ["defence", "energy", "health"]
    assert result.split["n_test"] == 72 and result.split["n_train"] == 168
    for model in result.models:
        low, high = model.test.macro_f1_ci
        assert low <= model.test.macro_f1 <= high
        assert model.test.macro_f1 > 0.6  # the synthetic topics are easy to tell apart
        assert len(model.cv_scores) == 3 and len(model.predictions) == 72
        assert np.allclose(np.sum(model.probabilities, axis=1), 1.0)
        assert set(model.seconds) == {"features", "tuning", "final_fit", "predict", "total"}
        assert sum(map(sum, model.test.confusion)) == 72
        assert model.spec["representation_options"]["min_df"] == 0.001  # defaults written out
    assert len(result.models[1].grid) == 2
    updates = [(e.task, e.state) for e in events if isinstance(e, TaskUpdate)]
    assert updates == [(0, "running"), (0, "done"), (1, "running"), (1, "done")]
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress[-1].fraction == 1.0
    assert all(0.0 <= e.fraction <= 1.0 for e in progress if e.fraction is not None)
    assert any(e.task == 1 and "part" in e.message for e in progress)


def test_result_round_trips_through_json() -> None:
    result = runner_module.run_experiment(study(QUICK[:1]), table=coded_texts(120), n_jobs=1)
    again = ExperimentResult.from_json(result.to_json())
    assert again.models[0].test == result.models[0].test
    assert again.models[0].grid == result.models[0].grid
    assert again.best().name == result.best().name
    assert ExperimentSpec.from_dict(again.spec) == study(QUICK[:1])


def test_same_seed_same_result_other_seed_other_split() -> None:
    table = coded_texts(200)
    first = runner_module.run_experiment(study(QUICK[:1]), table=table, n_jobs=1)
    second = runner_module.run_experiment(study(QUICK[:1]), table=table, n_jobs=1)
    assert first.test_rows == second.test_rows and first.models[0].predictions == second.models[0].predictions
    other = study(QUICK[:1])
    other.seed = 6
    assert runner_module.run_experiment(other, table=table, n_jobs=1).test_rows != first.test_rows


def test_a_failing_model_is_reported_and_the_others_still_run() -> None:
    models = [ModelSpec("bow", "naive_bayes", representation_options={"min_df": 1.0, "max_df": 1.0, "remove_punctuation": True}), QUICK[0]]
    events = []
    result = runner_module.run_experiment(study(models), events.append, table=coded_texts(150), n_jobs=1)
    assert result.models[0].status == "failed" and "No " in result.models[0].message
    assert result.models[1].ok
    assert any(isinstance(e, TaskUpdate) and e.state == "failed" for e in events)
    assert any(isinstance(e, Log) and e.level == "error" for e in events)


def test_split_column_and_uncoded_rows() -> None:
    table = coded_texts(200)
    table["part"] = ["test" if i % 4 == 0 else "train" for i in range(200)]
    table.loc[5, "label"] = None
    spec = study(QUICK[:1])
    spec.data.mapping.split_column = "part"
    result = runner_module.run_experiment(spec, table=table, n_jobs=1)
    assert result.split["how"] == "split column" and result.split["n_test"] == 50
    assert all((row - 2) % 4 == 0 for row in result.test_rows)
    assert any("no category" in note for note in result.notes)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cancel_mid_grid_stops_within_the_next_checkpoint(n_jobs: int) -> None:
    seen: list[Progress] = []

    def on_event(event) -> None:
        if isinstance(event, Progress) and event.done and "part" in event.message:
            seen.append(event)
            if event.done >= 3:
                raise Cancelled()

    model = ModelSpec("bow", "xgboost", grid={"n_estimators": [30], "max_depth": [2, 3, 4], "learning_rate": [0.1, 0.3]})
    with pytest.raises(Cancelled):
        runner_module.run_experiment(study([model]), on_event, table=coded_texts(200), n_jobs=n_jobs)
    assert seen and seen[-1].done < seen[-1].total  # stopped mid-grid


def test_oversampling_never_touches_validation_folds_or_the_test_set(monkeypatch) -> None:
    """By construction: a representation whose only feature is the row number shows which rows
    went where; every classifier fit and every scored part is recorded."""
    from guiapp.core.experiment.protocol import fitting, tuning

    class RowNumbers:
        def get_params(self, deep=True):
            return {}

        def set_params(self, **params):
            return self

        def prepare(self, texts, on_event=None):
            return np.arange(len(texts))

        def fit_prepared(self, prepared, rows):
            fitted_on.append(set(rows.tolist()))
            return self

        def transform_prepared(self, prepared, rows):
            return np.asarray(prepared[rows], dtype=float).reshape(-1, 1)

    fitted_on: list[set[int]] = []
    fits: list[np.ndarray] = []
    scored: list[np.ndarray] = []
    monkeypatch.setattr("guiapp.core.features.make_representation", lambda kind, options: RowNumbers())
    monkeypatch.setattr(tuning, "clone", lambda estimator: estimator)
    monkeypatch.setattr(runner_module, "clone", lambda estimator: estimator)
    real_fit_and_score = fitting.fit_and_score

    def spy_fit_and_score(classifier, points, seed, n_threads, X_train, y_train, X_valid, y_valid, check=None,
                          oversampling=None):
        assert oversampling is None  # one category per text: the rows were oversampled when the folds were built
        fits.append(X_train[:, 0].astype(int))
        scored.append(X_valid[:, 0].astype(int))
        return real_fit_and_score(classifier, points, seed, n_threads, X_train, y_train, X_valid, y_valid, check)

    real_fit_classifier = runner_module.fit_classifier

    def spy_final_fit(classifier, params, seed, n_threads, X, y, check=None, probabilities=False, oversampling=None):
        fits.append(X[:, 0].astype(int))
        return real_fit_classifier(classifier, params, seed, n_threads, X, y, check, probabilities)

    monkeypatch.setattr(tuning, "fit_and_score", spy_fit_and_score)
    monkeypatch.setattr(runner_module, "fit_classifier", spy_final_fit)
    table = coded_texts(200, shares=(0.8, 0.15, 0.05))
    result = runner_module.run_experiment(
        study([ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})], oversampling="random"), table=table, n_jobs=1
    )
    test_rows = {row - 2 for row in result.test_rows}
    assert len(fits) == 4 and len(scored) == 3  # 3 folds + the final fit
    for fit_rows, valid_rows in zip(fits[:3], scored, strict=True):
        assert len(np.unique(fit_rows)) < len(fit_rows)  # training parts were oversampled …
        assert len(np.unique(valid_rows)) == len(valid_rows)  # … validation folds never
        assert not set(fit_rows) & set(valid_rows)
        assert not (set(fit_rows) | set(valid_rows)) & test_rows
    assert not set(fits[3]) & test_rows and len(np.unique(fits[3])) < len(fits[3])
    assert all(not rows & test_rows for rows in fitted_on)  # features never learn from test texts


def test_a_study_without_models_or_with_a_bad_model_is_refused() -> None:
    with pytest.raises(UserError, match="no models"):
        runner_module.run_experiment(study([]), table=coded_texts(50))
    with pytest.raises(UserError, match="Naive Bayes only works"):
        runner_module.run_experiment(study([ModelSpec("word_vectors", "naive_bayes")]), table=coded_texts(50))


def test_cancel_keeps_the_models_that_had_finished() -> None:
    def on_event(event) -> None:
        if isinstance(event, Progress) and event.task == 1 and event.done and "part" in event.message:
            raise Cancelled()

    slow = ModelSpec("bow", "xgboost", grid={"n_estimators": [30], "max_depth": [2, 3], "learning_rate": [0.1, 0.3]})
    with pytest.raises(Cancelled) as stopped:
        runner_module.run_experiment(study([QUICK[0], slow]), on_event, table=coded_texts(150), n_jobs=1)
    partial = stopped.value.partial
    assert partial.status == "cancelled"
    assert [model.name for model in partial.finished_models()] == ["Naive Bayes · Basic BOW"]
    assert len(partial.models) == 1 and partial.best().name == "Naive Bayes · Basic BOW"


def test_repeated_cross_validation_tries_every_setting_on_r_times_k_folds() -> None:
    from guiapp.core.experiment.protocol.resampling import cv_folds
    from guiapp.core.experiment.run.run_size import count_fits

    y = np.array([0, 1, 2] * 30)
    once, thrice = cv_folds(y, 3, seed=5), cv_folds(y, 3, seed=5, repeats=3)
    assert len(thrice) == 9
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(once, thrice[:3], strict=True))  # the first draw is kept
    for repeat in range(3):  # each draw covers every text once, and the draws differ
        held = np.sort(np.concatenate([valid for _, valid in thrice[3 * repeat: 3 * repeat + 3]]))
        assert np.array_equal(held, np.arange(len(y)))
    assert not np.array_equal(thrice[0][1], thrice[3][1])
    spec = study(QUICK, cv_repeats=2)
    assert count_fits(spec) == count_fits(study(QUICK)) + (3 + 2) * 3  # 5 settings, each on one more draw of 3 folds
    result = runner_module.run_experiment(spec, table=coded_texts(150), n_jobs=1)
    singles = [model for model in result.models if model.representation != "combined"]
    assert all(len(model.cv_scores) == 6 for model in singles)
    assert all(len(point.fold_scores) == 6 for point in singles[1].grid)
    assert any(model.representation == "combined" for model in result.models)  # out-of-fold from the first draw
