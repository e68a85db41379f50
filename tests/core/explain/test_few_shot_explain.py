"""Explaining the models that need few or no coded texts (zero-shot, SetFit): by leaving words out,
through the model's own answer, for the category asked for — also where a text can have several.

The models are real (the engine's own classes) on a tiny randomly initialised BERT: the numbers
mean nothing about language, but every score must be exactly the drop of the chosen category's
probability when its word is left out."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.explain.attribution import LINEAR_EXACT, OCCLUSION
from guiapp.core.explain.choose_method import available_methods, explain_document, explain_documents, method_for
from guiapp.core.explain.corpus_words import reads_punctuation
from guiapp.core.explain.explain_jobs import explain_all, explain_one
from guiapp.core.explain.job_estimate import answer_units, estimate_explaining
from guiapp.core.explain.words import split_words, text_without
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

CATEGORIES = ["economy", "health", "schools"]
DESCRIPTIONS = {"economy": "Taxes, prices and jobs.", "health": "Hospitals and doctors."}
TEXTS = [
    "The new tax on prices hurts jobs.",
    "More doctors for the hospital, now!",
    "Teachers want smaller schools and classes.",
    "The budget pays for doctors and teachers.",
    "Prices of medicines rise again.",
    "Jobs in schools and hospitals.",
]
TEXT = "The hospital needs doctors, not taxes."
WORDS = sorted({word.strip(".,!").lower() for text in [*TEXTS, TEXT, *DESCRIPTIONS.values()] for word in text.split()})


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny sentence model")
    return save_tiny_bert(folder, tiny_tokenizer(folder, [*WORDS, "this", "text", "is", "about"]))


def zero_shot(model_folder, multi_label=False):
    from guiapp.core.models.zero_shot import ZeroShotSimilarity
    from guiapp.core.predict.zero_shot_model import ZeroShotTrainedModel

    similarity = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, str(model_folder), multi_label=multi_label,
                                    temperature=0.01)
    if multi_label:
        similarity.calibrate(TEXTS)
    return ZeroShotTrainedModel("Zero-shot · similarity", similarity)


@pytest.fixture(scope="module")
def setfit(model_folder, tmp_path_factory):
    """A SetFit model trained in a moment, saved and opened again as ``textlab explain`` opens it."""
    from guiapp.core.models.setfit import SetFitSettings, train_setfit
    from guiapp.core.predict.open_model import open_trained_model

    trained = train_setfit(TEXTS, np.array([0, 1, 2, 1, 0, 2]), 3,
                           SetFitSettings(pairs_per_text=1, batch_size=8, max_length=32, device="cpu"),
                           str(model_folder), categories=CATEGORIES)
    folder = tmp_path_factory.mktemp("setfit") / "SetFit"
    trained.save(folder)
    return open_trained_model(folder, "SetFit")


def drops(model, text, target):
    """The chosen category's probability for the whole text minus without each word, one at a time."""
    spans = split_words(text)
    shortened = [text_without(text, spans, {i}) for i in range(len(spans))]
    probabilities = model.answer([text, *shortened])[1][:, target]
    return probabilities[0], probabilities[0] - probabilities[1:]


def test_zero_shot_models_are_explained_by_leaving_words_out(model_folder):
    model = zero_shot(model_folder)
    assert model.family == "zero_shot"
    assert available_methods(model) == [OCCLUSION]
    assert [method_for(model, target=k) for k in range(3)] == [OCCLUSION] * 3
    with pytest.raises(UserError, match="cannot explain"):
        method_for(model, LINEAR_EXACT)


@pytest.mark.parametrize("target", [0, 1, 2])
def test_the_scores_are_the_drops_of_the_chosen_categorys_chance(model_folder, target):
    model = zero_shot(model_folder)
    attribution = explain_document(model, TEXT, target)
    whole, expected = drops(model, TEXT, target)
    assert attribution.method == OCCLUSION and attribution.scale == "probability"
    assert attribution.target == target and attribution.target_name == CATEGORIES[target]
    assert f"“{CATEGORIES[target]}”" in attribution.method_sentence
    assert attribution.probability == pytest.approx(whole)
    assert [span.text for span in attribution.words] == [span.text for span in split_words(TEXT)]
    assert np.allclose(attribution.scores, expected, atol=1e-7)
    assert np.abs(expected).max() > 1e-4  # the words do move the chance: the check is not empty


