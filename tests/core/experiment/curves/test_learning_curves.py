"""Learning curves: nested stratified subsets, a fixed test set, tuning once, oversampling inside
each training subset only, Cancel, the JSON round trip, the plain reading, and a fine-tuned
(tiny, randomly initialised) Transformer. Small synthetic studies, naive Bayes on bag of words."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Progress, TaskUpdate
from guiapp.core.experiment.curves import learning_curves as curves_module
from guiapp.core.experiment.curves.learning_curve_files import CURVE_CSV_NAME, curve_frame, write_learning_curve
from guiapp.core.experiment.curves.learning_curve_reading import read_curve
from guiapp.core.experiment.curves.learning_curve_results import CurvePoint, LearningCurveResult, ModelCurve
from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
from guiapp.core.experiment.curves.nested_subsets import CurvePlan, curve_sizes, repeat_seeds
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts

NB = ModelSpec("bow", "naive_bayes", grid={"alpha": [0.5, 1.0]})
QUICK = LearningCurveOptions(sizes=(40, 80), repeats=2)


def study(models: list[ModelSpec], seed: int = 5, **evaluation) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(**{"folds": 3, "bootstrap_samples": 0, **evaluation}),
        models=models,
        seed=seed,
    )


def test_subsets_are_nested_stratified_and_drawn_from_the_training_texts_only() -> None:
    rng = np.random.default_rng(0)
    y = rng.choice(3, size=1_000, p=[0.7, 0.2, 0.1])
    train = np.sort(rng.choice(1_000, size=700, replace=False))
    test = np.setdiff1d(np.arange(1_000), train)
    plan = CurvePlan.make(train, y, [50, 100, 200, 400, 700], repeat_seeds(7, 3))
    shares = np.bincount(y[train], minlength=3) / len(train)
    for repeat in range(3):
        previous: set[int] = set()
        for size in plan.sizes:
            rows = plan.subset(size, repeat)
            assert len(rows) == len(set(rows)) == size
            assert previous <= set(rows)  # nested: the smaller subset lies inside the larger one
            assert not set(rows) & set(test) and set(rows) <= set(train)
            counts = np.bincount(y[rows], minlength=3)
            assert np.all(np.abs(counts - size * shares) <= 1.0)  # stratified to within one text
            previous = set(rows)
    assert set(plan.subset(100, 0)) != set(plan.subset(100, 1))  # the draws differ


def test_sizes_above_the_training_texts_are_capped_and_the_full_set_ends_the_curve() -> None:
    sizes, notes = curve_sizes([500, 100, 5_000, 10_000], 1_200)
    assert sizes == [100, 500, 1_200] and "5,000, 10,000 are more than the 1,200 training texts" in notes[0]
    assert curve_sizes([100, 200], 1_200)[0] == [100, 200, 1_200]
    assert curve_sizes([100, 200], 1_200, add_full_set=False) == ([100, 200], [])
    assert curve_sizes(None, 3_000)[0] == [500, 1_000, 2_000, 3_000]
    with pytest.raises(UserError, match="cannot start at 5"):
        curve_sizes([5, 100], 1_000)
    assert repeat_seeds(1, 5)[:3] == repeat_seeds(1, 3)  # more repeats keep the earlier ones


def test_a_curve_per_model_with_every_size_and_repeat_scored_on_the_test_texts() -> None:
    events = []
    models = [NB, ModelSpec("bow", "logistic_regression", grid={"C": [10.0]})]
    result = run_learning_curve(study(models), events.append, table=coded_texts(240), n_jobs=1,
                                options=LearningCurveOptions(sizes=(40, 80, 500), repeats=2))
    assert result.n_train == 168 and result.n_test == 72 and result.sizes == [40, 80, 168]
    assert any(isinstance(e, Log) and e.level == "warning" and "500 is more than" in e.message for e in events)
    for curve in result.models:
        assert curve.ok and [(p.size, p.repeat) for p in curve.points] == [(s, r) for s in (40, 80, 168) for r in (1, 2)]
        assert all(0.3 < p.macro_f1 <= 1 and len(p.category_f1) == 3 for p in curve.points)
        full = [p for p in curve.points if p.size == 168]
        assert full[0].macro_f1 == full[1].macro_f1 and full[1].seconds == 0.0  # the same texts: fitted once
        assert [(row.size, row.repeats) for row in curve.summary()] == [(40, 2), (80, 2), (168, 2)]
    tuned = result.models[0].tuning
    assert len(tuned) == 1 and tuned[0].tuned_on_size == 168 and tuned[0].how == "3-fold cross-validation"
    assert tuned[0].used_for_sizes == [40, 80, 168] and tuned[0].params["alpha"] in (0.5, 1.0)
    assert result.models[1].tuning[0].how.startswith("only one setting")
    progress = [e.fraction for e in events if isinstance(e, Progress) and e.fraction is not None]
    assert progress[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in progress)
    assert [(e.task, e.state) for e in events if isinstance(e, TaskUpdate)] == [(0, "running"), (0, "done"),
                                                                                 (1, "running"), (1, "done")]
    frame = curve_frame(result)
    assert list(frame.columns[:4]) == ["model", "size", "repeat", "macro_f1"] and "f1: health" in frame.columns
    assert len(frame) == 2 * 3 * 2


def test_same_seed_same_curve_other_seed_other_draws() -> None:
    table = coded_texts(200, seed=3)
    first = run_learning_curve(study([NB]), table=table, n_jobs=1, options=QUICK)
    again = run_learning_curve(study([NB]), table=table, n_jobs=1, options=QUICK)
    def scores(result):
        return [(p.size, p.repeat, p.macro_f1, p.category_f1) for p in result.models[0].points]

    assert scores(first) == scores(again) and first.repeat_seeds == again.repeat_seeds
    other = run_learning_curve(study([NB], seed=6), table=table, n_jobs=1, options=QUICK)
    assert other.repeat_seeds != first.repeat_seeds


def test_tuning_once_on_the_papers_size_or_per_size() -> None:
    table = coded_texts(300, seed=2)
    once = run_learning_curve(study([NB]), table=table, n_jobs=1,
                              options=LearningCurveOptions(sizes=(30, 60, 120), repeats=1, tuning_size=60))
    assert [(c.tuned_on_size, c.used_for_sizes) for c in once.models[0].tuning] == [(60, [30, 60, 120, 210])]
    per_size = run_learning_curve(study([NB]), table=table, n_jobs=1,
                                  options=LearningCurveOptions(sizes=(60, 120), repeats=1, tune_per_size=True))
    assert per_size.tuning == "per size"
    assert [(c.tuned_on_size, c.used_for_sizes) for c in per_size.models[0].tuning] == [(60, [60]), (120, [120]), (210, [210])]


def test_oversampling_stays_inside_each_training_subset_and_never_touches_the_test_texts(monkeypatch) -> None:
    """By construction, as in test_runner: the only feature is the row number, so each fit shows
    which rows it learnt from and which it predicted."""
    from guiapp.core.experiment.protocol import tuning
    class RowNumbers:
        def get_params(self, deep=True):
            return {}

        def prepare(self, texts, on_event=None):
            return np.arange(len(texts))

        def fit_prepared(self, prepared, rows):
            fitted_on.append(set(rows.tolist()))
            return self

        def transform_prepared(self, prepared, rows):
            return np.asarray(prepared[rows], dtype=float).reshape(-1, 1)

    fitted_on: list[set[int]] = []
    fits: list[tuple[np.ndarray, np.ndarray]] = []
    monkeypatch.setattr("guiapp.core.features.make_representation", lambda kind, options: RowNumbers())
    monkeypatch.setattr(tuning, "clone", lambda estimator: estimator)
    monkeypatch.setattr(curves_module, "clone", lambda estimator: estimator)
    real_fit_and_predict = curves_module.fit_and_predict

    def spy(args):
        fits.append((args[4][:, 0].astype(int), args[6][:, 0].astype(int)))
        return real_fit_and_predict(args)

    monkeypatch.setattr(curves_module, "fit_and_predict", spy)
    table = coded_texts(240, shares=(0.8, 0.15, 0.05), seed=4)
    options = LearningCurveOptions(sizes=(60, 120), repeats=2)
    result = run_learning_curve(study([ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})], oversampling="random"),
                                table=table, n_jobs=1, options=options)
    from guiapp.core.study.study_data import load_study_data

    data = load_study_data(study([NB]), table=table)
    test_rows = set(data.split.test.tolist())
    plan = CurvePlan.make(data.split.train, data.y, result.sizes, result.repeat_seeds)
    assert len(fits) == 3 * 2  # sizes 60, 120 and all 168 training texts, 2 draws each
    for learnt, predicted in fits:
        assert len(np.unique(learnt)) < len(learnt)  # oversampled: copies of the smaller categories …
        size = len(np.unique(learnt))
        assert any(set(learnt) == set(plan.subset(size, r)) for r in range(2))  # … drawn from this subset only
        assert not set(learnt) & test_rows
        assert sorted(predicted) == sorted(test_rows)  # every fit predicts the same, whole test set
    assert all(not rows & test_rows for rows in fitted_on)  # features never learn from test texts


def test_cancel_stops_between_fits_and_keeps_the_finished_models() -> None:
    fits_seen = []

    def on_event(event) -> None:
        if isinstance(event, Progress) and "training on" in event.message:
            fits_seen.append(event.done)
            if event.task == 1 and event.done == 1:
                raise Cancelled()

    with pytest.raises(Cancelled) as stopped:
        run_learning_curve(study([NB, NB]), on_event, table=coded_texts(200), n_jobs=1, options=QUICK)
    partial = stopped.value.partial
    assert partial.status == "cancelled" and [m.name for m in partial.models] == [NB.display_name]
    assert fits_seen[-1] == 1  # stopped after the second model's first fit


def test_result_round_trips_through_json_and_is_written_whole(tmp_path) -> None:
    result = run_learning_curve(study([NB]), table=coded_texts(160), n_jobs=1, options=QUICK)
    again = LearningCurveResult.from_json(result.to_json())
    assert again == result
    assert again.models[0].summary() == result.models[0].summary()
    written = write_learning_curve(result, tmp_path / "curve")
    assert [path.name for path in written] == ["learning-curve.json", CURVE_CSV_NAME]
    assert LearningCurveResult.from_json(written[0].read_text(encoding="utf-8")) == result


def _curve(means_by_size: dict[int, list[float]], categories_by_size: dict[int, list[float]]) -> ModelCurve:
    points = [CurvePoint(size, repeat + 1, value, categories_by_size[size])
              for size, values in means_by_size.items() for repeat, value in enumerate(values)]
    return ModelCurve("SVM", "bow", "svm", {}, points=points)


def test_the_plain_reading_says_whether_the_curve_still_rises_and_which_categories_gain() -> None:
    cats = {500: [0.9, 0.40, 0.60], 1_000: [0.9, 0.50, 0.62], 2_000: [0.91, 0.60, 0.63]}
    rising = read_curve(_curve({500: [0.60, 0.62], 1_000: [0.66, 0.67], 2_000: [0.72, 0.73]}, cats), ["a", "b", "c"])
    assert rising.trend == "rising" and rising.from_size == 1_000 and rising.to_size == 2_000
    assert abs(rising.gain_per_doubling - 0.06) < 1e-9 and "still rising" in rising.words
    assert "“b” (+0.100 F1 per doubling)" in rising.words and max(rising.category_slopes, key=rising.category_slopes.get) == "b"
    flat = read_curve(_curve({500: [0.70, 0.74], 1_000: [0.78, 0.70], 2_000: [0.74, 0.75]}, cats), ["a", "b", "c"])
    assert flat.trend == "levelling off" and "help little" in flat.words
    short = read_curve(_curve({500: [0.7]}, {500: [0.7, 0.7, 0.7]}), ["a", "b", "c"])
    assert short.trend == "too short"


@pytest.mark.slow  # importing torch and transformers takes most of its time; the 8 fine-tunings take about 2 s
def test_a_fine_tuned_transformer_learns_from_the_subsets_only(tmp_path, monkeypatch) -> None:
    from guiapp.core.models.transformers import fine_tuning
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    table = coded_texts(120, seed=6)
    table["text"] = [f"{text} n{i}" for i, text in enumerate(table["text"])]  # every text unique
    words = sorted({word.strip(".").lower() for text in table["text"] for word in text.split()})
    folder = save_tiny_bert(tmp_path / "tiny bert", tiny_tokenizer(tmp_path / "vocabulary", words))
    learned: list[list[str]] = []
    real_fine_tune = fine_tuning.fine_tune

    def spy(path, texts, labels, n_labels, settings, on_event):
        learned.append(list(texts))
        return real_fine_tune(path, texts, labels, n_labels, settings, on_event)

    monkeypatch.setattr(fine_tuning, "fine_tune", spy)
    model = ModelSpec("transformer", "fine_tune", representation_options={"model": str(folder), "max_length": 32,
                                                                          "batch_size": 16, "device": "cpu"},
                      grid={"learning_rate": [1e-3, 3e-3], "epochs": [1]})
    result = run_learning_curve(study([model], oversampling="random"), table=table, n_jobs=1,
                                options=LearningCurveOptions(sizes=(30, 60), repeats=2))
    curve = result.models[0]
    assert curve.ok, curve.message
    assert [(p.size, p.repeat) for p in curve.points] == [(30, 1), (30, 2), (60, 1), (60, 2), (84, 1), (84, 2)]
    assert curve.tuning[0].how.startswith("one validation split") and curve.tuning[0].tuned_on_size == 84
    assert len(learned) == 2 + 6  # two settings tried on the tuning subset, then one fit per size and draw
    from guiapp.core.study.study_data import load_study_data

    data = load_study_data(study([model]), table=table)
    test_texts = {data.texts[i] for i in data.split.test}
    assert len(test_texts) == result.n_test
    assert not test_texts & {text for texts in learned for text in texts}  # no test text was ever learnt from


@pytest.mark.slow  # starting the worker processes takes most of its time on a busy 2-core machine
def test_fits_in_worker_processes_give_the_same_curve() -> None:
    table = coded_texts(200, seed=9)
    in_process = run_learning_curve(study([NB]), table=table, n_jobs=1, options=QUICK)
    in_workers = run_learning_curve(study([NB]), table=table, n_jobs=2, options=QUICK)

    def scores(result):
        return [(p.size, p.repeat, p.macro_f1, p.category_f1) for p in result.models[0].points]

    assert scores(in_workers) == scores(in_process)
