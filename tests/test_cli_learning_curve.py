"""``textlab learning-curve SPEC --out DIR`` end to end on a small hand-written study."""

from __future__ import annotations

import pandas as pd

from guiapp.cli.entry import main
from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult
from tests.core.synthetic_texts import coded_texts

STUDY = """
name = "Topics"
seed = 11

[data]
source = "coded.csv"

[data.mapping]
text_columns = ["text"]
category_column = "label"

[evaluation]
folds = 3

[[models]]
representation = "bow"
classifier = "naive_bayes"
grid = { alpha = [0.5, 1.0] }
"""


def test_learning_curve_writes_both_files_and_prints_the_table_and_the_reading(tmp_path, capsys) -> None:
    coded_texts(200, seed=8).to_csv(tmp_path / "coded.csv", index=False)
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    out = tmp_path / "curve"
    arguments = ["learning-curve", str(tmp_path / "study.toml"), "--out", str(out), "--sizes", "30", "60",
                 "--repeats", "2", "--tune-on", "60", "--jobs", "1"]
    assert main(arguments) == 0
    printed = capsys.readouterr().out
    assert "mean (min–max over 2 draws)" in printed and "once on the 60-text subset of the first draw" in printed
    assert "Naive Bayes · Basic BOW" in printed and "140 texts" in printed  # all 140 training texts end the curve
    assert "per doubling" in printed and f"Wrote {out}" in printed

    result = LearningCurveResult.from_json((out / "learning-curve.json").read_text(encoding="utf-8"))
    assert result.sizes == [30, 60, 140] and result.repeats == 2 and result.n_test == 60
    table = pd.read_csv(out / "learning-curve.csv", encoding="utf-8-sig")
    assert list(table.columns) == ["model", "size", "repeat", "macro_f1", "f1: defence", "f1: energy", "f1: health",
                                   "seconds"]
    assert len(table) == 3 * 2 and set(table["size"]) == {30, 60, 140}

    first = (out / "learning-curve.json").stat().st_ino
    assert main(arguments) == 0  # an earlier curve is replaced as a whole, like an earlier run
    capsys.readouterr()
    assert (out / "learning-curve.json").stat().st_ino != first
    bad = ["learning-curve", str(tmp_path / "study.toml"), "--out", str(tmp_path / "other"), "--sizes", "3"]
    assert main(bad) == 2 and "cannot start at 3" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()