@pytest.mark.parametrize("multi_label", [False, True])
def test_an_nli_model_is_explained_the_same_way(tmp_path, multi_label):
    from guiapp.core.models.zero_shot import ZeroShotNLI
    from guiapp.core.predict.zero_shot_model import ZeroShotTrainedModel
    from tests.tiny_nli import save_tiny_nli

    folder = save_tiny_nli(tmp_path / "nli", [*WORDS, "this", "text", "is", "about"])
    model = ZeroShotTrainedModel("Zero-shot · NLI", ZeroShotNLI(CATEGORIES, DESCRIPTIONS, str(folder),
                                                                 multi_label=multi_label))
    assert model.multi_label == multi_label and available_methods(model) == [OCCLUSION]
    attribution = explain_document(model, TEXT, 2)
    whole, expected = drops(model, TEXT, 2)
    assert attribution.method == OCCLUSION and attribution.target_name == "schools"
    assert attribution.probability == pytest.approx(whole)
    # the texts are scored in other batches here (float32, padding): equal to a few parts in a billion
    assert np.allclose(attribution.scores, expected, rtol=1e-3, atol=1e-8)


def test_without_a_category_the_model_s_own_answer_is_explained(model_folder):
    model = zero_shot(model_folder)
    answered = int(model.answer([TEXT])[0][0])
    assert explain_document(model, TEXT).target == answered
    found = explain_one(model, TEXT)
    assert found.attribution.target == answered and found.faithfulness is not None


def test_several_categories_per_text_explain_one_category_s_own_chance(model_folder):
    model = zero_shot(model_folder, multi_label=True)
    decisions, probabilities = model.answer([TEXT])
    assert model.multi_label and decisions.shape == (1, 3)
    assert not np.allclose(probabilities.sum(axis=1), 1.0)  # each category on its own (sigmoid), no softmax
    for target in range(3):
        attribution = explain_document(model, TEXT, target)
        whole, expected = drops(model, TEXT, target)
        assert attribution.method == OCCLUSION and attribution.target == target
        assert attribution.probability == pytest.approx(whole)
        assert np.allclose(attribution.scores, expected, atol=1e-7)
    # many documents at once (batched) give the same numbers as one by one
    together = explain_documents(model, [TEXT, TEXTS[0]], [2, 2])
    assert np.allclose(together[0].scores, drops(model, TEXT, 2)[1], atol=1e-7)
    assert np.allclose(together[1].scores, drops(model, TEXTS[0], 2)[1], atol=1e-7)


def test_explaining_all_documents_of_a_zero_shot_model(model_folder):
    model = zero_shot(model_folder)
    found = explain_all(model, [*TEXTS, "  "], CATEGORIES)
    assert len(found.documents) == len(TEXTS) and found.positions == list(range(len(TEXTS)))
    decisions = model.answer(TEXTS)[0]
    for (text, attribution, record), decision in zip(found.documents, decisions, strict=True):
        assert attribution.method == OCCLUSION and attribution.target == int(decision)
        assert np.allclose(attribution.scores, drops(model, text, int(decision))[1], atol=1e-7)
        assert record is not None
    assert found.words is not None and found.words.method == OCCLUSION
    # a language model reads punctuation and costs more for a longer text
    assert reads_punctuation(model)
    assert answer_units(model, 40) > answer_units(model, 5)
    estimate = estimate_explaining(model, TEXTS)  # what the window asks before "Explain all documents"
    assert estimate.documents == len(TEXTS) and estimate.seconds > 0


def test_setfit_is_explained_by_leaving_words_out(setfit):
    assert setfit.family == "setfit"
    assert available_methods(setfit) == [OCCLUSION]
    for target in (0, 1):
        attribution = explain_document(setfit, TEXT, target)
        whole, expected = drops(setfit, TEXT, target)
        assert attribution.method == OCCLUSION and attribution.target_name == CATEGORIES[target]
        assert attribution.probability == pytest.approx(whole)
        assert np.allclose(attribution.scores, expected, atol=1e-7)
    found = explain_all(setfit, TEXTS[:3], CATEGORIES)
    assert {attribution.method for _, attribution, _ in found.documents} == {OCCLUSION}


