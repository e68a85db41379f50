"""The command line on hostile files and faults: it answers in words, agrees with itself, and keeps
nothing quiet (categories too small after free text, fixes that match nothing, testing on the
training texts, no interval, Ctrl-C while loading, columns it cannot guess, uncalculated
formulas, a malformed checksum, control characters in a name, a table replaced while read)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from guiapp.cli.entry import main
from guiapp.core.study import study_data
from tests.core.synthetic_texts import coded_texts

ROOT = Path(__file__).resolve().parents[1]
MAPPING = '[data.mapping]\ntext_columns = ["text"]\ncategory_column = "label"\n'
NAIVE_BAYES = '[[models]]\nrepresentation = "bow"\nclassifier = "naive_bayes"\n'


def study(folder: Path, data: str = "", rest: str = NAIVE_BAYES, source: str = "texts.csv") -> str:
    path = folder / "study.toml"
    path.write_text(f'[data]\nsource = "{source}"\n{data}{MAPPING}{rest}', encoding="utf-8")
    return str(path)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    coded_texts(150).to_csv(tmp_path / "texts.csv", index=False)
    return tmp_path


def test_sixty_categories_of_one_text_are_not_ready_in_health_as_in_health_spec_and_run(tmp_path, capsys) -> None:
    pd.DataFrame({"text": [f"this is the text number {i} about things" for i in range(60)],
                  "label": [f"code {i}" for i in range(60)]}).to_csv(tmp_path / "texts.csv", index=False)
    assert main(["health", str(tmp_path / "texts.csv"), "--text", "text", "--category", "label"]) == 1
    out = capsys.readouterr().out
    assert "Not ready yet" in out and "60 categories have fewer than 5 coded training texts" in out
    assert "looks like free text, not categories" in out  # the warning stays, with the problem above it
    spec = study(tmp_path)
    assert main(["health", "--spec", spec]) == 1
    assert main(["run", spec, "--out", str(tmp_path / "out"), "--jobs", "1"]) == 2
    assert "60 categories have only 1 coded text" in capsys.readouterr().err


def test_category_fixes_that_match_nothing_are_named_by_health_and_run(folder, capsys) -> None:
    fixes = 'category_fixes = { merge = { "Helth" = "Health" }, leave_out = ["Nope", "Energy"] }\n'
    spec = study(folder, fixes, "[evaluation]\nfolds = 3\nbootstrap_samples = 0\n" + NAIVE_BAYES)
    assert main(["health", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "[CHECK] 3 category fixes match no category" in out
    assert 'merge “Helth” into “Health”; leave out “Nope”; leave out “Energy” (there is “energy”)' in out
    assert out.count("leave out “Nope”") == 1  # a finding, not repeated as a note
    assert main(["run", spec, "--out", str(folder / "out"), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    assert "3 category fixes name categories not found in the table, so they change nothing" in captured.err
    # no bootstrap resamples: no interval, and said so, never "nan"
    assert "nan" not in captured.out
    assert "none" in captured.out and "bootstrap_samples = 0" in captured.out


def test_fixes_that_match_are_not_questioned(folder, capsys) -> None:
    spec = study(folder, 'category_fixes = { merge = { "energy" = "Energy" }, leave_out = ["Energy"] }\n')
    assert main(["health", "--spec", spec]) == 0
    assert "match no category" not in capsys.readouterr().out


@pytest.mark.parametrize(("test_file", "words"), [
    ("texts.csv", "The test file is the training table itself: all of the 150 test texts are also training texts"),
    ("copy.csv", "The test file repeats the training texts: all of the 150 test texts are also training texts"),
])
def test_testing_on_the_training_texts_is_refused_in_words(folder, capsys, test_file, words) -> None:
    frame = pd.read_csv(folder / "texts.csv")
    frame.assign(text=frame["text"].str.upper() + "  ").to_csv(folder / "copy.csv", index=False)  # capitals, spaces
    spec = study(folder, f'test_source = "{test_file}"\n')
    assert main(["health", "--spec", spec]) == 1
    assert words in capsys.readouterr().out
    assert main(["run", spec, "--out", str(folder / "out"), "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert not (folder / "out").exists()


def test_some_test_texts_in_training_are_counted(folder, capsys) -> None:
    training = pd.read_csv(folder / "texts.csv")
    test = coded_texts(60, seed=5)
    test.iloc[:7] = training.iloc[:7].to_numpy()
    test.to_csv(folder / "test.csv", index=False)
    assert main(["health", "--spec", study(folder, 'test_source = "test.csv"\n')]) == 0
    assert "7 of the 60 test texts in the test file are also training texts" in capsys.readouterr().out


def test_ctrl_c_while_a_command_loads_its_libraries_prints_one_line_and_status_130(folder, tmp_path) -> None:
    """Ctrl-C arrives while ``run`` still imports the engine (as in the first seconds of a command)."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'guiapp.core.experiment.run.runner':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "guiapp", "run", study(folder), "--out", str(folder / "out")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 130
    assert done.stderr.strip() == "Stopped." and done.stdout == ""


