"""The plan of a study counts every fit the runner makes, and says how each model is tuned.

The counts are checked against what a real run does: every fit of a conventional classifier and
every fine-tuning of a (tiny, randomly initialised) Transformer is counted as it happens."""

from __future__ import annotations

from collections import Counter

import pytest

from guiapp.core.events import Log
from guiapp.core.experiment.protocol import fitting
from guiapp.core.experiment.speed import estimates
from guiapp.core.experiment.run import runner as runner_module
from guiapp.core.experiment.run.run_plan import CROSS_VALIDATION, VALIDATION_SPLIT, plan_run
from guiapp.core.experiment.run.run_size import estimate_run
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import DEFAULT_MODELS, EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer


@pytest.fixture(autouse=True)
def no_measured_speeds(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))


def study(models: list[ModelSpec], **evaluation) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(**evaluation),
        models=models,
        seed=4,
    )


def default_models() -> list[ModelSpec]:
    return [ModelSpec(representation, classifier) for representation, classifier in DEFAULT_MODELS]


def test_the_runner_makes_exactly_the_fits_the_plan_counts(tmp_path, monkeypatch) -> None:
    table = coded_texts(90, seed=2)
    words = {word for text in table["text"] for word in str(text).lower().split()}
    tiny = save_tiny_bert(tmp_path / "tiny", tiny_tokenizer(tmp_path / "vocab", words))
    transformer = ModelSpec("transformer", "fine_tune",
                            representation_options={"model": str(tiny), "max_length": 32, "batch_size": 8},
                            grid={"learning_rate": [1e-3], "epochs": [1]})
    spec = study([ModelSpec("bow", "naive_bayes", grid={"alpha": [0.1, 1.0]}),
                  ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), transformer],
                 folds=3, bootstrap_samples=0, transformer_seeds=3, transformer_tuning="validation split")
    calls: Counter[str] = Counter()
    fit_classifier = fitting.fit_classifier

    def counted_fit(classifier, *args, **kwargs):
        calls[classifier] += 1
        return fit_classifier(classifier, *args, **kwargs)

    from guiapp.core.models.transformers import fine_tuning

    fine_tune = fine_tuning.fine_tune

    def counted_fine_tune(*args, **kwargs):
        calls["fine-tuning"] += 1
        return fine_tune(*args, **kwargs)

    monkeypatch.setattr(fitting, "fit_classifier", counted_fit)  # tuning and the refits in the folds
    monkeypatch.setattr(runner_module, "fit_classifier", counted_fit)  # the final fits
    monkeypatch.setattr(fine_tuning, "fine_tune", counted_fine_tune)
    logs: list[str] = []
    result = runner_module.run_experiment(
        spec, lambda event: logs.append(event.message) if isinstance(event, Log) else None, table=table, n_jobs=1)
    assert all(model.ok for model in result.models), [model.message for model in result.models]
    assert any(model.representation == "combined" for model in result.models)

    plan = plan_run(spec, n_train=result.split["n_train"], n_test=result.split["n_test"], gpu=False)
    bayes, regression, tuned = plan.models
    # 2 settings × 3 folds, the chosen one in each of the 3 folds for the combined models, then on all texts
    assert (bayes.tuning_fits, bayes.out_of_fold_fits, bayes.final_fits) == (6, 3, 1)
    assert (regression.tuning_fits, regression.out_of_fold_fits, regression.final_fits) == (3, 3, 1)
    # 1 setting on one validation split; the chosen setting in each of the 3 folds (a tiny model on few
    # texts: affordable), so every training text has held-out probabilities; then once per seed
    assert (tuned.tuning, tuned.tuning_fits, tuned.out_of_fold_fits, tuned.final_fits) == (VALIDATION_SPLIT, 1, 3, 3)
    assert calls == {"naive_bayes": bayes.fits, "logistic_regression": regression.fits, "fine-tuning": tuned.fits}
    assert plan.fits == 10 + 7 + 7 == sum(calls.values())
    said = next(line for line in logs if line.startswith("This study fits"))
    assert said.startswith("This study fits 24 models, under a minute on this computer. ")
    assert ("The Transformer is fine-tuned 7 times: 1 setting on one validation split (20 % of the training texts), "
            "once in each of 3 folds for the combined models, then the chosen setting with 3 seeds on all training "
            "texts.") in said
    combined = next(model for model in result.models if model.representation == "combined")
    assert combined.combination.learnt_on_texts == result.split["n_train"]  # every training text
    assert "cross-validation" in said.split("The Transformer")[0]  # the conventional models' own words
    assert "5-fold" not in said