def test_setfit_with_several_categories_per_text_explains_the_chosen_category(model_folder):
    from guiapp.core.models.setfit import SetFitSettings, train_setfit
    from guiapp.core.predict.setfit_model import SetFitTrainedModel

    Y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 0, 1]])
    trained = train_setfit(TEXTS, Y, 3, SetFitSettings(pairs_per_text=1, batch_size=8, max_length=32, device="cpu"),
                           str(model_folder), categories=CATEGORIES)
    model = SetFitTrainedModel("SetFit", trained)
    assert model.multi_label and available_methods(model) == [OCCLUSION]
    for target in range(3):
        attribution = explain_document(model, TEXT, target)
        whole, expected = drops(model, TEXT, target)
        assert attribution.target_name == CATEGORIES[target] and attribution.probability == pytest.approx(whole)
        assert np.allclose(attribution.scores, expected, atol=1e-7)


def test_textlab_explain_explains_a_studys_zero_shot_model(model_folder, tmp_path, capsys):
    """A study run from its file with a zero-shot model, then ``textlab explain`` on its results: the
    model is opened from its saved folder and explained by leaving words out, one document or all."""
    import pandas as pd

    from guiapp.cli.entry import main
    from guiapp.core.predict.saved_results import read_results

    rng = np.random.default_rng(0)
    topic_words = {"economy": ["tax", "prices", "jobs", "budget"], "health": ["doctors", "hospital", "medicines"],
                   "schools": ["teachers", "schools", "classes"]}
    rows = []
    for number in range(48):
        category = CATEGORIES[number % 3]
        words = [*rng.choice(topic_words[category], size=2), *rng.choice(["the", "new", "for", "more", "now"], size=3)]
        rng.shuffle(words)
        rows.append({"text": " ".join(words).capitalize() + ".", "label": category})
    pd.DataFrame(rows).to_csv(tmp_path / "coded.csv", index=False)
    (tmp_path / "study.toml").write_text(f"""
name = "Zero-shot topics"
[data]
source = "coded.csv"
[data.mapping]
text_columns = ["text"]
category_column = "label"
[evaluation]
folds = 3
test_share = 0.25
[[models]]
representation = "zero_shot"
classifier = "similarity"
representation_options = {{ model = '{model_folder}', descriptions = {{ health = "Hospitals and doctors." }} }}
""", encoding="utf-8")
    out = tmp_path / "results"
    assert main(["run", str(tmp_path / "study.toml"), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    result = read_results(out)
    assert [model.representation for model in result.models] == ["zero_shot"]
    name = result.models[0].name

    why = tmp_path / "why"
    row = result.test_rows[0]
    assert main(["explain", str(out), "--documents", str(row), "--category", "health", "--out", str(why)]) == 0, \
        capsys.readouterr().err
    words = pd.read_csv(why / "top words.csv", encoding="utf-8-sig")
    assert len(words) and (words.iloc[:, 0] == f"Row {row}").all()
    page = (why / "explanations.html").read_text(encoding="utf-8")
    assert "“health” drops when the word is left out" in page and name in page

    everything = tmp_path / "all"
    assert main(["explain", str(out), "--all", "--out", str(everything)]) == 0, capsys.readouterr().err
    per_category = pd.read_csv(everything / "words per category.csv", encoding="utf-8-sig")
    assert set(per_category["category"]) <= set(CATEGORIES) and len(per_category)
    assert per_category["coefficient"].isna().all()  # no weight per word: only what leaving words out shows


def test_a_combined_model_explains_its_zero_shot_part_by_leaving_words_out(model_folder):
    """Combined models are built from every ticked model: a zero-shot part is explained through its
    answer, weighed as the vote weighs it."""
    from guiapp.core.experiment.combined.combining import WeightedVote
    from guiapp.core.explain.attribution import COMBINED_PARTS
    from guiapp.core.models.zero_shot import ZeroShotSimilarity
    from guiapp.core.predict.combined_model import CombinedModel
    from guiapp.core.predict.zero_shot_model import ZeroShotTrainedModel

    sharp = zero_shot(model_folder)
    mild = ZeroShotTrainedModel("Zero-shot · names only", ZeroShotSimilarity(CATEGORIES, None, str(model_folder),
                                                                             temperature=0.05))
    combined = CombinedModel("Combined: weighted vote", [sharp, mild], WeightedVote([0.7, 0.3]), CATEGORIES)
    attribution = explain_document(combined, TEXT, 1)
    assert attribution.method == COMBINED_PARTS and attribution.target_name == "health"
    assert [part["method"] for part in attribution.details["parts"]] == [OCCLUSION, OCCLUSION]
    expected = 0.7 * drops(sharp, TEXT, 1)[1] + 0.3 * drops(mild, TEXT, 1)[1]
    assert np.allclose(attribution.scores, expected, atol=1e-7)
