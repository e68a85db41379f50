"""A study's language model with your codebook at the command line: ``textlab predict`` and
``textlab explain`` open it from the results folder (or from a saved project, after a reopen) and
use it like every model, saying what it is; ``textlab run``'s table prints its name whole, its
chosen prompt in words and what it is; ``textlab download-model`` refuses what it cannot download,
in words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.cli.entry import main
from guiapp.cli.run_command import summary_table
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import release_language_model
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.saved_results import model_folder, read_results
from tests.core.predict.codebook_samples import study_with_codebook_model, tiny_lm


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("codebook-study")
    lm = tiny_lm(folder / "Qwen2.5-0.5B-Instruct-tiny-random")  # named as a real one is: a long name
    codebook_model_module._OPENED.clear()
    out, name = study_with_codebook_model(folder, lm)
    yield folder, out, name
    release_language_model()


def test_the_run_table_names_the_language_model_whole_with_its_prompt_in_words(study):
    _, out, name = study
    printed = summary_table(read_results(out))
    assert name in printed and len(name) > 34  # not cut at the old column width
    row = next(line for line in printed.splitlines() if line.startswith(name))
    assert row.rstrip().endswith("1 example per category, TextLab's instruction")
    assert f"{name}: a language model with your codebook, run inside TextLab." in printed


def test_textlab_predict_applies_the_language_model_to_new_texts(study, tmp_path, capsys):
    folder, out, name = study
    new = pd.DataFrame({"text": ["The team won the football games.", "Doctors at the hospital.", None],
                        "batch": ["a", "b", "c"]})
    new.to_csv(tmp_path / "new.csv", index=False)
    target = tmp_path / "predicted.csv"
    assert main(["predict", str(out), str(tmp_path / "new.csv"), "--out", str(target), "--model", name]) == 0, \
        capsys.readouterr().err
    err = capsys.readouterr().err
    assert f"{name} is a language model with your codebook" in err and "reads the whole prompt" in err
    written = pd.read_csv(target, encoding="utf-8-sig")
    result = read_results(out)
    column = f"{name}: predicted category"
    assert written[column].iloc[:2].isin(result.categories).all() and pd.isna(written[column].iloc[2])
    opened = open_trained_model(model_folder(out, next(m for m in result.models if m.name == name)), name)
    expected = opened.answer(list(new["text"].iloc[:2]))[1]
    shares = written[[f"{name}: probability {category}" for category in result.categories]].to_numpy()[:2]
    np.testing.assert_allclose(shares, expected, atol=1e-5)


def test_textlab_explain_leaves_words_out_of_a_test_document(study, tmp_path, capsys):
    _, out, name = study
    result = read_results(out)
    row = result.test_rows[0]
    why = tmp_path / "why"
    assert main(["explain", str(out), "--documents", str(row), "--model", name, "--out", str(why)]) == 0, \
        capsys.readouterr().err
    assert f"{name} is a language model with your codebook" in capsys.readouterr().err
    page = (why / "explanations.html").read_text(encoding="utf-8")
    assert "drops when the word is left out" in page and name in page
    words = pd.read_csv(why / "top words.csv", encoding="utf-8-sig")
    assert len(words) and (words.iloc[:, 0] == f"Row {row}").all()


def test_the_model_travels_in_a_project_and_answers_after_a_reopen(study, tmp_path, capsys):
    from guiapp.core.project.format import Project, model_folders_of
    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project
    from guiapp.core.study.spec import ExperimentSpec

    folder, out, name = study
    result = read_results(out)
    spec = ExperimentSpec.load(folder / "study.toml")
    table = pd.read_csv(folder / "coded.csv")
    project = Project(spec=spec, table=table, result=result, model_folders=model_folders_of(result),
                      ui_state={"step": "results"}, source_sha256="ab" * 32, source_name="coded.csv")
    assert name in project.model_folders
    saved = save_project(tmp_path / "study.textlab", project)
    reopened = open_project(saved, extract_models_to=tmp_path / "unpacked")
    moved = reopened.model_folder(name)
    assert moved is not None and moved.is_relative_to(tmp_path / "unpacked")
    model = next(m for m in reopened.result.models if m.name == name)
    decisions, probabilities = open_trained_model(moved, name).answer(reopened.result.test_texts)
    np.testing.assert_allclose(probabilities, np.asarray(model.probabilities), atol=1e-9)
    assert decisions.tolist() == model.predictions
    new = tmp_path / "new.csv"
    pd.DataFrame({"text": ["Prices and taxes rose."]}).to_csv(new, index=False)
    assert main(["predict", str(saved), str(new), "--out", str(tmp_path / "p.csv"), "--model", name]) == 0, \
        capsys.readouterr().err


def test_download_model_refuses_a_folder_and_says_why_offline(tmp_path, capsys, monkeypatch):
    assert main(["download-model", str(tmp_path)]) == 2
    assert "is a folder on this computer" in capsys.readouterr().err
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["download-model", "someone/no-such-model-here", "--language-model"]) == 2
    err = capsys.readouterr().err
    assert "someone/no-such-model-here" in err and "Traceback" not in err


def test_textlab_run_runs_a_study_file_with_a_language_model_then_predicts_and_explains(study, tmp_path, capsys):
    """The study file names the language model by its folder; the same engine as the window runs it,
    and the results it writes open for ``predict`` and ``explain``."""
    folder, _, _ = study
    lm = folder / "Qwen2.5-0.5B-Instruct-tiny-random"
    text = (folder / "study.toml").read_text(encoding="utf-8")
    (tmp_path / "coded.csv").write_bytes((folder / "coded.csv").read_bytes())
    (tmp_path / "study.toml").write_text(text + f"""
[[models]]
representation = "codebook_llm"
classifier = "in_textlab"
grid = {{ k = [0, 1] }}
[models.representation_options]
model = '{lm}'
device = "cpu"
sensitivity = 2
descriptions = {{ economy = "jobs, prices, taxes and trade", health = "doctors, hospitals and illness" }}
""", encoding="utf-8")
    out = tmp_path / "results"
    assert main(["run", str(tmp_path / "study.toml"), "--out", str(out), "--jobs", "1", "--quiet"]) == 0, \
        capsys.readouterr().err
    printed = capsys.readouterr().out
    name = "Codebook language model (Qwen2.5-0.5B-Instruct-tiny-random)"
    assert name in printed and f"{name}: a language model with your codebook, run inside TextLab" in printed
    assert "prompt sensitivity: " in printed  # two wordings answered the test texts
    result = read_results(out)
    model = next(m for m in result.models if m.name == name)
    assert model.representation == "codebook_llm" and model.chosen_params["k"] in (0, 1)
    opened = open_trained_model(model_folder(out, model), name)
    np.testing.assert_allclose(opened.answer(result.test_texts)[1], np.asarray(model.probabilities), atol=1e-6)
    new = tmp_path / "new.csv"
    pd.DataFrame({"text": ["Doctors at the hospital.", "Prices and taxes rose."]}).to_csv(new, index=False)
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "p.csv"), "--model", name]) == 0
    assert main(["explain", str(out), "--documents", str(result.test_rows[1]), "--model", name,
                 "--out", str(tmp_path / "why")]) == 0
    assert "drops when the word is left out" in (tmp_path / "why" / "explanations.html").read_text(encoding="utf-8")
