"""The folder that runs a study on a SLURM cluster: its files, its study file and data that a run
accepts, its checksums, and a batch script that is valid shell with every value quoted."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from guiapp.core.compute.cluster_folder import prepare_cluster_folder
from guiapp.core.compute.sbatch_script import sbatch_script
from guiapp.core.errors import UserError
from guiapp.core.study.sections import ClusterSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import load_study_data

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "bills"


def example_spec(tmp_path: Path) -> tuple[ExperimentSpec, Path]:
    folder = tmp_path / "bills"
    shutil.copytree(EXAMPLE, folder)
    spec_file = folder / "study.toml"
    return ExperimentSpec.load(spec_file), spec_file


def test_the_folder_holds_a_study_that_runs_on_its_own_data(tmp_path) -> None:
    spec, spec_file = example_spec(tmp_path)
    spec.cluster = ClusterSpec(workers=3, gpus_per_worker=1, queue="gpu", setup=["source ~/textlab/bin/activate"])
    folder = prepare_cluster_folder(spec, tmp_path / "for the cluster", spec_file=spec_file)
    assert sorted(p.name for p in folder.iterdir()) == [
        "README.txt", "SHA256SUMS", "data.parquet", "run-on-cluster.sbatch", "study.toml", "test-data.parquet"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no partial folder left

    copied = ExperimentSpec.load(folder / "study.toml")
    assert copied.data.source == "data.parquet" and copied.data.test_source == "test-data.parquet"
    assert copied.data.sha256 == hashlib.sha256((folder / "data.parquet").read_bytes()).hexdigest()
    assert copied.cluster.system == "slurm" and copied.cluster.workers == 3 and copied.cluster.queue == "gpu"
    assert [m.to_dict() for m in copied.models] == [m.to_dict() for m in spec.models]

    original = load_study_data(spec, spec_file)
    moved = load_study_data(copied, folder / "study.toml")
    assert moved.notes == original.notes  # in particular no "the file has changed" note: the checksum matches
    assert moved.texts == original.texts and moved.rows == original.rows
    assert moved.categories == original.categories and (moved.y == original.y).all()
    assert list(pd.read_parquet(folder / "data.parquet").columns) == ["text", "label"]

    sums = (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert len(sums) == 2
    for line in sums:
        digest, name = line.split("  ")
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest
    if shutil.which("sha256sum"):
        subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=folder, check=True)

    readme = (folder / "README.txt").read_text(encoding="utf-8")
    for words in ("sbatch run-on-cluster.sbatch", "squeue --me", "pip install 'textlab[cluster]'", "scp -r",
                  "Policy topics of bill titles", "3 SLURM worker jobs"):
        assert words in readme


def test_only_the_used_columns_and_every_row_are_kept(tmp_path) -> None:
    table = pd.DataFrame({"notes": ["x"] * 6, "text": [f"text {i}" for i in range(6)],
                          "code": ["a", "b", None, "a", "b", "a"], "party": list("LRLRLR")})
    table.to_csv(tmp_path / "coded.csv", index=False)
    spec = ExperimentSpec.from_dict({
        "data": {"source": "coded.csv", "mapping": {"text_columns": ["text"], "category_column": "code",
                                                   "metadata_columns": ["party"]}},
        "evaluation": {"folds": 2}, "models": [{"representation": "bow", "classifier": "svm"}]})
    folder = prepare_cluster_folder(spec, tmp_path / "out", spec_file=tmp_path / "study.toml")
    written = pd.read_parquet(folder / "data.parquet")
    assert list(written.columns) == ["text", "code", "party"] and len(written) == 6  # uncoded rows too
    assert not (folder / "test-data.parquet").exists()


def test_a_folder_that_holds_something_is_refused(tmp_path) -> None:
    spec, spec_file = example_spec(tmp_path)
    target = tmp_path / "busy"
    target.mkdir()
    (target / "thesis.docx").write_text("mine")
    with pytest.raises(UserError, match="is not empty") as caught:
        prepare_cluster_folder(spec, target, spec_file=spec_file)
    assert "new folder" in caught.value.hint
    assert [p.name for p in target.iterdir()] == ["thesis.docx"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert prepare_cluster_folder(spec, empty, spec_file=spec_file) == empty.absolute()


def test_the_batch_script_is_valid_shell_with_the_directives(tmp_path) -> None:
    cluster = ClusterSpec(system="slurm", workers=4, cores_per_worker=8, gpus_per_worker=1, memory="32GB",
                          walltime="1-12:00:00", queue="gpu", account="lab-42",
                          setup=["module load cuda/12.1", "source ~/text lab/bin/activate", "echo \"it's ok\""],
                          python="/home/me/text lab/bin/python")
    script = sbatch_script("A study", "study.toml", "results", cluster)
    path = tmp_path / "run.sbatch"
    path.write_text(script)
    subprocess.run(["bash", "-n", str(path)], check=True)
    for directive in ("#SBATCH --job-name=textlab-study", "#SBATCH --time=1-12:00:00", "#SBATCH --cpus-per-task=2",
                      "#SBATCH --mem=4G", "#SBATCH --output=textlab-study-%j.log", "#SBATCH --partition=gpu",
                      "#SBATCH --account=lab-42"):
        assert directive in script.splitlines()
    assert script.startswith("#!/bin/bash\n") and "set -euo pipefail" in script
    assert 'cd "${SLURM_SUBMIT_DIR:-.}"' in script
    assert "PY='/home/me/text lab/bin/python'" in script and '"$PY" -m guiapp run study.toml' in script
    for words in ("--workers 4", "--cores-per-worker 8", "--gpus-per-worker 1", "--memory 32GB",
                  "--walltime 1-12:00:00", "--queue gpu", "--account lab-42",
                  "--worker-python '/home/me/text lab/bin/python'",
                  "--worker-setup 'module load cuda/12.1'", "--worker-setup 'source ~/text lab/bin/activate'",
                  "--worker-setup 'echo \"it'\"'\"'s ok\"'"):
        assert words in script
    # bash reads the quoted values back exactly (the command echoed instead of run)
    echoed = script.replace('"$PY" -m guiapp run', 'printf "%s\\n" run').split("set -u\n", 1)[1]
    echoed = echoed.replace("sha256sum --quiet -c SHA256SUMS", "true").replace('"$PY" -c "import guiapp"', "true")
    (tmp_path / "SHA256SUMS").write_text("")
    out = subprocess.run(["bash", "-c", f"PY=x\n{echoed}"], cwd=tmp_path, capture_output=True, text=True, check=True)
    words = out.stdout.splitlines()
    assert [words[i + 1] for i, word in enumerate(words) if word == "--worker-setup"] == cluster.setup
    assert words[words.index("--worker-python") + 1] == "/home/me/text lab/bin/python"


def test_the_plain_command_is_textlab_and_unsafe_directive_values_are_refused() -> None:
    script = sbatch_script("x", "study.toml", "results", ClusterSpec(system="slurm"))
    assert "\ntextlab run study.toml \\\n    --out results \\\n    --cluster slurm" in script
    assert "--partition" not in script and "--account" not in script and "--worker-setup" not in script
    for account in ("o'brien lab", "lab\n#SBATCH --time=99:00:00", "a;rm -rf ~"):
        with pytest.raises(UserError, match="cannot go into a SLURM job script"):
            sbatch_script("x", "study.toml", "results", ClusterSpec(system="slurm", account=account))
    with pytest.raises(UserError, match="walltime"):
        sbatch_script("x", "study.toml", "results", ClusterSpec(system="slurm", walltime="4h"))
