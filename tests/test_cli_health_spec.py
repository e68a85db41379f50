"""``textlab health --spec`` answers as ``textlab run`` would; both refuse bad study files with a sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guiapp.cli.entry import main
from guiapp.core.experiment.run import run_size
from tests.core.synthetic_texts import coded_texts

GOOD = '[data]\nsource = "texts.csv"\n[data.mapping]\ntext_columns = ["text"]\ncategory_column = "label"\n'
NAIVE_BAYES = '[[models]]\nrepresentation = "bow"\nclassifier = "naive_bayes"\n'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    coded_texts(150).to_csv(tmp_path / "texts.csv", index=False)
    return tmp_path


def write(folder: Path, text: str, name: str = "study.toml") -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def both(capsys, spec: str, out: Path) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """(status, stdout, stderr) of ``health --spec`` and of ``run``."""
    health = main(["health", "--spec", spec])
    first = capsys.readouterr()
    run = main(["run", spec, "--out", str(out), "--jobs", "1"])
    second = capsys.readouterr()
    return (health, first.out, first.err), (run, second.out, second.err)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("seed = -1\n" + GOOD, "seed is -1, but it must be a whole number between 0 and 4294967295"),
        (f"seed = {2**32}\n" + GOOD, "seed is 4294967296"),
        ('schema_version = "one"\n' + GOOD, 'schema_version is "one"'),
        ("name = { a = 1 }\n" + GOOD, "name is {\"a\": 1} (a table), but it must be text in quotes"),
        (GOOD.replace('["text"]', "5"), "[data.mapping] text_columns is 5"),
        (GOOD.replace('["text"]', '"text"'), 'text_columns = ["text"]'),
        (GOOD.replace('"label"', '["label"]'), '[data.mapping] category_column is ["label"] (a list)'),
        (GOOD + '[evaluation]\nfolds = "3"\n', 'Write the number without quotes: folds = 3.'),
        (GOOD.replace("[data]\n", "[data]\nsheet = 5\n"), "[data] sheet is 5"),
        (GOOD.replace("[data]\n", '[data]\nsheet = "Sheet1"\n') + NAIVE_BAYES, "texts.csv is not a workbook"),
        ("name = " + "[" * 5000 + "]" * 5000 + "\n" + GOOD, "nested too deeply"),
        ("", "study.toml is empty"),
        (GOOD + "[evaluation]\nfolds = \n", "line 7, column 9"),
        ('name = "x"\n', "[data] source is missing"),
        (GOOD.replace("texts.csv", "never.csv") + NAIVE_BAYES, "never.csv does not exist"),
    ],
)
def test_bad_study_files_stop_health_and_run_with_status_2_and_a_sentence(folder, capsys, content, words) -> None:
    (health, _, health_err), (run, _, run_err) = both(capsys, write(folder, content), folder / "out")
    assert (health, run) == (2, 2)
    assert words in health_err and words in run_err
    assert "Traceback" not in health_err + run_err and "Input should" not in health_err + run_err
    assert not (folder / "out" / "results.json").exists()


def test_folds_above_the_smallest_category_make_health_not_ready_where_run_refuses(folder, capsys) -> None:
    rare = coded_texts(150, shares=(0.6, 0.36, 0.04))
    rare.to_csv(folder / "texts.csv", index=False)
    spec = write(folder, GOOD + "[evaluation]\nfolds = 8\n" + NAIVE_BAYES)
    (health, out, _), (run, _, run_err) = both(capsys, spec, folder / "out")
    assert (health, run) == (1, 2)
    refusal = run_err.strip().splitlines()[-2]  # run's own sentence, before its hint
    assert "training texts, fewer than the 8 cross-validation folds" in refusal
    assert "Not ready yet" in out and f"`textlab run` would stop here: {refusal}" in out


def test_a_test_file_with_other_columns_is_caught_by_health(folder, capsys) -> None:
    coded_texts(40, seed=3).rename(columns={"text": "body"}).to_csv(folder / "test.csv", index=False)
    spec = write(folder, GOOD.replace("[data]\n", '[data]\ntest_source = "test.csv"\n') + NAIVE_BAYES)
    (health, out, _), (run, _, run_err) = both(capsys, spec, folder / "out")
    assert (health, run) == (1, 2)
    assert "The test file test.csv does not have the study's columns" in out
    assert "The test file test.csv does not have the study's columns" in run_err


def test_health_uses_the_studys_folds_and_reads_its_test_file(folder, capsys) -> None:
    coded_texts(40, seed=3).to_csv(folder / "test.csv", index=False)
    spec = write(folder, GOOD.replace("[data]\n", '[data]\ntest_source = "test.csv"\n') + "[evaluation]\nfolds = 3\n"
                 + NAIVE_BAYES)
    assert main(["health", "--spec", spec, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["report"]["n_folds"] == 3
    assert payload["report"]["verdict"] != "not_ready"
    assert main(["health", "--spec", spec, "--folds", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["report"]["n_folds"] == 4


def test_a_source_outside_the_study_folder_is_named(folder, capsys) -> None:
    (folder / "studies").mkdir()
    spec = write(folder / "studies", GOOD.replace("texts.csv", "../texts.csv") + NAIVE_BAYES)
    assert main(["health", "--spec", spec]) == 0
    assert f'source = "../texts.csv" is {folder / "texts.csv"}' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("table", "missing"),
    [("a,b\n" + "1,4\n2,5\n3,6\n" * 10, "texts."),
     ("comment\n" + "".join(f"this is a long free text comment number {i} about things\n" for i in range(30)),
      "categories")],
)
def test_a_table_without_guessable_columns_gets_status_3(tmp_path, capsys, table, missing) -> None:
    path = tmp_path / "table.csv"
    path.write_text(table, encoding="utf-8")
    assert main(["health", str(path)]) == 3
    err = capsys.readouterr().err
    assert f"could not tell which column holds the {missing}" in err and "--category COLUMN" in err


def test_a_table_that_does_not_exist_is_status_2(tmp_path, capsys) -> None:
    assert main(["health", str(tmp_path / "nothing.csv")]) == 2
    err = capsys.readouterr().err
    assert "nothing.csv does not exist" in err and "no longer there" not in err


def test_the_help_lists_the_exit_codes(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["health", "--help"])
    text = capsys.readouterr().out
    assert "exit status:" in text and "\n  3    the table was read, but no text or category column" in text


def test_run_prints_the_size_of_the_study_and_warns_when_it_is_large(folder, capsys, monkeypatch) -> None:
    spec = write(folder, GOOD + "[evaluation]\nfolds = 3\nbootstrap_samples = 0\n" + NAIVE_BAYES)
    assert main(["run", spec, "--out", str(folder / "small"), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert ("This study fits 10 models, under a minute on this computer. The model tries 3 settings on each of 3 folds "
            "(3-fold cross-validation: 9 fits), then fits its chosen setting on all training texts (1 fit).") in err
    monkeypatch.setattr(run_size, "LARGE_RUN_FITS", 5)
    assert main(["run", spec, "--out", str(folder / "large"), "--jobs", "1", "--quiet"]) == 0
    assert "This is a large study: it fits 10 models and takes" in capsys.readouterr().err


def test_a_multi_label_study_names_its_category_columns(tmp_path, capsys):
    import shutil
    from pathlib import Path

    from guiapp.cli.entry import main

    shutil.copy(Path(__file__).parent / "fixtures" / "multi_label_small.csv", tmp_path / "coded.csv")
    (tmp_path / "study.toml").write_text(
        '[data]\nsource = "coded.csv"\n[data.mapping]\ntext_columns = ["text"]\nmulti_label = true\n'
        'category_columns = ["economy", "health", "environment", "migration"]\n'
        '[[models]]\nrepresentation = "bow"\nclassifier = "logistic_regression"\n', encoding="utf-8")
    assert main(["health", "--spec", str(tmp_path / "study.toml")]) == 0
    printed = capsys.readouterr().out
    assert "categories (several per text): economy, health, environment, migration" in printed
    assert "24 coded texts have none of the categories" in printed


def _model(representation: str, classifier: str, option: str, value: str) -> str:
    return (f'[[models]]\nrepresentation = "{representation}"\nclassifier = "{classifier}"\n'
            f'[models.representation_options]\n{option} = "{value}"\n')


@pytest.mark.parametrize("case", ["no models", "missing vectors", "not vectors", "missing sentence model",
                                  "unknown hub model offline"])
def test_health_refuses_models_that_run_cannot_start_with_runs_own_words(folder, capsys, monkeypatch, case) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (folder / "notes.txt").write_text("hello world\nthese are words\n", encoding="utf-8")
    models = {
        "no models": "",
        "missing vectors": _model("word_vectors", "svm", "vectors", str(folder / "nowhere.txt")),
        "not vectors": _model("word_vectors", "svm", "vectors", str(folder / "notes.txt")),
        "missing sentence model": _model("sentence_embeddings", "logistic_regression", "model",
                                         str(folder / "no-model")),
        "unknown hub model offline": _model("sentence_embeddings", "logistic_regression", "model",
                                            "nobody-here/no-such-model-xyz"),
    }[case]
    words = {
        "no models": "The study has no models to compare.",
        "missing vectors": f"The word vector file “{folder / 'nowhere.txt'}” does not exist.",
        "not vectors": "Line 1 of “notes.txt” has “world” where a number should be.",
        "missing sentence model": f"The model folder “{folder / 'no-model'}” does not exist.",
        "unknown hub model offline": "TextLab could not download nobody-here/no-such-model-xyz: this computer is offline",
    }[case]
    (health, out, _), (_, run_out, run_err) = both(capsys, write(folder, GOOD + models), folder / "out")
    assert health == 1, out
    assert "Not ready yet" in out and "Ready:" not in out
    assert words in out and words in run_out + run_err
    assert "Traceback" not in out + run_err
