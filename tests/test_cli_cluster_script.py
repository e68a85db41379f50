"""``textlab cluster-script STUDY --out FOLDER`` end to end, with the documented example."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from guiapp.cli.entry import main
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import load_study_data

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "bills"


def copy_example(tmp_path: Path) -> Path:
    folder = tmp_path / "bills"
    shutil.copytree(EXAMPLE, folder)
    return folder / "study.toml"


def test_the_command_writes_a_folder_and_says_what_next(tmp_path, capsys) -> None:
    spec = copy_example(tmp_path)
    out = tmp_path / "bills on the cluster"
    status = main(["cluster-script", str(spec), "--out", str(out), "--workers", "3", "--gpus-per-worker", "1",
                   "--memory", "32GB", "--walltime", "08:00:00", "--queue", "gpu", "--account", "lab1",
                   "--worker-setup", "module load cuda", "--worker-setup", "source ~/textlab/bin/activate"])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    assert f"Wrote {out.absolute()}" in printed.out and "sbatch run-on-cluster.sbatch" in printed.out
    assert "3 SLURM worker jobs (4 cores, 32GB, 1 GPU each, up to 08:00:00)" in printed.out
    assert {p.name for p in out.iterdir()} == {"README.txt", "SHA256SUMS", "data.parquet", "test-data.parquet",
                                              "run-on-cluster.sbatch", "study.toml"}
    study = ExperimentSpec.load(out / "study.toml")
    assert study.cluster.setup == ["module load cuda", "source ~/textlab/bin/activate"]
    assert study.cluster.queue == "gpu" and study.cluster.account == "lab1" and study.cluster.system == "slurm"
    data = load_study_data(study, out / "study.toml")
    # the example's bills share a few titles between its training and test files: that note only
    assert len(data.texts) == 800 and [note for note in data.notes if "also training texts" not in note] == []
    script = (out / "run-on-cluster.sbatch").read_text(encoding="utf-8")
    assert "#SBATCH --partition=gpu" in script and "#SBATCH --time=08:00:00" in script
    assert "--worker-setup 'module load cuda'" in script
    subprocess.run(["bash", "-n", str(out / "run-on-cluster.sbatch")], check=True)
    assert ExperimentSpec.load(spec).cluster.local  # the study file itself is not changed

    # a second time into the same folder: refused, nothing replaced
    assert main(["cluster-script", str(spec), "--out", str(out)]) == 2
    assert "is not empty" in capsys.readouterr().err


def test_a_bad_walltime_gives_a_message_and_exit_status_2(tmp_path, capsys) -> None:
    spec = copy_example(tmp_path)
    out = tmp_path / "out"
    assert main(["cluster-script", str(spec), "--out", str(out), "--walltime", "4 hours"]) == 2
    err = capsys.readouterr().err
    assert "walltime" in err and "04:00:00" in err and "Traceback" not in err
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["bills"]


def test_a_missing_study_file_gives_exit_status_2(tmp_path, capsys) -> None:
    assert main(["cluster-script", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "out")]) == 2
    assert "does not exist" in capsys.readouterr().err
