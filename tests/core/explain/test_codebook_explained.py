"""Explaining a language model with your codebook: by leaving words out, through the model's own
probability of the chosen category (or, where a text can have several, of "yes" to that category's
question), as zero-shot and SetFit models are — never with gradients or attention, which a server
does not have. The model is real (saved, opened as Predict and Documents open it) on a tiny random
causal LM: the numbers mean nothing about language, but every score must be exactly the drop of the
chosen category's probability when its word is left out."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, OCCLUSION
from guiapp.core.explain.choose_method import available_methods, explain_document, explain_documents, method_for
from guiapp.core.explain.corpus_words import reads_punctuation
from guiapp.core.explain.explain_jobs import explain_all, explain_one
from guiapp.core.explain.job_estimate import JobEstimate, answer_units, estimate_answering, estimate_explaining
from guiapp.core.explain.words import split_words, text_without
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import release_language_model
from guiapp.core.predict.open_model import open_trained_model
from tests.core.predict.codebook_samples import NAMES, TEST, saved_codebook, tiny_lm

TEXT = "Taxes and prices rise while jobs are lost."


@pytest.fixture(scope="module")
def lm_folder(tmp_path_factory) -> str:
    return str(tiny_lm(tmp_path_factory.mktemp("codebook-lm")))


@pytest.fixture(autouse=True)
def fresh_models():
    codebook_model_module._OPENED.clear()
    yield
    release_language_model()


def opened(folder, lm_folder, multi_label=False):
    saved_codebook(folder, lm_folder, multi_label=multi_label)
    return open_trained_model(folder, "Codebook language model (tiny)")


def drops(model, text, target):
    """The chosen category's probability for the whole text, and its drop without each word."""
    spans = split_words(text)
    probabilities = model.answer([text, *(text_without(text, spans, {i}) for i in range(len(spans)))])[1][:, target]
    return probabilities[0], probabilities[0] - probabilities[1:]


def test_leaving_words_out_is_the_only_method(lm_folder, tmp_path):
    model = opened(tmp_path / "m", lm_folder)
    assert available_methods(model) == [OCCLUSION]
    assert [method_for(model, target=k) for k in range(3)] == [OCCLUSION] * 3
    with pytest.raises(UserError, match="cannot explain"):
        method_for(model, INTEGRATED_GRADIENTS)  # no gradients: a server has none to give


@pytest.mark.parametrize("target", [0, 2])
def test_the_scores_are_the_drops_of_the_chosen_category_s_probability(lm_folder, tmp_path, target):
    model = opened(tmp_path / "m", lm_folder)
    attribution = explain_document(model, TEXT, target)
    whole, expected = drops(model, TEXT, target)
    assert attribution.method == OCCLUSION and attribution.scale == "probability"
    assert attribution.target_name == NAMES[target] and f"“{NAMES[target]}”" in attribution.method_sentence
    assert attribution.probability == pytest.approx(whole)
    assert [span.text for span in attribution.words] == [span.text for span in split_words(TEXT)]
    assert np.allclose(attribution.scores, expected, atol=1e-9)
    assert np.abs(expected).max() > 1e-6  # the words do move the probability: the check is not empty
    # the word that matters most is the one whose leaving out changes the probability most
    assert int(np.argmax(np.abs(attribution.scores))) == int(np.argmax(np.abs(expected)))


def test_without_a_category_the_model_s_own_answer_is_explained(lm_folder, tmp_path):
    model = opened(tmp_path / "m", lm_folder)
    answered = int(model.answer([TEXT])[0][0])
    found = explain_one(model, TEXT)
    assert found.attribution.target == answered and found.faithfulness is not None
    assert found.attention is None  # a generative language model's attention is not shown


def test_several_categories_per_text_explain_the_category_s_yes(lm_folder, tmp_path):
    model = opened(tmp_path / "m", lm_folder, multi_label=True)
    decisions, probabilities = model.answer([TEXT])
    assert decisions.shape == (1, 3) and not np.allclose(probabilities.sum(axis=1), 1.0)
    attribution = explain_document(model, TEXT, 1)
    whole, expected = drops(model, TEXT, 1)
    assert attribution.target_name == NAMES[1] and attribution.probability == pytest.approx(whole)
    assert np.allclose(attribution.scores, expected, atol=1e-9)
    together = explain_documents(model, [TEXT, TEST[0]], [1, 1])  # batched: the same numbers
    assert np.allclose(together[1].scores, drops(model, TEST[0], 1)[1], atol=1e-9)


