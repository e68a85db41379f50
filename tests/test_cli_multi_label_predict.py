"""``textlab predict`` and ``textlab explain`` on the results of a study where a text can have several
categories: a per-category model (one logistic regression per category) saved as a run saves it, its
answers written as lists of categories with each category's own chance, and explanations of one
category's chance, named with ``--category``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.cli.entry import main
from guiapp.core.experiment.results.artefacts import model_folder_name
from guiapp.core.experiment.families.conventional_files import save_conventional
from guiapp.core.experiment.protocol.fitting import fit_classifier
from guiapp.core.experiment.scores.multilabel_metrics import multilabel_test_result
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.results.results_manifest import write_manifest
from guiapp.core.features.bow import BagOfWords
from guiapp.core.predict.saved_results import RESULTS_FILE, open_models, read_results
from guiapp.core.study.label_sets import NO_CATEGORY
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec

CATEGORIES = ["economy", "health", "schools"]
MARKERS = {0: ["tax", "budget", "wages"], 1: ["hospital", "doctor", "nurses"], 2: ["teacher", "pupils", "school"]}
FILLER = ["the", "party", "will", "people", "our", "country", "year", "plan", "new", "all"]


def texts_with_categories(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Texts whose categories are marked by their own words, present or not on their own."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.35).astype(np.uint8)
    texts = []
    for row in Y:
        words = list(rng.choice(FILLER, size=6))
        for k in np.flatnonzero(row):
            words += list(rng.choice(MARKERS[k], size=2, replace=False))
        rng.shuffle(words)
        texts.append(" ".join(words).capitalize() + ".")
    return texts, Y


def trained_study(folder) -> ExperimentResult:
    """A results folder as ``textlab run --out`` writes it, for a study where a text can have several
    categories: results.json, the per-category model saved in models/, and the manifest."""
    train_texts, train_Y = texts_with_categories(150, seed=0)
    test_texts, test_Y = texts_with_categories(30, seed=1)
    representation = BagOfWords(max_df=0.9, stem_language=None).fit(train_texts)
    classifier = fit_classifier("logistic_regression", {"C": 10.0}, 0, 1, representation.transform(train_texts),
                                train_Y, probabilities=True)
    spec_model = ModelSpec("bow", "logistic_regression")
    name = spec_model.display_name
    artefact = folder / "models" / model_folder_name(name)
    save_conventional(artefact, representation, classifier, CATEGORIES, {"name": name})
    X = representation.transform(test_texts)
    predicted = classifier.predict(X)
    chances = classifier.predict_proba(X)
    mapping = ColumnMapping(text_columns=["Text"], multi_label=True, category_columns=CATEGORIES)
    spec = ExperimentSpec(data=DataSpec(source=str(folder / "manifestos.xlsx"), mapping=mapping),
                          name="Several topics", models=[spec_model])
    model = ModelResult(name=name, representation="bow", classifier="logistic_regression", spec=spec_model.to_dict(),
                        test=multilabel_test_result(test_Y, predicted, CATEGORIES, samples=20, seed=0),
                        predictions=[np.flatnonzero(row).tolist() for row in predicted],
                        probabilities=chances.tolist(), artefact=str(artefact), thresholds=[0.5, 0.5, 0.5])
    result = ExperimentResult(
        spec=spec.to_dict(), categories=CATEGORIES,
        split={"how": "random", "n_train": 150, "n_test": 30, "description": "a sixth of the texts"},
        test_rows=list(range(2, 32)), test_ids=[], test_texts=test_texts,
        test_true=[np.flatnonzero(row).tolist() for row in test_Y], models=[model], multi_label=True,
        started_at="2024-05-02T10:14:03", finished_at="2024-05-02T10:15:00")
    (folder / RESULTS_FILE).write_text(result.to_json(include_texts=True), encoding="utf-8")
    write_manifest(folder)
    return result


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("several") / "results"
    folder.mkdir()
    result = trained_study(folder)
    new = pd.DataFrame({"Text": ["Tax and wages for the country.", "Our hospital doctor and the school teacher.",
                                 "", "The party will plan the year."], "batch": ["a", "b", "c", "d"]})
    new.to_csv(folder.parent / "new.csv", index=False)
    return folder, folder.parent / "new.csv", result


def test_the_saved_model_reopens_as_one_classifier_per_category(study):
    folder, _, result = study
    opened = read_results(folder)
    assert opened.multi_label and opened.categories == CATEGORIES
    model = open_models(folder, opened.models)[0]
    assert model.multi_label
    decisions, _ = model.answer(result.test_texts)
    assert [np.flatnonzero(row).tolist() for row in decisions] == result.models[0].predictions


def test_predict_writes_the_list_of_categories_and_each_categorys_chance(study, tmp_path, capsys):
    folder, new, result = study
    out = tmp_path / "answers.csv"
    assert main(["predict", str(folder), str(new), "--out", str(out), "--top-words"]) == 0
    assert "1 empty text left out" in capsys.readouterr().err
    table = pd.read_csv(out, encoding="utf-8-sig")
    name = result.models[0].name
    assert list(table.columns) == [
        "Row in your spreadsheet", "Text", "batch", f"{name}: predicted categories",
        *(f"{name}: probability {category}" for category in CATEGORIES), f"{name}: top words"]
    cells = table[f"{name}: predicted categories"].tolist()
    assert cells[0] == "economy" and cells[1] == "health; schools" and pd.isna(cells[2]) and cells[3] == NO_CATEGORY
    chances = table[[f"{name}: probability {category}" for category in CATEGORIES]].to_numpy()
    assert chances[1, 1] > 0.5 and chances[1, 2] > 0.5 and chances[1].sum() > 1.0  # each category's own chance
    words = table[f"{name}: top words"].fillna("").tolist()
    assert words[0].startswith("economy: ") and ("tax" in words[0] or "wages" in words[0])
    assert words[1].startswith("health: ")  # the first category it gave
    assert words[2] == ""


def test_predict_to_excel_keeps_the_sets_of_categories(study, tmp_path):
    from openpyxl import load_workbook

    folder, new, result = study
    out = tmp_path / "answers.xlsx"
    assert main(["predict", str(folder), str(new), "--out", str(out)]) == 0
    rows = list(load_workbook(out, read_only=True)["Predictions"].iter_rows(values_only=True))
    name = result.models[0].name
    column = rows[0].index(f"{name}: predicted categories")
    assert [row[column] for row in rows[1:]] == ["economy", "health; schools", None, NO_CATEGORY]


def test_explain_names_the_category_it_explains(study, tmp_path):
    folder, _, result = study
    document = next(i for i, codes in enumerate(result.models[0].predictions) if len(codes) >= 2)
    row = result.test_rows[document]
    first, second = (CATEGORIES[k] for k in result.models[0].predictions[document][:2])
    out = tmp_path / "default"
    assert main(["explain", str(folder), "--documents", str(row), "--out", str(out)]) == 0
    words = pd.read_csv(out / "top words.csv", encoding="utf-8-sig")
    assert set(words["Category"]) == {first}  # by default the first category the model gave it
    out = tmp_path / "chosen"
    assert main(["explain", str(folder), "--documents", str(row), "--category", second, "--out", str(out)]) == 0
    words = pd.read_csv(out / "top words.csv", encoding="utf-8-sig")
    assert set(words["Category"]) == {second}
    toward = words[words["Direction"] == "toward"]
    marker = {CATEGORIES[k]: set(MARKERS[k]) for k in MARKERS}[second]
    assert toward.iloc[0]["Word"].lower() in marker  # the category's own words raise its chance


def test_explain_all_explains_each_category_the_model_gave(study, tmp_path):
    folder, _, result = study
    out = tmp_path / "all"
    assert main(["explain", str(folder), "--all", "--out", str(out)]) == 0
    words = pd.read_csv(out / "words per category.csv", encoding="utf-8-sig")
    for k, category in enumerate(CATEGORIES):
        first = words[words["category"] == category].iloc[0]
        assert first["word"].lower() in MARKERS[k] and first["coefficient"] > 0
    explained = pd.read_csv(out / "top words.csv", encoding="utf-8-sig")
    given = {(f"Row {result.test_rows[i]}", CATEGORIES[k]) for i, codes in enumerate(result.models[0].predictions)
             for k in codes}
    assert set(zip(explained["Document"], explained["Category"], strict=True)) <= given
    assert len(set(zip(explained["Document"], explained["Category"], strict=True))) > len(set(explained["Document"]))
    page = (out / "explanations.html").read_text(encoding="utf-8")
    assert "chance of this category alone" in page


def test_an_unknown_category_gets_a_plain_message(study, tmp_path, capsys):
    folder, _, _ = study
    assert main(["explain", str(folder), "--documents", "2", "--category", "sport", "--out", str(tmp_path / "x")]) == 2
    assert "no category “sport”" in capsys.readouterr().err
