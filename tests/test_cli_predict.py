"""``textlab predict RESULTS NEW --out FILE``: a study's saved models applied to new texts, end to end.
Every trained model is saved with the results (safe formats), opened again and gives the same
decisions on the test texts as during the run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from openpyxl import load_workbook

from guiapp.cli.entry import main
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.predict.saved_results import choose_models, open_models, read_results
from tests.test_cli_run import copy_example

FAST_MODELS = """
[[models]]
representation = "bow"
classifier = "naive_bayes"

[[models]]
representation = "bow"
classifier = "svm"
grid = { kernel = ["linear"], C = [0.1, 1] }
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    spec = copy_example(folder)
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text[: text.index("[[models]]")] + FAST_MODELS, encoding="utf-8")
    out = folder / "results"
    assert main(["run", str(spec), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    new = pd.read_csv(spec.parent / "test.csv")[["text"]].assign(batch="2024")
    new.loc[3, "text"] = None
    new.to_excel(folder / "new.xlsx", index=False)
    return out, folder / "new.xlsx"


def test_every_model_is_saved_and_reopened_gives_the_runs_decisions(results):
    out, _ = results
    result = read_results(out)
    assert sorted(p.name for p in (out / "models").iterdir()) == [
        "Combined--stacking", "Combined--weighted-vote", "Naive-Bayes---Basic-BOW", "SVM---Basic-BOW"]
    for model_result, model in zip(result.models, open_models(out, result.models), strict=True):
        assert model.family == ("combined" if model_result.representation == "combined" else "conventional")
        assert model.categories == result.categories
        decisions, probabilities = model.answer(result.test_texts)
        assert decisions.tolist() == model_result.predictions
        np.testing.assert_allclose(probabilities, np.array(model_result.probabilities), atol=1e-6)
    for path in (out / "models").rglob("*"):
        assert path.suffix not in {".pkl", ".pickle", ".joblib"}


def test_predictions_go_to_excel_beside_the_original_columns(results, tmp_path, capsys):
    out, new = results
    target = tmp_path / "predictions.xlsx"
    assert main(["predict", str(out), str(new), "--out", str(target),
                 "--model", "svm · basic bow", "--model", "Naive Bayes · Basic BOW"]) == 0
    assert "1 empty text left out" in capsys.readouterr().err
    book = load_workbook(target, read_only=True)
    assert book.sheetnames == ["Predictions", "Model comparison", "Is the best really better", "Confusion matrices",
                               "Test documents", "Settings"]
    rows = list(book["Predictions"].iter_rows(values_only=True))
    header = rows[0]
    assert header[:4] == ("Row in your spreadsheet", "text", "batch", "SVM · Basic BOW: predicted category")
    assert "Naive Bayes · Basic BOW: predicted category" in header
    assert len(rows) == 1 + 200
    assert [row[0] for row in rows[1:4]] == [2, 3, 4]  # the rows of new.xlsx, below its header
    categories = read_results(out).categories
    assert rows[1][3] in categories and rows[4][3] is None  # the empty text has no prediction
    probabilities = [v for name, v in zip(header, rows[1], strict=True) if name.startswith("SVM · Basic BOW: probability")]
    assert len(probabilities) == len(categories) and abs(sum(probabilities) - 1) < 1e-5
    assert new.stat().st_size > 0  # the input is untouched (read-only use)


def test_best_model_by_default_and_csv_parquet_by_ending(results, tmp_path):
    out, new = results
    best = ExperimentResult.from_json((out / "results.json").read_text(encoding="utf-8")).best()
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "p.csv")]) == 0
    table = pd.read_csv(tmp_path / "p.csv", encoding="utf-8-sig")
    assert f"{best.name}: predicted category" in table.columns and len(table) == 200
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "p.parquet")]) == 0
    assert pd.read_parquet(tmp_path / "p.parquet").shape[0] == 200


def test_mistakes_get_a_message_and_status_2(results, tmp_path, capsys):
    out, new = results
    target = tmp_path / "p.xlsx"
    target.write_text("keep me")
    assert main(["predict", str(out), str(new), "--out", str(target)]) == 2
    assert "--overwrite" in capsys.readouterr().err and target.read_text() == "keep me"
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "p.docx")]) == 2
    assert ".xlsx (Excel), .csv or .parquet" in capsys.readouterr().err
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "q.csv"), "--model", "Magic"]) == 2
    assert "Choose one of: " in capsys.readouterr().err
    assert main(["predict", str(tmp_path), str(new), "--out", str(tmp_path / "q.csv")]) == 2
    assert "no study results" in capsys.readouterr().err
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "q.csv"), "--text", "body"]) == 2
    assert "no column 'body'" in capsys.readouterr().err
    with pytest.raises(Exception, match="No model of this study finished"):
        choose_models(ExperimentResult({}, [], {}, [], [], [], []), None)


def test_a_saved_project_predicts_like_its_results_folder(results, tmp_path):
    from guiapp.core.project.format import Project, model_folders_of
    from guiapp.core.project.saving import save_project
    from guiapp.core.study.spec import ExperimentSpec

    out, new = results
    result = read_results(out)
    for model in result.models:  # the folders as this results folder holds them now
        model.artefact = str(out / "models" / model.artefact.rsplit("/", 1)[-1])
    project = Project(spec=ExperimentSpec.from_dict(result.spec), table=pd.read_excel(new, engine="calamine"), result=result,
                      model_folders=model_folders_of(result), ui_state={}, source_sha256="", source_name="new.xlsx")
    saved = save_project(tmp_path / "study.textlab", project)
    assert main(["predict", str(saved), str(new), "--out", str(tmp_path / "from project.csv")]) == 0
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "from folder.csv")]) == 0
    from_project = pd.read_csv(tmp_path / "from project.csv", encoding="utf-8-sig")
    from_folder = pd.read_csv(tmp_path / "from folder.csv", encoding="utf-8-sig")
    pd.testing.assert_frame_equal(from_project, from_folder)


def test_top_words_column_on_request(results, tmp_path):
    out, new = results
    target = tmp_path / "with words.csv"
    assert main(["predict", str(out), str(new), "--out", str(target), "--model", "SVM · Basic BOW", "--top-words"]) == 0
    table = pd.read_csv(target, encoding="utf-8-sig", keep_default_na=False)
    cells = table["SVM · Basic BOW: top words"]
    assert cells[3] == ""  # the empty text: no prediction, no words
    filled = [cell for cell in cells if cell]
    assert len(filled) > 150 and all("(+" in cell for cell in filled)
    first_word = filled[0].split(" (")[0].lower()
    assert first_word in " ".join(table["text"].astype(str)).lower()
    assert main(["predict", str(out), str(new), "--out", str(tmp_path / "x.csv"), "--top-words", "--steps", "0"]) == 2
