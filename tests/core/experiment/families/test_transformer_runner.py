"""A fine-tuned Transformer inside a study: same split and metrics as the other models,
validation-split tuning on a CPU, oversampling only in what it learns from, a reloadable model.

Bundled MiniLM, 32-token texts, one epoch: a few seconds per training run on 2 CPU cores."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.events import Cancelled, Log, Metric
from guiapp.core.experiment.families import transformer_runner
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts

pytestmark = pytest.mark.slow

TRANSFORMER = ModelSpec(
    "transformer",
    "fine_tune",
    representation_options={"max_length": 32, "batch_size": 8},
    grid={"learning_rate": [3e-4], "epochs": [1]},
)


def study(models, **evaluation) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(**{"folds": 3, "bootstrap_samples": 200, **evaluation}),
        models=models,
        seed=3,
    )


def test_transformer_beside_a_conventional_model(tmp_path, monkeypatch) -> None:
    from guiapp.core.experiment.families import transformer_out_of_fold
    monkeypatch.setattr(transformer_out_of_fold, "AFFORDABLE_SECONDS", 0.0)  # as for a large model or many texts
    events = []
    result = run_experiment(
        study([ModelSpec("bow", "naive_bayes"), TRANSFORMER]), events.append,
        table=coded_texts(90, seed=1), n_jobs=1, artefacts_dir=tmp_path,
    )  # fmt: skip
    bow, transformer, vote, stacking = result.models
    assert transformer.ok, transformer.message
    # combined with the conventional model on the validation texts, the only ones held out from both
    n_valid = round(result.split["n_train"] * 0.2)
    assert vote.spec["parts"] == [bow.name, transformer.name] and stacking.ok
    assert abs(vote.spec["learnt_on_texts"] - n_valid) <= 1 and "validation split" in vote.spec["learnt_on"]
    assert (tmp_path / "Combined--weighted-vote" / "combined.json").is_file()
    assert len(transformer.predictions) == len(bow.predictions) == len(result.test_true)
    assert transformer.spec["tuning"].startswith("one validation split")  # no GPU here
    assert transformer.spec["device"]["kind"] == "cpu"
    assert len(transformer.cv_scores) == 1 and transformer.chosen_params == {"learning_rate": 3e-4, "epochs": 1}
    assert np.allclose(np.sum(transformer.probabilities, axis=1), 1.0, atol=1e-5)
    assert transformer.n_features > 20_000_000  # MiniLM's weights
    assert any("cut" in note or "nothing was cut" in note for note in transformer.spec["notes"])
    losses = [e for e in events if isinstance(e, Metric) and e.name == "loss"]
    assert losses and all(e.task == 1 for e in losses) and {e.run.split(" (")[0] for e in losses} >= {"setting 1 of 1", "final model"}
    assert any(isinstance(e, Log) and "validation split" in e.message for e in events)

    from guiapp.core.models.transformers.fine_tuning import load_fine_tuned, predict_proba

    reloaded, categories = load_fine_tuned(transformer.artefact)
    assert categories == result.categories
    probabilities = predict_proba(reloaded, result.test_texts)
    np.testing.assert_allclose(probabilities, transformer.probabilities, atol=2e-6)


def test_training_texts_never_include_validation_or_test_texts(monkeypatch) -> None:
    from guiapp.core.models.transformers import fine_tuning as transformer_module

    learned: list[list[str]] = []
    scored: list[list[str]] = []
    real_fine_tune, real_predict = transformer_module.fine_tune, transformer_module.predict_proba

    def spy_fine_tune(path, texts, labels, n_labels, settings, on_event):
        learned.append(list(texts))
        return real_fine_tune(path, texts, labels, n_labels, settings, on_event)

    def spy_predict(model, texts, on_event=None):
        scored.append(list(texts))
        return real_predict(model, texts)

    monkeypatch.setattr(transformer_module, "fine_tune", spy_fine_tune)
    monkeypatch.setattr(transformer_module, "predict_proba", spy_predict)
    table = coded_texts(80, shares=(0.75, 0.17, 0.08), seed=2)
    table["text"] = [f"{text} n{i}" for i, text in enumerate(table["text"])]  # every text unique
    result = run_experiment(study([TRANSFORMER], oversampling="random"), table=table, n_jobs=1)
    assert result.models[0].ok, result.models[0].message
    test_texts = set(result.test_texts)
    (tuning_set, final_set), (valid_set, test_set) = learned, scored
    assert len(tuning_set) > len(set(tuning_set))  # oversampled: copies of smaller categories …
    assert len(valid_set) == len(set(valid_set))  # … never in the validation split
    assert not set(tuning_set) & set(valid_set)
    assert not (set(tuning_set) | set(valid_set) | set(final_set)) & test_texts
    assert set(test_set) == test_texts


def test_cancel_during_fine_tuning_stops_the_study() -> None:
    steps = []

    def on_event(event) -> None:
        if isinstance(event, Metric):
            steps.append(event.step)
            if len(steps) == 2:
                raise Cancelled()

    with pytest.raises(Cancelled):
        run_experiment(study([TRANSFORMER]), on_event, table=coded_texts(80, seed=4), n_jobs=1)
    assert len(steps) == 2


def test_cross_validation_when_asked_uses_the_studys_folds(monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(
        transformer_runner, "tuning_splits",
        lambda data, folds, spec, on_gpu, real=transformer_runner.tuning_splits: calls.append(len(folds)) or real(data, folds, spec, on_gpu),
    )  # fmt: skip
    spec = study([TRANSFORMER], transformer_tuning="cross-validation", folds=2)
    result = run_experiment(spec, table=coded_texts(60, seed=5), n_jobs=1)
    assert calls == [2]
    assert result.models[0].spec["tuning"] == "2-fold cross-validation"
    assert len(result.models[0].cv_scores) == 2


def test_an_unreachable_hub_model_fails_with_a_message_and_the_study_goes_on() -> None:
    broken = ModelSpec("transformer", "fine_tune", representation_options={"model": "someone/not-downloaded-model"})
    result = run_experiment(study([broken, ModelSpec("bow", "naive_bayes")]), table=coded_texts(60), n_jobs=1)
    assert result.models[0].status == "failed" and "offline" in result.models[0].message.lower()
    assert result.models[1].ok
