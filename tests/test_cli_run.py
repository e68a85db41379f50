"""``textlab run SPEC --out DIR`` end to end, with the documented hand-written example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from guiapp.cli.entry import main
from guiapp.core.experiment.results.experiment_result import ExperimentResult

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "bills"


def copy_example(tmp_path: Path) -> Path:
    folder = tmp_path / "bills"
    shutil.copytree(EXAMPLE, folder)
    return folder / "study.toml"


def test_documented_example_runs_as_is_and_writes_both_files(tmp_path, capsys) -> None:
    spec = copy_example(tmp_path)
    out = tmp_path / "results"
    assert main(["run", str(spec), "--out", str(out), "--jobs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "200 test texts from the test file, 600 for training; 4 categories" in printed
    assert "SVM · Basic BOW" in printed and "Naive Bayes · Basic BOW" in printed

    result = ExperimentResult.from_json((out / "results.json").read_text(encoding="utf-8"))
    assert [model.status for model in result.models] == ["done"] * 5  # three models, two combinations of them
    assert [model.representation for model in result.models[3:]] == ["combined", "combined"]
    assert "Combined: weighted vote" in printed and "weighted vote: " in printed
    assert result.split["how"] == "test file" and len(result.test_true) == 200
    for model in result.models:
        assert 0.5 < model.test.macro_f1 <= 1.0
        assert model.chosen_params and len(model.cv_scores) == 5
    assert result.environment["packages"]["scikit-learn"]

    predictions = pd.read_csv(out / "predictions.csv", encoding="utf-8-sig")
    assert len(predictions) == 5 * 200  # three models and two combinations
    assert {"row", "text", "true_category", "model", "predicted_category", "correct"} <= set(predictions.columns)
    assert [c for c in predictions.columns if c.startswith("probability: ")] == [
        f"probability: {c}" for c in result.categories
    ]
    test_file = pd.read_csv(spec.parent / "test.csv")
    first = predictions.iloc[0]
    assert test_file.loc[first["row"] - 2, "text"] == first["text"]  # rows point into the test file
    best = result.best()
    share = predictions[predictions["model"] == best.name]["correct"].mean()
    assert abs(share - best.test.accuracy) < 1e-9


def test_the_format_document_shows_the_example_verbatim() -> None:
    document = (ROOT / "docs" / "spec-format.md").read_text(encoding="utf-8")
    assert (EXAMPLE / "study.toml").read_text(encoding="utf-8").strip() in document


def test_bad_spec_gives_a_message_and_exit_status_2(tmp_path, capsys) -> None:
    spec = copy_example(tmp_path)
    spec.write_text(spec.read_text(encoding="utf-8").replace("folds = 5", "foldz = 5"), encoding="utf-8")
    assert main(["run", str(spec), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert "Unknown setting(s) in [evaluation]: foldz" in error and "Traceback" not in error
    assert not (tmp_path / "out").exists()


def test_missing_data_file_is_explained(tmp_path, capsys) -> None:
    spec = copy_example(tmp_path)
    (spec.parent / "test.csv").unlink()
    assert main(["run", str(spec), "--out", str(tmp_path / "out")]) == 2
    assert "test.csv" in capsys.readouterr().err


def test_a_failed_model_gives_exit_status_1_and_the_rest_is_written(tmp_path, capsys) -> None:
    spec = copy_example(tmp_path)
    text = spec.read_text(encoding="utf-8").replace(
        'stem_language = "none", min_df = 0.002', 'min_df = 1.0, max_df = 1.0, remove_punctuation = true'
    )
    spec.write_text(text, encoding="utf-8")
    assert main(["run", str(spec), "--out", str(tmp_path / "out"), "--quiet"]) == 1
    assert "failed:" in capsys.readouterr().out
    result = ExperimentResult.from_json((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert [model.status for model in result.models][:3] == ["done", "done", "failed"]
    assert [model.spec["parts"] for model in result.models[3:]] == [[m.name for m in result.models[:2]]] * 2


def test_a_scheduler_that_does_not_answer_stops_the_run_with_a_message(tmp_path, capsys) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spec = copy_example(tmp_path)
    assert main(["run", str(spec), "--out", str(tmp_path / "out"), "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    error = capsys.readouterr().err
    assert f"Nothing answered at tcp://127.0.0.1:{port}." in error and "Traceback" not in error
    assert not (tmp_path / "out").exists()


def test_slurm_without_slurm_says_where_to_run_instead(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    spec = copy_example(tmp_path)
    assert main(["run", str(spec), "--out", str(tmp_path / "out"), "--cluster", "slurm", "--workers", "4"]) == 2
    error = capsys.readouterr().err
    assert "sbatch" in error and "login node" in error and "cluster-script" in error
    assert not (tmp_path / "out").exists()
