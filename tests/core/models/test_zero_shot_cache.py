"""A zero-shot similarity model in a study reads the study's texts as the sentence-embedding
representation embeds them: the same vectors (checked with the bundled all-MiniLM-L6-v2), kept in
the app's embedding cache, so a second run — or logistic regression on sentence embeddings of the
same model in the same study — does not embed the texts again, and the probabilities stay the same.

A tiny randomly initialised BERT stands in for a sentence model in the studies (the tests check the
engine, not language)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from guiapp.core.events import Log
from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.experiment.families.study_text_vectors import StudyTextVectors, sentence_representation, study_text_vectors
from guiapp.core.features.sentence_embeddings import SentenceEmbeddings
from guiapp.core.models.zero_shot import ZeroShotSimilarity
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import SHARED, TOPIC_WORDS, coded_texts
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

CATEGORIES = ["economy", "health", "sport"]
TEXTS = [
    "Inflation rose again and unemployment is climbing.",
    "A new vaccine reduces the risk of severe illness.",
    "The team won the championship after a penalty shootout.",
    "",
    "word " * 400,  # longer than the model reads: both ways keep its first tokens
]
READ_FROM_CACHE = "from the cache"


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty embedding cache for this test only."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many texts each embedding by the sentence-embedding representation had (one entry a call)."""
    calls: list[int] = []
    original = SentenceEmbeddings._embed

    def counting(self, texts, tokenizer, model, on_event):  # noqa: ANN001, ANN202
        calls.append(len(texts))
        return original(self, texts, tokenizer, model, on_event)

    monkeypatch.setattr(SentenceEmbeddings, "_embed", counting)
    return calls


@pytest.fixture
def embedded_by_zero_shot(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many texts (not descriptions) the zero-shot model embedded itself (one entry a call)."""
    calls: list[int] = []
    original = ZeroShotSimilarity._embed

    def counting(self, texts, on_event, what):  # noqa: ANN001, ANN202
        if what != "Embedding the descriptions":
            calls.append(len(texts))
        return original(self, texts, on_event, what)

    monkeypatch.setattr(ZeroShotSimilarity, "_embed", counting)
    return calls


@pytest.fixture(scope="module")
def sentence_model(tmp_path_factory) -> Path:
    """A tiny sentence model saved as a researcher's model folder (it reads at most 128 tokens)."""
    words = sorted({*SHARED, *(word for topic in TOPIC_WORDS.values() for word in topic), *TOPIC_WORDS,
                    "this", "text", "is", "about"})
    root = tmp_path_factory.mktemp("tiny sentence model")
    return save_tiny_bert(root / "tiny-sentence", tiny_tokenizer(root / "vocabulary", words))


def similarity(folder: Path) -> ModelSpec:
    return ModelSpec("zero_shot", "similarity", representation_options={"model": str(folder)})


def study(models: list[ModelSpec]) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=100), models=models, seed=3,
    )


def said(events: list) -> str:
    return " ".join(event.message for event in events if isinstance(event, Log))


def test_the_bundled_model_gives_the_same_vectors_both_ways():
    scorer = ZeroShotSimilarity(CATEGORIES)
    representation = sentence_representation(scorer)
    # the representation the app runs by default: the same settings, so the same entry of the cache
    assert representation.get_params() == SentenceEmbeddings().get_params()
    own = scorer._embed(list(TEXTS), lambda event: None, "test")
    cached_way = representation.prepare(TEXTS, cache=False).matrix
    np.testing.assert_allclose(cached_way, own, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(cached_way, axis=1), 1.0, atol=1e-6)


def test_a_model_folder_is_read_as_far_as_the_model_reads(sentence_model: Path, fresh_cache: Path):
    scorer = ZeroShotSimilarity(CATEGORIES, model=sentence_model)
    representation = sentence_representation(scorer)
    assert representation.max_length == scorer.max_tokens() == 128  # its positions, not the 256 asked for
    assert Path(representation.model) == scorer.model_folder()
    own = scorer._embed(list(TEXTS), lambda event: None, "test")
    np.testing.assert_allclose(representation.prepare(TEXTS, cache=False).matrix, own, atol=1e-6)


