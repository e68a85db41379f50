"""The explanation cache: keyed records in memory, one JSON file per model, read back the same."""

from __future__ import annotations

import json

from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, OCCLUSION, Attribution, Faithfulness
from guiapp.core.explain.cache import ExplanationCache, model_file_name
from guiapp.core.explain.words import split_words

TEXT = "Mr. Speaker, this tax bill is a giveaway!"
MODEL = "BERT (fine-tuned) · fold 1/5"


def attribution(method: str = INTEGRATED_GRADIENTS, target: int = 1, model: str = MODEL) -> Attribution:
    words = split_words(TEXT)
    return Attribution(model=model, method=method, method_sentence="Colours show …", target=target,
                       target_name="against", words=words, scores=[0.1 * i for i in range(len(words))],
                       probability=0.93, scale="logit", base_value=-0.4, delta=0.002, unseen=[(30, 41)],
                       details={"steps": 50})


def test_round_trip_through_the_folder(tmp_path):
    cache = ExplanationCache(tmp_path)
    record = attribution()
    faith = Faithfulness("against", 5, ["giveaway", "tax"], 0.93, 0.41, 0.88)
    cache.put_attribution(TEXT, record, {"steps": 50})
    cache.put_faithfulness(TEXT, record, faith, {"steps": 50})
    cache.put_attribution(TEXT, attribution(OCCLUSION, model="Logistic regression"))
    written = cache.save()
    assert sorted(p.name for p in written) == sorted([model_file_name(MODEL), model_file_name("Logistic regression")])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written)  # no temporary files left
    assert json.loads(written[0].read_text(encoding="utf-8"))["format"] == "textlab-explanations"

    opened = ExplanationCache(tmp_path)
    assert opened.attribution(MODEL, TEXT, 1, INTEGRATED_GRADIENTS, {"steps": 50}) == record
    assert opened.faithfulness(MODEL, TEXT, 1, INTEGRATED_GRADIENTS, 5, {"steps": 50}) == faith
    assert opened.attribution("Logistic regression", TEXT, 1, OCCLUSION) is not None


def test_every_part_of_the_key_counts(tmp_path):
    cache = ExplanationCache()
    cache.put_attribution(TEXT, attribution(), {"steps": 50})
    assert cache.attribution(MODEL, TEXT, 1, INTEGRATED_GRADIENTS, {"steps": 50}) is not None
    assert cache.attribution(MODEL, TEXT, 1, INTEGRATED_GRADIENTS, {"steps": 500}) is None
    assert cache.attribution(MODEL, TEXT, 0, INTEGRATED_GRADIENTS, {"steps": 50}) is None
    assert cache.attribution(MODEL, TEXT + " ", 1, INTEGRATED_GRADIENTS, {"steps": 50}) is None
    assert cache.attribution(MODEL, TEXT, 1, OCCLUSION, {"steps": 50}) is None
    assert cache.attribution("other model", TEXT, 1, INTEGRATED_GRADIENTS, {"steps": 50}) is None
    assert cache.faithfulness(MODEL, TEXT, 1, INTEGRATED_GRADIENTS, 5) is None
    assert cache.save() == []  # without a folder it lives in memory only


def test_a_damaged_file_counts_as_empty_and_forget_removes_it(tmp_path):
    (tmp_path / model_file_name(MODEL)).write_text("{not json", encoding="utf-8")
    cache = ExplanationCache(tmp_path)
    assert cache.attribution(MODEL, TEXT, 1, INTEGRATED_GRADIENTS) is None
    cache.put_attribution(TEXT, attribution())
    cache.save()
    assert ExplanationCache(tmp_path).attribution(MODEL, TEXT, 1, INTEGRATED_GRADIENTS) is not None
    cache.forget(MODEL)
    assert not (tmp_path / model_file_name(MODEL)).exists() and cache.models() == []