def test_ctrl_c_anywhere_in_main_is_one_line(monkeypatch, capsys) -> None:
    from guiapp.cli import entry

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(entry, "_parser", interrupted)
    assert main(["health", "x.csv"]) == 130
    assert capsys.readouterr().err.strip() == "Stopped."


def test_columns_that_cannot_be_guessed_are_each_explained(tmp_path, capsys) -> None:
    n = 30
    pd.DataFrame({
        "blank": [None] * n, "same": ["x"] * n, "when": [f"2020-01-{i + 1:02d}" for i in range(n)],
        "score": [i / 7 for i in range(n)], "word": [f"w{i}" for i in range(n)],
    }).to_csv(tmp_path / "table.csv", index=False)
    assert main(["health", str(tmp_path / "table.csv")]) == 3
    err = capsys.readouterr().err
    assert "could not tell which column holds the texts and the categories" in err
    for line in ("'blank': empty in every row", "'same': the same value in every row (“x”)", "'when': dates",
                 "'score': numbers with decimals", "'word': short values (1.0 words on average), not texts",
                 "'word': a different value in every row"):
        assert line in err


def test_a_text_column_of_uncalculated_formulas_says_so(tmp_path, capsys) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Codes"
    sheet.append(["A study of speeches"])  # a title row above the header
    sheet.append(["id", "text", "label"])
    for i in range(20):  # openpyxl stores formulas without calculating them, as scripts do
        sheet.append([i, f'="speech "&A{i + 3}', ["pro", "con"][i % 2]])
    book.save(tmp_path / "formulas.xlsx")
    assert main(["health", str(tmp_path / "formulas.xlsx")]) == 3
    err = capsys.readouterr().err
    assert ("The column 'text' (column B of the sheet “Codes”) holds 20 formulas that were never calculated" in err)
    assert "'text': empty in every row" in err


def test_a_checksum_that_is_not_one_is_questioned(folder, capsys) -> None:
    spec = study(folder, 'sha256 = "hello"\n')
    assert main(["health", "--spec", spec]) == 2
    err = capsys.readouterr().err
    assert '[data] sha256 is "hello" (text in quotes), but it must be a SHA-256 checksum of exactly 64 ' \
           "hexadecimal characters" in err
    assert main(["health", "--spec", study(folder, f'sha256 = "{"AB" * 32}"\n')]) == 0  # capitals do


def test_control_characters_in_the_source_are_escaped_never_printed(folder, capsys) -> None:
    spec = study(folder, source="tex\\u0000ts.csv")
    assert main(["health", "--spec", spec]) == 2
    err = capsys.readouterr().err
    assert "\x00" not in err and 'source is "tex\\x00ts.csv"' in err and "NUL character" in err
    spec = study(folder, source="\\u001b[2Jgone\\u202e.csv")  # clears a terminal; turns text around
    assert main(["run", spec, "--out", str(folder / "out")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err
    assert "\\x1b[2Jgone\\u202e.csv does not exist" in err


def test_a_table_replaced_while_the_run_reads_it_is_noted(folder, capsys, monkeypatch) -> None:
    read = study_data.read_table

    def read_then_replace(path, *args, **kwargs):
        loaded = read(path, *args, **kwargs)
        coded_texts(150, seed=9).to_csv(Path(path).with_suffix(".new"), index=False)
        os.replace(Path(path).with_suffix(".new"), path)  # saved by another program meanwhile
        return loaded

    monkeypatch.setattr(study_data, "read_table", read_then_replace)
    spec = study(folder, rest="[evaluation]\nfolds = 3\nbootstrap_samples = 10\n" + NAIVE_BAYES)
    assert main(["run", spec, "--out", str(folder / "out"), "--jobs", "1"]) == 0
    words = "The file texts.csv was changed or replaced while TextLab was reading it"
    assert words in capsys.readouterr().err
    assert words in (folder / "out" / "results.json").read_text(encoding="utf-8")
