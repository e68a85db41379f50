"""Combined models: learnt from out-of-fold probabilities only, weights that sum to one, a combination
of one model is that model, and a saved combined model answers as it did in the study."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.experiment.combined import combining
from guiapp.core.experiment.run import runner as runner_module
from guiapp.core.experiment.results.artefacts import COMBINED_FILE
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.sections import ModelSpec
from tests.core.experiment.run.test_runner import study
from tests.core.synthetic_texts import coded_texts

TWO = [ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]}),
       ModelSpec("bow", "logistic_regression", grid={"C": [1.0]})]


def _probabilities(rng: np.random.Generator, y: np.ndarray, n_categories: int, signal: float) -> np.ndarray:
    logits = rng.normal(size=(len(y), n_categories))
    logits[np.arange(len(y)), y] += signal
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def test_out_of_fold_probabilities_never_come_from_a_fit_on_their_own_texts(monkeypatch) -> None:
    """A spy: the representation's only feature is the row number, so every fit shows its rows; each
    training text's out-of-fold probabilities must come from a fit that did not contain it."""
    from guiapp.core.experiment.protocol import fitting, tuning

    class RowNumbers:
        def get_params(self, deep=True):
            return {}

        def set_params(self, **params):
            return self

        def prepare(self, texts, on_event=None):
            return np.arange(len(texts))

        def fit_prepared(self, prepared, rows):
            return self

        def transform_prepared(self, prepared, rows):
            return np.asarray(prepared[rows], dtype=float).reshape(-1, 1)

    asked: list[tuple[set[int], set[int]]] = []  # (rows fitted on, rows given probabilities)
    real = fitting.fitted_probabilities

    def spy(args):
        X_train, X_valid = args[4], args[6]
        asked.append((set(X_train[:, 0].astype(int)), set(X_valid[:, 0].astype(int))))
        return real(args)

    monkeypatch.setattr("guiapp.core.features.make_representation", lambda kind, options: RowNumbers())
    monkeypatch.setattr(tuning, "clone", lambda estimator: estimator)
    monkeypatch.setattr(runner_module, "clone", lambda estimator: estimator)
    monkeypatch.setattr(fitting, "fitted_probabilities", spy)
    result = runner_module.run_experiment(study(TWO, oversampling="random"), table=coded_texts(180), n_jobs=1)
    assert len(asked) == 2 * 3  # each model refitted in each of the 3 folds
    test_rows = {row - 2 for row in result.test_rows}
    for model in range(2):
        covered: set[int] = set()
        for fitted, given in asked[3 * model: 3 * model + 3]:
            assert not fitted & given  # never its own texts …
            assert not (fitted | given) & test_rows  # … and never a test text
            covered |= given
        assert len(covered) == result.split["n_train"]  # every training text once
    names = [model.name for model in result.models]
    assert names[2:] == ["Combined: weighted vote", "Combined: stacking"]


def test_vote_weights_sum_to_one_and_favour_the_better_model() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 600)
    good, poor, noise = (_probabilities(rng, y, 4, signal) for signal in (2.5, 0.8, 0.0))
    vote = combining.choose_vote_weights([poor, good, noise], y)
    assert sum(vote.weights) == pytest.approx(1.0)
    assert all(weight >= 0 for weight in vote.weights)
    assert vote.weights[1] == max(vote.weights) and vote.weights[2] < vote.weights[1]
    combined = vote.combine([poor, good, noise])
    assert np.allclose(combined.sum(axis=1), 1.0)


def test_a_combination_of_one_model_is_that_model() -> None:
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200)
    only = _probabilities(rng, y, 3, 1.5)
    vote = combining.choose_vote_weights([only], y)
    assert vote.weights == [1.0]
    assert np.array_equal(vote.combine([only]), only)
    # and a vote that gives one of two models all the weight answers as that model
    other = _probabilities(rng, y, 3, 0.5)
    assert np.array_equal(combining.WeightedVote([0.0, 1.0]).combine([other, only]), only)


def test_stacking_learns_which_model_to_trust_and_round_trips() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 400)
    good, noise = _probabilities(rng, y, 3, 3.0), _probabilities(rng, y, 3, 0.0)
    stacking = combining.fit_stacking([noise, good], y, 3, seed=1)
    assert stacking.part_influence[1] > stacking.part_influence[0]
    assert len(stacking.fold_scores) == 5 and stacking.cv_macro_f1 > 0.8
    again = combining.combiner_from_dict(stacking.to_dict())
    assert np.allclose(again.combine([noise, good]), stacking.combine([noise, good]))
    assert np.allclose(stacking.combine([noise, good]).sum(axis=1), 1.0)


