"""Zero-shot by NLI, on a tiny randomly initialised NLI model built here (no download): which answer
is entailment, the hypotheses asked, the probabilities against the model's own logits, batching,
saving and opening again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.models.zero_shot import (
    ZERO_SHOT_FILE,
    ZeroShotNLI,
    load_zero_shot,
    nli_label_ids,
    nli_pairs,
    nli_probabilities,
)
from tests.tiny_nli import NLI_LABELS
from tests.tiny_nli import save_tiny_nli as save_nli_folder

CATEGORIES = ["economy", "health", "sport"]
DESCRIPTIONS = {"economy": "taxes and jobs"}
TEXTS = ["taxes rise again", "the hospital has no beds", "the team won the match", "", "jobs jobs jobs and taxes"]
WORDS = sorted({w for t in TEXTS + ["this text is about", "economy health sport taxes and jobs"] for w in t.split()})


def save_tiny_nli(folder: Path, labels: dict[int, str], seed: int = 0) -> Path:
    return save_nli_folder(folder, WORDS, labels, seed)


@pytest.fixture(scope="module")
def nli_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_nli(tmp_path_factory.mktemp("tiny-nli"), NLI_LABELS)


def direct_logits(folder: Path, texts: list[str], hypotheses: list[str]) -> np.ndarray:
    """The model's logits for every pair, one pair at a time (no padding), shape (texts, hypotheses, answers)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(str(folder), local_files_only=True).eval()
    out = np.zeros((len(texts), len(hypotheses), model.config.num_labels))
    with torch.inference_mode():
        for i, text in enumerate(texts):
            for k, hypothesis in enumerate(hypotheses):
                out[i, k] = model(**tokenizer(text, hypothesis, return_tensors="pt")).logits[0].numpy()
    return out


