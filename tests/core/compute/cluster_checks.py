"""Running pieces of work on a Dask cluster gives what the local worker pool gives: a real
``distributed.LocalCluster`` (two worker processes over TCP); a worker killed mid-run has its pieces
re-run elsewhere with the same results; Cancel ends every future of the call within 2 s. First for
single calls of the executor, then for whole studies: conventional models with combined models, a
worker killed mid-study, Cancel of a study, and a fine-tuned (tiny, random) Transformer whose
training runs and final fits run on the workers.

Run by ``test_executors.py`` in a process of its own: a Dask client leaves event-loop threads and
objects behind that should not share a process with the Qt tests."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from guiapp.core.compute.executors import DaskExecutor, LocalExecutor
from guiapp.core.events import Cancelled, Progress
from guiapp.core.experiment.protocol import fitting
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

from tests.core.local_cluster import local_client  # noqa: F401 — the fixture `client`

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")



def slow_double(value: int) -> int:
    time.sleep(0.3)
    return 2 * value


def test_grid_search_pieces_give_the_same_scores_on_dask_as_on_the_local_pool(client) -> None:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 6)), rng.integers(0, 3, 120)
    pieces = [("logistic_regression", [{"C": c}], 5, 1, X[:80], y[:80], X[80:], y[80:]) for c in (0.1, 1.0, 10.0)]
    local = LocalExecutor(1).map_calls(lambda done: None, fitting.task_result, pieces)
    remote = DaskExecutor(client).map_calls(lambda done: None, fitting.task_result, pieces)
    assert [[score for score, _ in outcome] for outcome in remote] == [[score for score, _ in outcome] for outcome in local]


def test_a_worker_killed_mid_run_has_its_pieces_run_again(client) -> None:
    executor = DaskExecutor(client)
    pids = list(client.run(os.getpid).values())
    killed = []

    def tick(done: int) -> None:
        if not killed and client.processing() and any(client.processing().values()):
            os.kill(pids[0], signal.SIGKILL)  # the nanny starts a new worker; Dask re-runs its pieces
            killed.append(pids[0])

    values = executor.map_calls(tick, slow_double, list(range(12)))
    assert killed and values == [2 * value for value in range(12)]


def test_cancel_ends_every_future_within_two_seconds(client) -> None:
    executor = DaskExecutor(client)

    def tick(done: int) -> None:
        raise Cancelled()

    started = time.monotonic()
    with pytest.raises(Cancelled):
        executor.map_calls(tick, slow_double, list(range(40)))
    deadline = time.monotonic() + 2.0
    while any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(client.processing().values())
    assert time.monotonic() - started < 2.0 + 1.0


# --------------------------------------------------------------------------- whole studies

def conventional_study() -> tuple[ExperimentSpec, object]:
    table = coded_texts(240, seed=3)
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=200, combine=True, oversampling="random"),
        models=[
            ModelSpec("bow", "svm", grid={"kernel": ["linear"], "C": [0.1, 1.0, 10.0]}),
            ModelSpec("bow", "xgboost", grid={"n_estimators": [20, 40], "max_depth": [2, 4], "learning_rate": [0.3]}),
            ModelSpec("bow", "logistic_regression", grid={"C": [0.1, 1.0]}),
        ],
        seed=7,
    )
    return spec, table


def same_results(local, remote, exact: bool = True) -> None:
    assert [model.name for model in remote.models] == [model.name for model in local.models]
    for mine, theirs in zip(local.models, remote.models, strict=True):
        assert theirs.ok, theirs.message
        assert theirs.chosen_params == mine.chosen_params, mine.name
        assert theirs.predictions == mine.predictions, mine.name
        if exact:
            assert [point.fold_scores for point in theirs.grid] == [point.fold_scores for point in mine.grid], mine.name
            assert theirs.probabilities == mine.probabilities, mine.name
            assert theirs.test.macro_f1 == mine.test.macro_f1
        else:
            assert np.allclose(theirs.probabilities, mine.probabilities, atol=1e-4), mine.name


@pytest.fixture(scope="module")
def local_study(tmp_path_factory):
    spec, table = conventional_study()
    result = run_experiment(spec, table=table, n_jobs=2, executor=LocalExecutor(2),
                            artefacts_dir=tmp_path_factory.mktemp("local"))
    return spec, table, result


def test_a_study_gives_the_same_settings_scores_and_predictions_on_dask(client, local_study, tmp_path) -> None:
    spec, table, local = local_study
    remote = run_experiment(spec, table=table, n_jobs=2, executor=DaskExecutor(client), artefacts_dir=tmp_path)
    same_results(local, remote)
    assert {"Combined: weighted vote", "Combined: stacking"} <= {model.name for model in remote.models}
    assert remote.environment["ran_on"].startswith("a Dask cluster (2 workers")
    svm = next(model for model in remote.models if model.classifier == "svm")
    answers, _ = open_trained_model(svm.artefact, svm.name).answer(remote.test_texts)
    assert answers.tolist() == svm.predictions  # the final model fitted on a worker was saved here


def test_a_worker_killed_mid_study_leaves_the_results_unchanged(client, local_study, tmp_path) -> None:
    spec, table, local = local_study
    killed: list[int] = []

    def on_event(event) -> None:
        if isinstance(event, Progress) and not killed and any(client.processing().values()):
            pid = next(iter(client.run(os.getpid).values()))
            os.kill(pid, signal.SIGKILL)  # the nanny starts a new worker; Dask re-runs the lost pieces
            killed.append(pid)

    remote = run_experiment(spec, on_event, table=table, n_jobs=2, executor=DaskExecutor(client), artefacts_dir=tmp_path)
    assert killed
    same_results(local, remote)


def test_cancelling_a_study_ends_all_its_futures_within_two_seconds(client, tmp_path) -> None:
    spec, table = conventional_study()
    spec.models = [ModelSpec("bow", "svm", grid={"kernel": ["rbf"], "C": [0.1, 1, 10, 100], "gamma": [0.01, 0.1, 1]})]
    asked: list[float] = []

    def on_event(event) -> None:
        if isinstance(event, Progress) and any(client.processing().values()):
            asked.append(time.monotonic())
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_experiment(spec, on_event, table=table, n_jobs=2, executor=DaskExecutor(client), artefacts_dir=tmp_path)
    assert asked
    while any(client.processing().values()) and time.monotonic() < asked[0] + 2.0:
        time.sleep(0.05)
    assert not any(client.processing().values())
    assert time.monotonic() - asked[0] < 2.0


def test_a_transformer_fine_tunes_on_the_workers_as_it_does_here(client, tmp_path) -> None:
    table = coded_texts(90, seed=2)
    words = {word for text in table["text"] for word in str(text).lower().split()}
    model_folder = save_tiny_bert(tmp_path / "tiny", tiny_tokenizer(tmp_path / "vocab", words))
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=2, bootstrap_samples=100, transformer_seeds=2, combine=False,
                                  transformer_tuning="cross-validation"),
        models=[ModelSpec("transformer", "fine_tune",
                          representation_options={"model": str(model_folder), "max_length": 32, "batch_size": 8},
                          grid={"learning_rate": [1e-3, 3e-3], "epochs": [1]})],
        seed=4,
    )
    local = run_experiment(spec, table=table, n_jobs=1, executor=LocalExecutor(1), artefacts_dir=tmp_path / "here")
    remote = run_experiment(spec, table=table, n_jobs=1, executor=DaskExecutor(client), artefacts_dir=tmp_path / "there")
    same_results(local, remote, exact=False)  # torch may sum in another order with other thread counts
    model = remote.models[0]
    assert model.spec["seeds"] == 2 and model.n_features == local.models[0].n_features
    assert model.spec["notes"][-1] == local.models[0].spec["notes"][-1]  # the note on cut texts
    folder = tmp_path / "there" / model.artefact.split("/")[-1]
    assert sorted(path.name for path in folder.iterdir()) == ["combined.json", "seed-1", "seed-2"]
    decisions, probabilities = open_trained_model(model.artefact, model.name).answer(remote.test_texts)
    assert decisions.tolist() == model.predictions
    assert np.allclose(probabilities, model.probabilities, atol=1e-5)


def test_the_slurm_worker_job_script_asks_for_what_the_study_says() -> None:
    from guiapp.core.compute.slurm_jobs import worker_job_script
    from guiapp.core.study.sections import ClusterSpec

    cluster = ClusterSpec(system="slurm", workers=3, cores_per_worker=8, gpus_per_worker=2, memory="32GB",
                          walltime="1-12:00:00", queue="gpu", account="lab-42",
                          setup=["module load cuda/12.4", "source ~/textlab/bin/activate"], python="/opt/tl/bin/python")
    script = worker_job_script(cluster)
    lines = script.splitlines()
    assert lines[0].startswith("#!")
    for directive in ("#SBATCH -J textlab-worker", "#SBATCH -p gpu", "#SBATCH -A lab-42", "#SBATCH --cpus-per-task=8",
                      "#SBATCH --gres=gpu:2", "#SBATCH -t 1-12:00:00"):
        assert directive in lines, directive
    assert any(line.startswith("#SBATCH --mem=") for line in lines)
    body = script[script.index("module load cuda/12.4"):]
    assert body.index("module load cuda/12.4") < body.index("source ~/textlab/bin/activate") < body.index("/opt/tl/bin/python")
    assert "--nthreads 8" in script and "--resources fine_tuning=2" in script
