"""``textlab agreement RESULTS``: a real (tiny) study on a table that counts three coders per category."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.cli.entry import main
from tests.test_cli_run import EXAMPLE
from tests.test_cli_subgroups import STUDY


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("agreement")
    frame = pd.concat([pd.read_csv(EXAMPLE / "train.csv"), pd.read_csv(EXAMPLE / "test.csv")], ignore_index=True)
    categories = sorted(frame["label"].astype(str).unique())
    rng = np.random.default_rng(3)
    for category in categories:  # three coders: the coded category gets two or three votes
        frame[f"{category}_votes"] = 0
    for i, label in enumerate(frame["label"].astype(str)):
        votes = 3 if rng.random() < 0.6 else 2
        frame.loc[i, f"{label}_votes"] = votes
        if votes == 2:
            other = categories[(categories.index(label) + 1) % len(categories)]
            frame.loc[i, f"{other}_votes"] += 1
    frame.to_csv(folder / "bills.csv", index=False)
    (folder / "study.toml").write_text(STUDY, encoding="utf-8")
    out = folder / "results"
    assert main(["run", str(folder / "study.toml"), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    return folder, out, categories


def test_kappa_alpha_and_the_coders_are_printed(study, capsys):
    _, out, categories = study
    capsys.readouterr()
    assert main(["agreement", str(out), "--samples", "50"]) == 0
    printed = capsys.readouterr().out
    assert "Cohen kappa" in printed and "Naive Bayes · Basic BOW" in printed
    assert "Against your coders" in printed and f"{categories[0]}={categories[0]}_votes" in printed
    assert "Krippendorff's alpha among the coders" in printed
    assert "one coder agrees with the others" in printed


def test_coder_columns_can_be_named_and_are_checked(study, capsys):
    _, out, categories = study
    capsys.readouterr()
    named = [f"{c}={c.upper()}_VOTES" for c in categories]
    assert main(["agreement", str(out), "--samples", "20", "--coder-columns", *named]) == 0
    assert "Against your coders" in capsys.readouterr().out
    wrong = [f"{categories[0]}=text", *named[1:]]
    assert main(["agreement", str(out), "--samples", "20", "--coder-columns", *wrong]) == 2
    assert "do not count coders" in capsys.readouterr().err
    assert main(["agreement", str(out), "--coder-columns", "oops"]) == 2
    assert "CATEGORY=COLUMN" in capsys.readouterr().err