def test_the_default_study_counts_refits_for_the_combined_models_and_embeds_once() -> None:
    plan = plan_run(study(default_models()), 653, 280, 3, 2)
    assert [model.fits for model in plan.models] == [12 * 5 + 5 + 1, 12 * 5 + 5 + 1, 5 * 5 + 5 + 1]
    assert plan.fits == 163 and plan.n_embedded == 933
    assert plan.describe() == (
        "The 3 models try 29 settings on each of 5 folds (5-fold cross-validation: 145 fits), then fit their chosen "
        "settings on all training texts (3 fits) and once more in each of the folds for the combined models "
        "(15 fits). Two combined models (a weighted vote and a stacking) are then learnt from the models' "
        "held-out probabilities. The 933 texts are turned into sentence embeddings once.")
    alone = plan_run(study(default_models(), combine=False), 653, 280, 3, 2)
    assert alone.fits == 163 - 15 and "combined" not in alone.describe()
    assert alone.seconds is not None and plan.seconds is not None and plan.seconds > alone.seconds


def test_repeated_folds_tune_on_every_draw_but_refit_on_the_first() -> None:
    plan = plan_run(study([ModelSpec("bow", "naive_bayes"), ModelSpec("bow", "svm")], folds=4, cv_repeats=3))
    assert [(model.tuning_fits, model.out_of_fold_fits) for model in plan.models] == [(3 * 12, 4), (12 * 12, 4)]
    assert ("try 15 settings on each of 12 folds (4-fold cross-validation, repeated 3 times with other folds: "
            "180 fits)") in plan.describe()
    assert "once more in each of the first 4 folds for the combined models (8 fits)" in plan.describe()


def test_the_transformer_is_tuned_on_folds_with_a_gpu_and_the_header_says_so() -> None:
    spec = study(default_models() + [ModelSpec("transformer", "fine_tune")], transformer_seeds=2)
    without = plan_run(spec, gpu=False)
    tuned = without.transformers[0]
    assert (tuned.tuning, tuned.settings, tuned.tuning_fits, tuned.final_fits) == (VALIDATION_SPLIT, 6, 6, 2)
    assert ("The Transformer is fine-tuned 8 times: 6 settings on one validation split (20 % of the training "
            "texts), then the chosen setting with 2 seeds on all training texts.") in without.describe()
    assert "5-fold cross-validation: 145 fits" in without.describe()  # the other models keep their folds
    with_gpu = plan_run(spec, gpu=True)
    assert with_gpu.transformers[0].tuning == CROSS_VALIDATION and with_gpu.transformers[0].fits == 6 * 5 + 2
    assert ("The Transformer is fine-tuned 32 times: 6 settings on each of 5 folds (5-fold cross-validation), then "
            "the chosen setting with 2 seeds on all training texts.") in with_gpu.describe()
    unknown = plan_run(spec, gpu=None).describe()
    assert "(without a GPU; with one, its settings are tried on each of 5 folds instead: 32 fine-tunings)" in unknown
    forced = plan_run(study([ModelSpec("transformer", "fine_tune")], transformer_tuning="validation split"), gpu=True)
    assert forced.transformers[0].tuning_fits == 6 and "without a GPU" not in forced.describe()
    on_cpu = study([ModelSpec("transformer", "fine_tune", representation_options={"device": "cpu"})])
    assert plan_run(on_cpu, gpu=True).transformers[0].tuning == VALIDATION_SPLIT  # it was told not to use the GPU


def test_the_estimate_adds_every_fit_seed_and_refit() -> None:
    one = study([ModelSpec("transformer", "fine_tune", grid={"learning_rate": [1e-4], "epochs": [2]})])
    three = study(one.models, transformer_seeds=3)
    single, seeded = estimate_run(one, 600, 200, 3).seconds, estimate_run(three, 600, 200, 3).seconds
    assert single is not None and seeded is not None
    final = estimates.transformer_seconds(one.models[0], 600, 200, tuning_splits=1, cross_validation=False)
    tuning_only = estimates.transformer_seconds(one.models[0], 600, 200, tuning_splits=1, cross_validation=False,
                                                seeds=0)
    assert seeded - single == pytest.approx(2 * (final - tuning_only))  # two more fine-tunings on all texts
    models = [ModelSpec("bow", "svm"), ModelSpec("bow", "naive_bayes")]
    refits = estimate_run(study(models), 2000, 500, 3, 2)
    alone = estimate_run(study(models, combine=False), 2000, 500, 3, 2)
    assert refits.seconds is not None and alone.seconds is not None and refits.seconds > alone.seconds
