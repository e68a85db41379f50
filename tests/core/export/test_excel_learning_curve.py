"""A drawn learning curve goes into the Excel export: one row per model and size with the mean and
the lowest and highest over the draws, per-category means, and the reading in words."""

from __future__ import annotations

import pandas as pd

from guiapp.core.events import ignore_events
from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.export.excel import write_excel
from guiapp.core.export.excel_learning_curve import SHEET
from guiapp.core.study.sections import ModelSpec
from tests.core.experiment.curves.test_learning_curves import study
from tests.core.synthetic_texts import coded_texts


def test_the_learning_curve_sheet_has_every_size_and_the_reading(tmp_path) -> None:
    table = coded_texts(200)
    spec = study([ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})])
    curve = run_learning_curve(spec, ignore_events, options=LearningCurveOptions(sizes=(40, 80), repeats=2),
                               table=table, n_jobs=1)
    result = run_experiment(spec, table=table, n_jobs=1)
    path = write_excel(tmp_path / "results.xlsx", result=result, learning_curve=curve)
    sheet = pd.read_excel(path, sheet_name=SHEET, engine="calamine", header=None)
    header = sheet.index[sheet[0] == "Model"][0]
    rows = sheet.iloc[header + 1:]
    assert sorted(rows[1].astype(int)) == sorted(point.size for point in curve.models[0].summary())
    assert (rows[3].astype(float) <= rows[2].astype(float) + 1e-12).all()  # lowest ≤ mean ≤ highest
    assert (rows[2].astype(float) <= rows[4].astype(float) + 1e-12).all()
    assert "Naive Bayes" in str(sheet.iloc[0, 0])  # the reading in words comes first
    assert list(sheet.iloc[header, 6:]) == [f"F1: {category}" for category in curve.categories]


def test_the_methods_appendix_describes_a_drawn_learning_curve() -> None:
    from guiapp.core.export.appendix_data import build_appendix
    from guiapp.core.export.appendix_text import appendix_paragraph

    table = coded_texts(200)
    spec = study([ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})])
    curve = run_learning_curve(spec, ignore_events, options=LearningCurveOptions(sizes=(40, 80), repeats=2),
                               table=table, n_jobs=1)
    result = run_experiment(spec, table=table, n_jobs=1)
    appendix = build_appendix(result, learning_curve=curve)
    assert appendix["learning_curve"]["repeats"] == 2 and appendix["learning_curve"]["models"]
    text = appendix_paragraph(appendix)
    assert "A learning curve trained each model on nested random subsets of 40, 80" in text
    assert "two draws per size" in text


def test_the_scores_per_group_of_texts_go_into_the_workbook(tmp_path) -> None:
    import numpy as np

    from guiapp.core.experiment.scores.subgroup_scores import subgroup_scores
    from guiapp.core.export.excel_subgroups import SHEET as GROUPS

    table = coded_texts(200).assign(party=np.where(np.arange(200) % 2, "A", "B"))
    spec = study([ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})], bootstrap_samples=100)
    result = run_experiment(spec, table=table, n_jobs=1)
    scores = subgroup_scores(result, table, "party", min_texts=5)
    path = write_excel(tmp_path / "results.xlsx", result=result, subgroups=scores)
    sheet = pd.read_excel(path, sheet_name=GROUPS, engine="calamine", header=None)
    header = sheet.index[sheet[0] == "model"][0]
    rows = sheet.iloc[header + 1:]
    assert set(rows[1]) == {"A", "B"} and rows[2].astype(int).sum() == len(result.test_true)
