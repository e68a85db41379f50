"""``textlab findings PROJECT CORPUS --out FILE``: the shares of the categories in a corpus with their
intervals, per group and with a regression, written as a workbook; bad input said in words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.cli.entry import main
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import run_project
from tests.core.synthetic_texts import coded_texts


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("findings")
    project = run_project(folder / "models")
    path = save_project(folder / "study.textlab", project)
    corpus = coded_texts(200, seed=31).assign(year=np.arange(200) % 7 + 2000)
    truth = corpus.pop("label")
    corpus.to_csv(folder / "corpus.csv", index=False)
    return folder, path, truth


def test_shares_per_group_and_a_regression_are_written_and_printed(study, capsys):
    folder, path, truth = study
    out = folder / "findings.xlsx"
    code = main(["findings", str(path), str(folder / "corpus.csv"), "--by", "year", "--regress", "defence ~ year",
                 "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    sheets = pd.read_excel(out, sheet_name=None, engine="calamine")
    assert {"Shares", "Differences", "Regression", "How estimated"} <= set(sheets)
    assert "random sample" in printed.err
    for line in printed.out.splitlines()[:3]:  # "health: 47.0 % [38.1, 55.9]  (counting …)"
        category, rest = line.split(": ", 1)
        low, high = (float(v) for v in rest.split("[", 1)[1].split("]", 1)[0].split(", "))
        assert low <= 100 * (truth == category).mean() <= high
    assert main(["findings", str(path), str(folder / "corpus.csv"), "--out", str(out)]) == 2  # exists
    assert "--overwrite" in capsys.readouterr().err


def test_a_column_the_test_texts_lack_is_refused_in_words(study, capsys):
    folder, path, _ = study
    code = main(["findings", str(path), str(folder / "corpus.csv"), "--by", "outlet", "--out",
                 str(folder / "other.csv")])
    assert code == 2 and "no column “outlet”" in capsys.readouterr().err


def test_a_projects_own_table_is_measured_without_a_corpus_file(study, capsys):
    folder, path, _ = study
    out = folder / "own.csv"
    code = main(["findings", str(path), "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    shares = pd.read_csv(out)
    assert shares["texts"].iloc[0] == shares["coded texts"].iloc[0]  # every text of the fixture is coded
    assert "random sample" in printed.err
    assert main(["findings", str(folder / "corpus.csv"), "--out", str(out), "--overwrite"]) == 2
    assert "no project" in capsys.readouterr().err
    assert main(["findings", str(path), str(folder / "corpus.csv"), "--drawn-per-group", "--out",
                 str(folder / "x.csv")]) == 2
    assert "own table" in capsys.readouterr().err


def test_differences_compare_with_a_named_group_or_every_pair(study, capsys):
    folder, path, _ = study
    corpus = str(folder / "corpus.csv")
    out = folder / "compared.xlsx"
    code = main(["findings", str(path), corpus, "--by", "year", "--compare-with", "2003", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    sheet = pd.read_excel(out, sheet_name="Differences", engine="calamine")
    categories = sheet["category"].nunique()
    assert len(sheet) == 6 * categories and set(sheet["compared with"].astype(str)) == {"2003"}
    assert "compared with “2003”" in printed.out

    code = main(["findings", str(path), corpus, "--by", "year", "--all-pairs", "--out", str(out), "--overwrite"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert len(pd.read_excel(out, sheet_name="Differences", engine="calamine")) == 21 * categories  # 7 × 6 / 2
    assert "every pair" in printed.out

    code = main(["findings", str(path), corpus, "--by", "year", "--out", str(out), "--overwrite"])
    assert code == 0
    sheet = pd.read_excel(out, sheet_name="Differences", engine="calamine")
    assert len(sheet) == 6 * categories and sheet["compared with"].nunique() == 1  # the largest year
    capsys.readouterr()


def test_a_comparison_that_cannot_be_made_is_refused_in_words(study, capsys):
    folder, path, _ = study
    corpus = str(folder / "corpus.csv")
    out = str(folder / "refused.csv")
    assert main(["findings", str(path), corpus, "--by", "year", "--compare-with", "1999", "--out", out]) == 2
    said = capsys.readouterr().err
    assert "no group “1999”" in said and "“2000”" in said and "“2006”" in said and "Choose one" in said
    assert main(["findings", str(path), corpus, "--compare-with", "2003", "--out", out]) == 2
    assert "--by COLUMN" in capsys.readouterr().err
    assert main(["findings", str(path), corpus, "--by", "year", "--compare-with", "2003", "--all-pairs",
                 "--out", out]) == 2
    assert "two different comparisons" in capsys.readouterr().err


def test_the_help_tells_of_the_comparisons(capsys):
    with pytest.raises(SystemExit):
        main(["findings", "--help"])
    said = capsys.readouterr().out
    assert "--compare-with GROUP" in said and "--all-pairs" in said and "largest group" in said
