"""``textlab explain``: chosen test documents by their spreadsheet rows, or all of them with the
words per category; HTML + CSV in the output folder; plain messages for wrong rows and names."""

from __future__ import annotations

import pandas as pd

from guiapp.cli import main
from guiapp.core.predict.saved_results import read_results
from tests.test_cli_predict import results  # noqa: F401  (the module's study, run once)


def test_chosen_documents_are_explained_by_their_rows(results, tmp_path, capsys):  # noqa: F811
    out_results, _new = results
    result = read_results(out_results)
    rows = [result.test_rows[0], result.test_rows[5]]
    out = tmp_path / "why"
    assert main(["explain", str(out_results), "--documents", ",".join(map(str, rows)), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["explanations.html", "faithfulness.csv", "top words.csv"]
    page = (out / "explanations.html").read_text(encoding="utf-8")
    assert f"Row {rows[0]}" in page and f"Row {rows[1]}" in page and "<script" not in page
    words = pd.read_csv(out / "top words.csv", encoding="utf-8-sig")
    # the test texts of this study come from a separate test file, whose rows are named with it
    assert result.test_rows_in == "test.csv"
    assert set(words.iloc[:, 0]) == {f"Row {rows[0]} of test.csv", f"Row {rows[1]} of test.csv"}
    assert "Wrote" in capsys.readouterr().out
    # the same again refuses to replace the files unless asked
    assert main(["explain", str(out_results), "--documents", str(rows[0]), "--out", str(out)]) == 2
    assert main(["explain", str(out_results), "--documents", str(rows[0]), "--out", str(out), "--overwrite"]) == 0


def test_all_documents_give_the_words_per_category(results, tmp_path):  # noqa: F811
    out_results, _new = results
    out = tmp_path / "all"
    assert main(["explain", str(out_results), "--all", "--out", str(out), "--model", "Naive Bayes · Basic BOW"]) == 0
    words = pd.read_csv(out / "words per category.csv", encoding="utf-8-sig")
    assert {"category", "word", "mean score", "occurrences", "documents", "coefficient"} <= set(words.columns)
    assert words["coefficient"].notna().all()  # naive Bayes is linear in its word counts


def test_wrong_rows_and_names_get_a_plain_message(results, tmp_path, capsys):  # noqa: F811
    out_results, _new = results
    assert main(["explain", str(out_results), "--documents", "1", "--out", str(tmp_path / "x")]) == 2
    assert "not among the test documents" in capsys.readouterr().err
    assert main(["explain", str(out_results), "--documents", "a,b", "--out", str(tmp_path / "x")]) == 2
    assert "not a list of row numbers" in capsys.readouterr().err
    assert main(["explain", str(out_results), "--all", "--category", "nonsense", "--out", str(tmp_path / "x")]) == 2
    assert "no category" in capsys.readouterr().err
