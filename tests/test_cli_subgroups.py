"""``textlab subgroups RESULTS --column NAME``: a real (tiny) study, then its scores per party."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from guiapp.cli.entry import main
from tests.test_cli_run import EXAMPLE

STUDY = """
name = "Bills by party"
seed = 11

[data]
source = "bills.csv"

[data.mapping]
text_columns = ["text"]
category_column = "label"

[evaluation]
folds = 3
bootstrap_samples = 200

[[models]]
representation = "bow"
classifier = "naive_bayes"
grid = { alpha = [0.1] }
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("subgroups")
    frame = pd.concat([pd.read_csv(EXAMPLE / "train.csv"), pd.read_csv(EXAMPLE / "test.csv")], ignore_index=True)
    frame["party"] = np.where(np.arange(len(frame)) % 3 == 0, "Republican", "Democrat")
    frame.loc[frame.index % 50 == 7, "party"] = None
    frame.to_csv(folder / "bills.csv", index=False)
    (folder / "study.toml").write_text(STUDY, encoding="utf-8")
    out = folder / "results"
    assert main(["run", str(folder / "study.toml"), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    return folder, out, frame


def test_the_groups_of_each_model_are_printed_and_written(study, tmp_path, capsys):
    _, out, frame = study
    capsys.readouterr()
    target = tmp_path / "groups.csv"
    assert main(["subgroups", str(out), "--column", "party", "--out", str(target)]) == 0
    printed = capsys.readouterr().out
    assert "Naive Bayes · Basic BOW" in printed and "Republican" in printed and "(no value)" in printed
    assert "stands out" in printed or "makes more mistakes" in printed
    written = pd.read_csv(target, encoding="utf-8-sig", keep_default_na=False)
    assert list(written["party"]) == ["Democrat", "Republican", "(no value)"]
    predictions = pd.read_csv(out / "predictions.csv", encoding="utf-8-sig")
    parties = frame["party"].iloc[predictions["row"] - 2].fillna("(no value)")
    assert dict(zip(written["party"], written["test texts"], strict=True)) == parties.value_counts().to_dict()
    wrong = (~predictions["correct"].astype(bool)).groupby(parties.to_numpy()).mean()
    for party, share in zip(written["party"], written["share wrong"], strict=True):
        assert share == pytest.approx(wrong[party])


def test_an_unknown_column_names_the_usable_ones(study, capsys):
    _, out, _ = study
    capsys.readouterr()
    assert main(["subgroups", str(out), "--column", "outlet"]) == 2
    err = capsys.readouterr().err
    assert "no column “outlet”" in err and "Columns that can group the texts: party" in err


def test_a_moved_table_is_asked_for_and_can_be_named(study, tmp_path, capsys):
    folder, out, _ = study
    moved = tmp_path / "results"
    shutil.copytree(out, moved)
    capsys.readouterr()
    assert main(["subgroups", str(moved), "--column", "party", "--model", "naive bayes · basic bow"]) == 2
    assert "--table" in capsys.readouterr().err
    assert main(["subgroups", str(moved), "--column", "party", "--table", str(folder / "bills.csv")]) == 0
    assert "Republican" in capsys.readouterr().out
