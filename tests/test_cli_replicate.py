"""``textlab replicate PACKAGE --out FOLDER``: the table per model, the verdict in words, and the exit
status — 0 identical, 1 different, 2 could not rerun (said in words, never a traceback)."""

from __future__ import annotations

import json

import pytest

from guiapp.cli.entry import main
from tests.core.replication.rerun_packages import coded_table, copy_package, rehash, run_project, write


@pytest.fixture(scope="module")
def studied(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    project = run_project(folder)
    return project, write(project, folder / "package")


def test_an_identical_rerun_prints_the_table_and_exits_0(studied, tmp_path, capsys):
    _, package = studied
    assert main(["replicate", str(package), "--out", str(tmp_path / "rerun"), "--jobs", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    header = next(line for line in lines if line.startswith("model"))
    assert header.split() == ["model", "original", "rerun", "difference", "answers", "changed", "verdict"]
    row = next(line for line in lines if line.startswith("Logistic regression · Basic BOW"))
    assert row.split()[-3:] == ["0.0%", "(0/27)", "identical"]
    assert "Identical: every model gave the package's numbers again." in printed
    assert (tmp_path / "rerun" / "results.json").is_file() and (tmp_path / "rerun" / "predictions.csv").is_file()


def test_a_different_rerun_exits_1_and_says_why(studied, tmp_path, capsys):
    _, package = studied
    moved = copy_package(package, tmp_path / "package")
    results = json.loads((moved / "results" / "results.json").read_text(encoding="utf-8"))
    results["models"][1]["test"]["macro_f1"] -= 0.1
    (moved / "results" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    rehash(moved, "results/results.json")
    status = main(["replicate", str(moved), "--out", str(tmp_path / "rerun"), "--jobs", "1", "--spread-seeds", "0",
                   "--quiet"])
    printed = capsys.readouterr().out
    assert status == 1
    name = results["models"][1]["name"]
    assert f"{name}: different: the macro-F1 moved by +0.100, the run-to-run spread was not measured;" in printed
    assert "Different: 1 of 2 models did not give the package's numbers again" in printed


def test_a_package_without_the_texts_exits_2_naming_the_hash_and_the_option(studied, tmp_path, capsys):
    project, _ = studied
    without = write(project, tmp_path / "package", share_texts=False)
    expected = json.loads((without / "manifest.json").read_text(encoding="utf-8"))["data"]["table"]["sha256"]
    assert main(["replicate", str(without), "--out", str(tmp_path / "rerun")]) == 2
    error = capsys.readouterr().err
    assert expected in error and "--data" in error and "Traceback" not in error

    coded_table().to_csv(tmp_path / "bills.csv", index=False)
    assert main(["replicate", str(without), "--out", str(tmp_path / "rerun"), "--data", str(tmp_path / "bills.csv"),
                 "--jobs", "1", "--quiet"]) == 0
    assert "data from bills.csv" in capsys.readouterr().out


def test_a_folder_that_is_no_package_exits_2(tmp_path, capsys):
    assert main(["replicate", str(tmp_path), "--out", str(tmp_path / "rerun")]) == 2
    error = capsys.readouterr().err
    assert "not a replication package" in error and "Traceback" not in error


def test_a_negative_number_of_seeds_is_refused(studied, tmp_path, capsys):
    _, package = studied
    assert main(["replicate", str(package), "--out", str(tmp_path / "rerun"), "--spread-seeds", "-1"]) == 2
    assert "--spread-seeds 0" in capsys.readouterr().err