def test_stacking_on_few_texts_is_shrunk_towards_the_vote() -> None:
    rng = np.random.default_rng(8)
    for n, share in ((100, 1 / 3), (1800, 0.9)):
        y = rng.integers(0, 3, n)
        parts = [_probabilities(rng, y, 3, 1.0), _probabilities(rng, y, 3, 2.0)]
        vote = combining.choose_vote_weights(parts, y)
        stacking = combining.fit_stacking(parts, y, 3, seed=1, vote=vote)
        assert stacking.regression_share == pytest.approx(share, abs=1e-3)
        alone = combining.Stacking(**{**stacking.__dict__, "regression_share": 1.0})
        kept = stacking.regression_share
        expected = kept * alone.combine(parts) + (1 - kept) * vote.combine(parts)
        assert np.allclose(stacking.combine(parts), expected)
        again = combining.combiner_from_dict(stacking.to_dict())
        assert np.allclose(again.combine(parts), stacking.combine(parts))


def test_fast_macro_f1_matches_scikit_learn() -> None:
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(6)
    for _ in range(50):
        k = int(rng.integers(2, 6))
        y, predicted = rng.integers(0, k, 40), rng.integers(0, k, 40)
        if rng.random() < 0.3:
            predicted[:] = 0
        assert combining.macro_f1(y, predicted) == pytest.approx(f1_score(y, predicted, average="macro", zero_division=0))


def test_combined_models_are_tested_saved_reopened_and_answer_as_in_the_study(tmp_path) -> None:
    result = runner_module.run_experiment(study(TWO), table=coded_texts(240), n_jobs=1, artefacts_dir=tmp_path)
    combined = [model for model in result.models if model.representation == "combined"]
    assert [model.classifier for model in combined] == ["weighted_vote", "stacking"]
    for model in combined:
        assert model.ok and model.test.macro_f1_ci is not None
        assert model.spec["parts"] == [part.name for part in TWO_NAMES(result)]
        assert sum(model.spec["weights"].values()) == pytest.approx(1.0, abs=1e-3)
        assert len(model.cv_scores) >= 2 and len(model.predictions) == len(result.test_true)
        assert (tmp_path / model.artefact.split("/")[-1] / COMBINED_FILE).is_file()
        opened = open_trained_model(model.artefact, model.name)
        decisions, probabilities = opened.answer(result.test_texts)
        assert np.allclose(probabilities, model.probabilities, atol=1e-5)
        assert decisions.tolist() == model.predictions
    vote = combined[0]
    singles = [np.asarray(part.probabilities) for part in TWO_NAMES(result)]
    weights = list(vote.spec["weights"].values())
    assert np.allclose(sum(w * p for w, p in zip(weights, singles, strict=True)), vote.probabilities, atol=1e-4)
    again = type(result).from_json(result.to_json())
    assert [model.name for model in again.models] == [model.name for model in result.models]
    for model in combined:  # compared with its parts on the same held-out folds as its own scores
        evidence = again.models[result.models.index(model)].combination.against_parts
        assert evidence is not None and evidence.folds == len(model.cv_scores)
        assert evidence.score == pytest.approx(np.mean(model.cv_scores))
        assert evidence.best_part in model.spec["parts"] and evidence.learnt_on_texts == model.spec["learnt_on_texts"]
    assert result.recommendation() is not None and result.best() is result.recommendation().model


def TWO_NAMES(result):  # noqa: N802 — the two single models of the study, in order
    return [model for model in result.models if model.representation != "combined"]


def test_a_combined_model_without_its_parts_says_what_is_missing(tmp_path) -> None:
    from guiapp.core.errors import UserError

    result = runner_module.run_experiment(study(TWO), table=coded_texts(150), n_jobs=1, artefacts_dir=tmp_path)
    vote = next(model for model in result.models if model.classifier == "weighted_vote")
    import shutil

    shutil.rmtree(TWO_NAMES(result)[0].artefact)
    with pytest.raises(UserError, match="needs the trained model"):
        open_trained_model(vote.artefact, vote.name)
    (tmp_path / "forged").mkdir()
    (tmp_path / "forged" / COMBINED_FILE).write_text('{"format": "textlab-combined-model", "version": 1, '
                                                     '"categories": ["a"], "parts": [{"name": "x", "folder": "../../etc"}], '
                                                     '"combiner": {"method": "weighted_vote", "weights": [1]}}')
    with pytest.raises(UserError, match="damaged"):
        open_trained_model(tmp_path / "forged", "forged")


def test_switching_combination_off_or_one_model_gives_no_combined_model() -> None:
    off = runner_module.run_experiment(study(TWO, combine=False), table=coded_texts(120), n_jobs=1)
    one = runner_module.run_experiment(study(TWO[:1]), table=coded_texts(120), n_jobs=1)
    assert all(model.representation != "combined" for model in off.models + one.models)
    assert len(off.models) == 2 and len(one.models) == 1