def test_the_second_scoring_reads_the_cache_and_answers_the_same(sentence_model: Path, fresh_cache: Path,
                                                                  embedded: list[int]):
    study_texts = [*TEXTS, "The hospital is short of nurses and beds.", TEXTS[0]]  # a text twice
    scored = [TEXTS[2], TEXTS[0], study_texts[-2]]

    def answers() -> tuple[np.ndarray, list]:
        scorer = ZeroShotSimilarity(CATEGORIES, model=sentence_model)
        scorer.embed_texts = study_text_vectors(scorer, study_texts)
        events: list = []
        return scorer.predict_proba(scored, events.append), events

    first, events = answers()
    assert embedded == [len(study_texts)]  # the whole study's texts at once
    assert READ_FROM_CACHE not in said(events)
    second, events = answers()
    assert embedded == [len(study_texts)]  # nothing embedded again
    assert READ_FROM_CACHE in said(events)
    np.testing.assert_array_equal(second, first)
    without_cache = ZeroShotSimilarity(CATEGORIES, model=sentence_model).predict_proba(scored)
    np.testing.assert_allclose(first, without_cache, atol=1e-5)


def test_texts_asked_for_alone_are_cached_under_themselves(sentence_model: Path, fresh_cache: Path,
                                                           embedded: list[int]):
    study_texts = [*TEXTS, "The hospital is short of nurses and beds."]
    scorer = ZeroShotSimilarity(CATEGORIES, model=sentence_model)
    vectors = study_text_vectors(scorer, study_texts, every_text=False)
    first = vectors(TEXTS[:2], lambda event: None)
    assert embedded == [2]  # not the whole study when only some texts are scored
    np.testing.assert_array_equal(vectors(TEXTS[:2], lambda event: None), first)
    assert embedded == [2]
    representation = sentence_representation(scorer)
    representation.prepare(study_texts)  # the study's texts, embedded by the representation
    later = StudyTextVectors(study_texts, representation, every_text=False)
    np.testing.assert_allclose(later(TEXTS[:2], lambda event: None), first, atol=1e-6)
    assert embedded == [2, len(study_texts)]  # read from the study's entry


def test_a_rerun_of_a_study_reads_the_cache_and_scores_the_same(sentence_model: Path, fresh_cache: Path,
                                                                embedded: list[int], tmp_path: Path):
    table = coded_texts(60, seed=1)
    spec = study([similarity(sentence_model)])
    runs = []
    for run in range(2):
        events: list = []
        result = run_experiment(spec, events.append, table=table, n_jobs=1, artefacts_dir=tmp_path / f"run {run}")
        assert result.models[0].ok, result.models[0].message
        runs.append((result, said(events)))
    assert embedded == [60]
    assert READ_FROM_CACHE not in runs[0][1] and READ_FROM_CACHE in runs[1][1]
    (first, _), (second, _) = runs
    assert second.models[0].probabilities == first.models[0].probabilities
    assert second.models[0].cv_scores == first.models[0].cv_scores
    # the saved model embeds new texts as the study did (the representation, without the cache) and answers the same
    opened = open_trained_model(first.models[0].artefact, first.models[0].name)
    files_before = sorted(fresh_cache.rglob("*.npy"))
    _, probabilities = opened.answer(first.test_texts)
    np.testing.assert_allclose(probabilities, first.models[0].probabilities, atol=2e-5)
    assert embedded[-1] == len(first.test_texts) and sorted(fresh_cache.rglob("*.npy")) == files_before


def test_sentence_embeddings_and_zero_shot_of_one_model_embed_the_texts_once(sentence_model: Path,
                                                                              fresh_cache: Path,
                                                                              embedded: list[int],
                                                                              embedded_by_zero_shot: list[int],
                                                                              tmp_path: Path):
    logistic = ModelSpec("sentence_embeddings", "logistic_regression", grid={"C": [1.0]},
                         representation_options={"model": str(sentence_model), "max_length": 128})
    result = run_experiment(study([logistic, similarity(sentence_model)]), table=coded_texts(60, seed=1),
                            n_jobs=1, artefacts_dir=tmp_path / "models")
    assert all(model.ok for model in result.models[:2]), [model.message for model in result.models]
    assert embedded == [60] and embedded_by_zero_shot == []


def test_a_zero_shot_learning_curve_embeds_only_the_test_texts(sentence_model: Path, fresh_cache: Path,
                                                               embedded: list[int]):
    table = coded_texts(80, seed=4)
    curve = run_learning_curve(study([similarity(sentence_model)]), table=table, n_jobs=1,
                               options=LearningCurveOptions(sizes=(15, 30), repeats=1))
    assert curve.models[0].ok, curve.models[0].message
    assert len(embedded) == 1 and embedded[0] < len(table)
    again = run_learning_curve(study([similarity(sentence_model)]), table=table, n_jobs=1,
                               options=LearningCurveOptions(sizes=(15, 30), repeats=1))
    assert len(embedded) == 1  # the rerun read them from the cache
    assert [point.macro_f1 for point in again.models[0].points] == [point.macro_f1 for point in curve.models[0].points]
