"""Choosing where a study runs, without a cluster: the study file's [cluster] section, the command
line's options over it, a plain message for a wrong or silent scheduler address (found out before
Dask is even imported), SLURM refused in words where its commands are missing, and the SLURM
workers' arguments as plain data."""

from __future__ import annotations

import argparse
import socket
import sys

import pytest

from guiapp.cli.cluster_options import add_cluster_options, apply_cluster_options
from guiapp.core.compute.executors import LocalExecutor
from guiapp.core.compute.slurm_jobs import FINE_TUNING_RESOURCE, check_slurm_here, slurm_arguments
from guiapp.core.compute.where import check_scheduler_address, open_executor
from guiapp.core.errors import UserError
from guiapp.core.study.sections import ClusterSpec, SpecError
from guiapp.core.study.spec import ExperimentSpec


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_study_runs_here_unless_its_cluster_section_says_otherwise() -> None:
    spec = ExperimentSpec.from_toml('[data]\nsource = "a.csv"\n')
    assert spec.cluster.local and spec.cluster.describe() == "this computer"
    assert "cluster" not in spec.to_dict()  # old study files stay as they were
    with open_executor(spec.cluster, 3) as executor:
        assert isinstance(executor, LocalExecutor) and executor.n_jobs == 3 and not executor.remote


def test_the_cluster_section_round_trips_and_is_described_in_words() -> None:
    text = '[data]\nsource = "a.csv"\n[cluster]\nsystem = "slurm"\nworkers = 8\ngpus_per_worker = 1\nsetup = ["module load cuda"]\n'
    spec = ExperimentSpec.from_toml(text)
    assert spec.cluster.describe() == "8 SLURM worker jobs (4 cores, 16GB, 1 GPU each, up to 04:00:00)"
    assert ExperimentSpec.from_toml(spec.to_toml()).cluster == spec.cluster


@pytest.mark.parametrize(("section", "words"), [
    ('scheduler = "tcp://a:1"\nsystem = "slurm"', "both a scheduler address and a cluster system"),
    ('scheduler = "login1:8786"', "is not an address"),
    ('walltime = "4 hours"', 'written like "04:00:00"'),
    ('memory = "lots"', 'written like "16GB"'),
    ('system = "kubernetes"', 'one of: "", "slurm"'),
])
def test_a_wrong_cluster_section_says_what_to_write(section, words) -> None:
    with pytest.raises(SpecError) as raised:
        ExperimentSpec.from_toml(f'[data]\nsource = "a.csv"\n[cluster]\n{section}\n')
    assert words in raised.value.message + raised.value.hint


def test_command_line_options_replace_the_study_files_choice() -> None:
    parser = argparse.ArgumentParser()
    add_cluster_options(parser)
    spec = ExperimentSpec.from_toml('[data]\nsource = "a.csv"\n[cluster]\nscheduler = "tcp://old:8786"\nworkers = 3\n')
    args = parser.parse_args(["--cluster", "slurm", "--gpus-per-worker", "1", "--walltime", "02:00:00",
                              "--worker-setup", "module load cuda", "--worker-setup", "source env/bin/activate"])
    cluster = apply_cluster_options(spec, args)
    assert (cluster.system, cluster.scheduler, cluster.workers, cluster.gpus_per_worker) == ("slurm", "", 3, 1)
    assert cluster.walltime == "02:00:00" and cluster.setup == ["module load cuda", "source env/bin/activate"]
    with pytest.raises(SpecError, match="walltime"):
        apply_cluster_options(spec, parser.parse_args(["--walltime", "soon"]))


def test_a_scheduler_that_does_not_answer_gets_a_message_before_dask_is_imported() -> None:
    already = "distributed" in sys.modules
    address = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(UserError) as raised:
        with open_executor(ClusterSpec(scheduler=address), 2):
            pass
    assert raised.value.message == f"Nothing answered at {address}."
    assert "dask scheduler" in raised.value.hint
    assert already or "distributed" not in sys.modules
    with pytest.raises(UserError, match="no valid port"):
        check_scheduler_address("tcp://host:port")
    with pytest.raises(UserError, match="not a Dask scheduler address"):
        check_scheduler_address("http://host:8786")


def test_slurm_is_refused_in_words_where_its_commands_are_missing(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(UserError) as raised:
        check_slurm_here()
    assert "sbatch" in raised.value.message and "login node" in raised.value.hint


def test_slurm_workers_get_the_studys_resources_as_plain_arguments() -> None:
    arguments = slurm_arguments(ClusterSpec(system="slurm", cores_per_worker=8, gpus_per_worker=2, memory="32 GB",
                                            walltime="12:00:00", queue="gpu", account="lab", setup=["module load cuda"]))
    assert arguments["cores"] == 8 and arguments["processes"] == 1 and arguments["memory"] == "32GB"
    assert arguments["job_extra_directives"] == ["--gres=gpu:2"]
    assert arguments["worker_extra_args"] == ["--resources", f"{FINE_TUNING_RESOURCE}=2"]
    assert (arguments["queue"], arguments["account"], arguments["walltime"]) == ("gpu", "lab", "12:00:00")
    assert arguments["job_script_prologue"] == ["module load cuda"] and arguments["python"] == sys.executable
    without_gpus = slurm_arguments(ClusterSpec(system="slurm"))
    assert without_gpus["job_extra_directives"] == [] and "queue" not in without_gpus
    assert without_gpus["worker_extra_args"] == ["--resources", f"{FINE_TUNING_RESOURCE}=1"]