# ------------------------------------------------------------------ which answer is entailment
def test_entailment_and_contradiction_are_found_by_name_whatever_their_case_and_position():
    assert nli_label_ids({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, "m", False) == (2, 0)
    assert nli_label_ids({"0": "entailment", "1": "neutral", "2": "contradiction"}, "m", True) == (0, 2)
    assert nli_label_ids({0: "not_entailment", 1: "entailment"}, "m", True) == (1, 0)  # two answers: the other
    assert nli_label_ids({0: "Entail", 1: "neutral", 2: "contradict"}, "m", False) == (0, 2)


def test_a_model_without_an_entailment_answer_is_refused_in_words():
    with pytest.raises(UserError) as caught:
        nli_label_ids({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, "my-model", False)
    assert "my-model" in caught.value.message and "no 'entailment' answer" in caught.value.message
    assert "facebook/bart-large-mnli" in caught.value.hint
    with pytest.raises(UserError, match="contradiction"):  # several categories per text need contradiction too
        nli_label_ids({0: "entailment", 1: "neutral", 2: "other"}, "m", True)
    assert nli_label_ids({0: "entailment", 1: "neutral", 2: "other"}, "m", False) == (0, None)


def test_a_saved_model_with_generic_answers_is_refused_before_it_is_asked(tmp_path: Path):
    folder = save_tiny_nli(tmp_path / "generic", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    model = ZeroShotNLI(CATEGORIES, model=str(folder))
    with pytest.raises(UserError, match="no 'entailment' answer"):
        model.predict_proba(TEXTS)


def test_the_nli_model_must_be_named():
    with pytest.raises(UserError, match="NLI model"):
        ZeroShotNLI(CATEGORIES)


# ------------------------------------------------------------------ the hypotheses
def test_hypotheses_phrase_each_category_by_its_description_or_its_name():
    model = ZeroShotNLI(CATEGORIES, DESCRIPTIONS, model="facebook/bart-large-mnli")
    assert model.hypotheses() == ["This text is about taxes and jobs.", "This text is about health.",
                                  "This text is about sport."]
    german = ZeroShotNLI(CATEGORIES, None, model="x/y", template="Dieser Text handelt von {}.")
    assert german.hypotheses()[0] == "Dieser Text handelt von economy."
    pairs = model.pairs(["a", "b"])
    assert pairs == nli_pairs(["a", "b"], model.hypotheses())
    assert pairs[1 * 3 + 2] == ("b", "This text is about sport.") and len(pairs) == 6


@pytest.mark.parametrize("template", ["About {} and {}.", "No slot.", "A {name}.", "{} }", ""])
def test_a_template_without_exactly_one_slot_is_refused(template: str):
    with pytest.raises(UserError):
        ZeroShotNLI(CATEGORIES, model="x/y", template=template)


# ------------------------------------------------------------------ probabilities
def test_one_category_per_text_is_a_softmax_over_the_entailment_logits(nli_folder: Path):
    model = ZeroShotNLI(CATEGORIES, DESCRIPTIONS, model=str(nli_folder), batch_size=4)
    probabilities = model.predict_proba(TEXTS)
    assert probabilities.shape == (len(TEXTS), 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    logits = direct_logits(nli_folder, TEXTS, model.hypotheses())[:, :, 2]  # entailment is answer 2
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(probabilities, expected, atol=1e-5)


def test_several_categories_per_text_weigh_entailment_against_contradiction_per_category(nli_folder: Path):
    model = ZeroShotNLI(CATEGORIES, DESCRIPTIONS, model=str(nli_folder), multi_label=True)
    probabilities = model.predict_proba(TEXTS)
    logits = direct_logits(nli_folder, TEXTS, model.hypotheses())
    entail, contradiction = np.exp(logits[:, :, 2]), np.exp(logits[:, :, 0])
    np.testing.assert_allclose(probabilities, entail / (entail + contradiction), atol=1e-5)
    assert not np.allclose(probabilities.sum(axis=1), 1.0)
    # each category on its own: leaving one out changes nothing for the others (unlike a softmax)
    fewer = ZeroShotNLI(CATEGORIES[:2], DESCRIPTIONS, model=str(nli_folder), multi_label=True).predict_proba(TEXTS)
    np.testing.assert_allclose(fewer, probabilities[:, :2], atol=1e-6)
    single_fewer = ZeroShotNLI(CATEGORIES[:2], DESCRIPTIONS, model=str(nli_folder)).predict_proba(TEXTS)
    assert not np.allclose(single_fewer, ZeroShotNLI(CATEGORIES, DESCRIPTIONS, model=str(nli_folder))
                           .predict_proba(TEXTS)[:, :2], atol=1e-3)


def test_nli_probabilities_follow_the_pipeline_formulas():
    entail = np.array([[1.0, 2.0, 3.0]])
    contradiction = np.array([[0.0, 2.0, 5.0]])
    np.testing.assert_allclose(nli_probabilities(entail, None, False), np.exp(entail) / np.exp(entail).sum())
    np.testing.assert_allclose(nli_probabilities(entail, contradiction, True),
                               [[1 / (1 + np.exp(-1)), 0.5, 1 / (1 + np.exp(2))]])


def test_batches_and_padding_do_not_change_the_answers(nli_folder: Path):
    one = ZeroShotNLI(CATEGORIES, model=str(nli_folder), batch_size=1).predict_proba(TEXTS)
    many = ZeroShotNLI(CATEGORIES, model=str(nli_folder), batch_size=7).predict_proba(TEXTS)
    np.testing.assert_allclose(one, many, atol=1e-5)
    empty = ZeroShotNLI(CATEGORIES, model=str(nli_folder)).predict_proba([])
    assert empty.shape == (0, 3)


def test_progress_is_reported_and_cancel_stops(nli_folder: Path):
    model = ZeroShotNLI(CATEGORIES, model=str(nli_folder), batch_size=2)
    events: list[Progress] = []
    model.predict_proba(TEXTS, events.append)
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress[-1].done == progress[-1].total == len(TEXTS) * 3 and progress[-1].fraction == 1.0

    def cancel(event: object) -> None:
        if isinstance(event, Progress) and event.done:
            raise Cancelled

    with pytest.raises(Cancelled):
        model.predict_proba(TEXTS, cancel)


def test_a_too_long_description_is_refused_in_words(nli_folder: Path):
    model = ZeroShotNLI(CATEGORIES, {"sport": " ".join(["match"] * 200)}, model=str(nli_folder))
    with pytest.raises(UserError, match="too long"):
        model.predict_proba(TEXTS)


# ------------------------------------------------------------------ saving and opening
def test_save_and_load_give_the_same_probabilities_and_carry_the_model_files(nli_folder: Path, tmp_path: Path):
    import shutil

    own = shutil.copytree(nli_folder, tmp_path / "my-nli")
    model = ZeroShotNLI(CATEGORIES, DESCRIPTIONS, model=str(own), multi_label=True, batch_size=3)
    before = model.predict_proba(TEXTS)
    model.save(tmp_path / "saved")
    record = json.loads((tmp_path / "saved" / ZERO_SHOT_FILE).read_text(encoding="utf-8"))
    assert record["kind"] == "nli" and record["model_source"] == "folder" and record["multi_label"] is True
    assert record["template"] == "This text is about {}." and record["descriptions"] == DESCRIPTIONS
    assert (tmp_path / "saved" / "model" / "model.safetensors").is_file()
    shutil.rmtree(own)  # the saved model answers without the original folder
    opened = load_zero_shot(tmp_path / "saved")
    assert isinstance(opened, ZeroShotNLI) and opened.categories == CATEGORIES and opened.model_name == "my-nli"
    np.testing.assert_allclose(opened.predict_proba(TEXTS), before, atol=1e-6)
    opened.save(tmp_path / "saved")  # saved again in place: its own files stay
    np.testing.assert_allclose(load_zero_shot(tmp_path / "saved").predict_proba(TEXTS), before, atol=1e-6)


def test_a_hub_model_is_recorded_by_its_name_and_never_downloaded(tmp_path: Path):
    model = ZeroShotNLI(CATEGORIES, model="facebook/bart-large-mnli")
    model.save(tmp_path / "saved")  # nothing to copy: found again by its name
    opened = load_zero_shot(tmp_path / "saved")
    assert opened.model == "facebook/bart-large-mnli" and not (tmp_path / "saved" / "model").exists()
    assert opened.title == "Zero-shot · NLI (facebook/bart-large-mnli)"
    with pytest.raises(UserError):  # not on this computer, and not fetched
        opened.predict_proba(["a text"])


def test_a_description_written_as_a_sentence_keeps_one_full_stop():
    from guiapp.core.models.zero_shot.descriptions import phrase

    assert phrase("This text is about {}.", "health insurance.") == "This text is about health insurance."
    assert phrase("This text is about {}.", "health insurance") == "This text is about health insurance."
    assert phrase("{} is the topic", "Dr. Who.") == "Dr. Who. is the topic"  # the template goes on without a stop
