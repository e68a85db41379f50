"""Results folders and model folders that are odd or hostile: a model named with 300 characters is
saved under a shortened folder and predicts; a model that could not be saved is never claimed; a
model recorded outside its results folder, JSON nested 200,000 deep, over-long names in the
manifest and a saved setting of the wrong type are refused in words."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from guiapp.cli.entry import main
from guiapp.core.errors import UserError
from guiapp.core.experiment.results.results_manifest import write_manifest
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.saved_results import choose_models, open_models, read_results
from guiapp.core.project.results_folder import open_results_folder
from guiapp.core.study.sections import ModelSpec
from tests.core.project.helpers import study
from tests.core.synthetic_texts import coded_texts

LONG = "Naive Bayes for the debates " + "N" * 272  # 300 characters
DEEP = "[" * 200_000 + "]" * 200_000


def write_study(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    coded_texts(90, seed=3).to_csv(folder / "texts.csv", index=False)
    spec = study("Long names")
    spec.data.source = "texts.csv"
    spec.models = [ModelSpec("bow", "naive_bayes", name=LONG)]
    spec.save(folder / "study.toml")
    return folder / "study.toml"


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Path:
    """A study folder (texts.csv, study.toml) and the results of `textlab run`."""
    spec = write_study(tmp_path_factory.mktemp("study") / "debates")
    assert main(["run", str(spec), "--out", str(spec.parent / "results"), "--jobs", "1"]) == 0
    return spec.parent


@pytest.fixture
def copy(ran, tmp_path) -> Path:
    """The study folder copied, to change its results; returns the results folder."""
    here = tmp_path / "debates"
    shutil.copytree(ran, here)
    return here / "results"


def test_a_model_with_a_300_character_name_is_saved_under_a_short_folder_and_predicts(ran, tmp_path, capsys):
    (folder,) = (ran / "results" / "models").iterdir()
    assert len(folder.name.encode()) <= 100 and folder.name.startswith("Naive-Bayes-for-the-debates")
    assert (folder / "model.json").is_file()
    result = read_results(ran / "results")
    assert Path(result.models[0].artefact).name == folder.name
    out = tmp_path / "predictions.csv"
    assert main(["predict", str(ran / "results"), str(ran / "texts.csv"), "--out", str(out)]) == 0
    assert out.is_file() and "Wrote" in capsys.readouterr().out


def test_a_model_that_could_not_be_saved_is_not_claimed_and_predict_says_why(tmp_path, monkeypatch, capsys):
    from guiapp.core.experiment.run import runner
    def no_room(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runner, "save_conventional", no_room)
    spec = write_study(tmp_path / "full disk")
    assert main(["run", str(spec), "--out", str(tmp_path / "results"), "--jobs", "1"]) == 0
    printed = capsys.readouterr().out
    assert f"Not saved, so they cannot be applied to new texts: {LONG}." in printed
    assert not any((tmp_path / "results" / "models").glob("*"))
    assert main(["predict", str(tmp_path / "results"), str(spec.parent / "texts.csv"),
                 "--out", str(tmp_path / "p.csv")]) == 2
    assert "was not saved with these results" in capsys.readouterr().err


def test_a_model_recorded_outside_its_results_folder_is_refused(copy, tmp_path):
    (inside,) = (copy / "models").iterdir()
    elsewhere = tmp_path / "elsewhere" / inside.name
    shutil.move(inside, elsewhere)
    data = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    data["models"][0]["artefact"] = str(elsewhere)
    (copy / "results.json").write_text(json.dumps(data), encoding="utf-8")
    write_manifest(copy)  # a forged folder can carry a manifest that matches it
    with pytest.raises(UserError, match="outside their folder"):
        open_results_folder(copy)
    result = read_results(copy)
    with pytest.raises(UserError, match="outside their folder"):
        open_models(copy, choose_models(result, None))


def test_results_nested_200000_deep_are_refused_in_words(copy):
    (copy / "results.json").write_text(DEEP, encoding="utf-8")
    write_manifest(copy)
    with pytest.raises(UserError, match="nested more than 100 levels deep"):
        read_results(copy)


def test_a_manifest_nested_200000_deep_is_refused_in_words(copy):
    (copy / "textlab-results.json").write_text(DEEP, encoding="utf-8")
    with pytest.raises(UserError, match="damaged or was not written by TextLab"):
        read_results(copy)


def test_a_manifest_naming_a_file_longer_than_file_systems_allow_is_refused_in_words(copy):
    manifest = json.loads((copy / "textlab-results.json").read_text(encoding="utf-8"))
    manifest["files"]["models/" + "a" * 300] = {"bytes": 1, "sha256": "0" * 64}
    (copy / "textlab-results.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(UserError, match="longer than file systems allow"):
        read_results(copy)


def test_a_conventional_model_json_nested_200000_deep_is_refused_in_words(copy):
    (folder,) = (copy / "models").iterdir()
    (folder / "model.json").write_text(DEEP, encoding="utf-8")
    with pytest.raises(UserError, match="damaged"):
        open_trained_model(folder)


@pytest.fixture
def fine_tuned(tmp_path) -> Path:
    pytest.importorskip("transformers")
    from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned, save_fine_tuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from tests.tiny_bert import tiny_bert, tiny_tokenizer

    tokenizer = tiny_tokenizer(tmp_path / "vocabulary", ["tax", "army"])
    model = FineTuned(tiny_bert(len(tokenizer), 2), tokenizer, DeviceInfo("cpu", "CPU"),
                      FineTuneSettings(device="cpu", max_length=64))
    save_fine_tuned(model, tmp_path / "Tiny BERT", ["economy", "defence"])
    return tmp_path / "Tiny BERT"


def _edit_labels(folder: Path, change) -> None:
    labels = json.loads((folder / "textlab_labels.json").read_text(encoding="utf-8"))
    change(labels)
    (folder / "textlab_labels.json").write_text(json.dumps(labels), encoding="utf-8")


@pytest.mark.parametrize(("setting", "value", "words"), [
    ("max_length", "lots", "max_length is 'lots', not a whole number"),
    ("max_length", 2.5, "max_length is 2.5, not a whole number"),
    ("learning_rate", "fast", "learning_rate is 'fast', not a number"),
    ("max_length", 2, "at least 8 tokens"),
])
def test_a_saved_setting_of_the_wrong_type_is_refused_in_words(fine_tuned, setting, value, words):
    assert open_trained_model(fine_tuned).max_tokens == 64
    _edit_labels(fine_tuned, lambda labels: labels["settings"].update({setting: value}))
    with pytest.raises(UserError) as caught:
        open_trained_model(fine_tuned)
    assert words in caught.value.message and "train the model again" in caught.value.hint


def test_a_label_file_nested_200000_deep_is_refused_in_words(fine_tuned):
    (fine_tuned / "textlab_labels.json").write_text(DEEP, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        open_trained_model(fine_tuned)
    assert "nested more than 100 levels deep" in caught.value.details


@pytest.mark.parametrize(("content", "words"), [
    (DEEP, "nested more than 100 levels deep"),
    (json.dumps({"format": "textlab-combined-model", "version": 1, "categories": ["a", "b"], "combiner": {},
                 "parts": [{"name": "SVM", "folder": "S" * 300}]}), "longer than file systems allow"),
])
def test_a_combined_model_file_that_is_too_deep_or_names_an_impossible_folder_is_refused(tmp_path, content, words):
    folder = tmp_path / "Combined-weighted-vote"
    folder.mkdir()
    (folder / "combined.json").write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=words):
        open_trained_model(folder, "Combined: weighted vote")