def test_explaining_all_documents_and_the_words_per_category(lm_folder, tmp_path):
    model = opened(tmp_path / "m", lm_folder)
    found = explain_all(model, TEST[:3], NAMES)
    assert len(found.documents) == 3 and {a.method for _, a, _ in found.documents} == {OCCLUSION}
    assert found.words is not None and found.words.method == OCCLUSION
    assert reads_punctuation(model)  # a language model reads the text as written


def test_the_cost_counts_prompt_passes_and_says_why_it_is_slow(lm_folder, tmp_path):
    single = opened(tmp_path / "one", lm_folder)
    several = opened(tmp_path / "several", lm_folder, multi_label=True)
    # every answer reads the whole prompt around the text, once per question
    assert answer_units(single, 0) >= single.prompt_words > 20
    assert answer_units(single, 40) - answer_units(single, 5) == pytest.approx(35)
    assert answer_units(several, 10) == pytest.approx(3 * (several.prompt_words + 12))  # three questions
    estimate = estimate_explaining(single, TEST)
    assert estimate.documents == len(TEST) and estimate.seconds > 0
    assert "again for every word left out" in estimate.note and "processor" in estimate.note
    assert estimate.note in estimate.question()
    answering = estimate_answering([single], TEST)
    assert answering.documents == len(TEST) and 0 < answering.seconds < estimate.seconds
    assert "once per text" in answering.note and "word left out" not in answering.note
    assert estimate_answering([], TEST) == JobEstimate(0.0, 0)


def test_the_top_words_of_new_texts_come_from_leaving_words_out(lm_folder, tmp_path):
    from guiapp.core.explain.top_words import is_quick, predict_with_words, quick_in_result

    model = opened(tmp_path / "m", lm_folder)
    assert not is_quick(model) and not quick_in_result("codebook_llm", "in_textlab", {"k": 1, "instruction": 0})
    found = predict_with_words([model], [TEXT, ""], top_words=True)
    cells = found.top_words_of(0)
    assert cells is not None and cells[1] == "" and "(" in cells[0]
    best = explain_document(model, TEXT, int(found.predictions[0].predicted[0]))
    strongest = max(zip(best.words, best.scores, strict=True), key=lambda pair: abs(pair[1]))[0].text
    assert strongest in cells[0]


def test_a_combined_model_explains_and_times_its_language_model_part(lm_folder, tmp_path):
    """Combined models are built from every ticked model: a language-model part is explained by
    leaving words out, weighed as the vote weighs it; it sets the pace of predicting and the estimate."""
    from guiapp.core.experiment.combined.combining import WeightedVote
    from guiapp.core.explain.attribution import COMBINED_PARTS
    from guiapp.core.predict.combined_model import CombinedModel
    from guiapp.core.predict.new_texts import answer_chunk_size

    first = opened(tmp_path / "one", lm_folder)
    saved_codebook(tmp_path / "zero", lm_folder, k=0)
    second = open_trained_model(tmp_path / "zero", "Codebook language model (zero-shot)")
    combined = CombinedModel("Combined: weighted vote", [first, second], WeightedVote([0.7, 0.3]), NAMES)
    attribution = explain_document(combined, TEXT, 1)
    assert attribution.method == COMBINED_PARTS and [p["method"] for p in attribution.details["parts"]] == \
        [OCCLUSION, OCCLUSION]
    expected = 0.7 * drops(first, TEXT, 1)[1] + 0.3 * drops(second, TEXT, 1)[1]
    assert np.allclose(attribution.scores, expected, atol=1e-7)
    assert answer_chunk_size(combined) == first.chunk_size < 2048
    assert answer_units(combined, 10) == pytest.approx(answer_units(first, 10) + answer_units(second, 10))
    estimate = estimate_answering([combined], TEST[:3])
    assert estimate.seconds > 0 and estimate.note.startswith("Its part Codebook language model (tiny)")
