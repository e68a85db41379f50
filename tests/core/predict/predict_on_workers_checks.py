"""Predicting on Dask workers gives what predicting on this computer gives: a real
``distributed.LocalCluster`` (two worker processes over TCP) and a small saved bag-of-words model;
a worker that exits after its first chunk has that chunk predicted again; chunks done before a
Cancel are not predicted again; ``textlab predict --scheduler`` writes the same file as without it.

Run by ``test_predict_on_dask.py`` in a process of its own: a Dask client leaves event-loop threads
and objects behind that should not share a process with the Qt tests."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.experiment.families.conventional_files import save_conventional
from guiapp.core.experiment.protocol import fitting
from guiapp.core.features.registry import REPRESENTATIONS
from guiapp.core.predict import predict_on_workers as on_workers
from guiapp.core.predict.new_texts import open_models, predict_new_texts
from tests.core.synthetic_texts import coded_texts

from tests.core.local_cluster import local_client  # noqa: F401 — the fixture `client`

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")



@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    coded = coded_texts(240, seed=1)
    representation = REPRESENTATIONS["bow"]()
    X = representation.fit(coded["text"].tolist()).transform(coded["text"].tolist())
    categories = sorted(coded["label"].unique())
    y = np.array([categories.index(label) for label in coded["label"]])
    classifier = fitting.fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, X, y)
    folder = tmp_path_factory.mktemp("model") / "Logistic regression"
    save_conventional(folder, representation, classifier, categories, {})
    return [("Logistic regression", folder)]


@pytest.fixture(scope="module")
def new_texts():
    texts = coded_texts(300, seed=7)["text"].tolist()
    texts[5] = ""  # an empty text gets no prediction, on the workers as here
    return texts


def same(found, expected) -> None:
    assert found.models == expected.models
    for mine, theirs in zip(found.predictions, expected.predictions, strict=True):
        assert mine.categories == theirs.categories
        np.testing.assert_array_equal(mine.predicted, theirs.predicted)
        np.testing.assert_array_equal(mine.probabilities, theirs.probabilities)


def here(saved_model, texts):
    return predict_new_texts(open_models(saved_model), texts)


def test_the_workers_answer_as_this_computer_does(client, saved_model, new_texts, tmp_path) -> None:
    seen = []
    found = on_workers.predict_on_workers(client, saved_model, new_texts, tmp_path / "out.csv.parts", chunk_size=40,
                                          on_event=seen.append)
    same(found, here(saved_model, new_texts))
    assert found.predictions[0].n_empty == 1
    assert sorted(p.name for p in (tmp_path / "out.csv.parts").glob("chunk-*.npz")) == [
        f"chunk-{i:06d}.npz" for i in range(8)]
    progress = [e for e in seen if isinstance(e, Progress)]
    assert progress[-1].fraction == 1.0 and "300 of 300 texts" in progress[-1].message


class ExitAfterFirstChunk(distributed.WorkerPlugin):
    """The first worker to finish a chunk exits at once, its answer unsent (the flag file makes it one)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish == "memory" and "textlab-predict-chunk" in str(key):
            try:
                os.close(os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os._exit(1)


def test_a_worker_that_dies_has_its_chunk_predicted_again(client, saved_model, new_texts, tmp_path) -> None:
    flag = tmp_path / "exited"
    client.register_plugin(ExitAfterFirstChunk(str(flag)), name="exit-after-first-chunk")
    try:
        found = on_workers.predict_on_workers(client, saved_model, new_texts, tmp_path / "parts", chunk_size=30)
    finally:
        client.unregister_worker_plugin("exit-after-first-chunk")
    assert flag.exists()  # a worker did exit mid-run
    same(found, here(saved_model, new_texts))


def test_chunks_done_before_cancel_are_not_predicted_again(client, saved_model, new_texts, tmp_path) -> None:
    parts = tmp_path / "parts"

    def cancel_after_two(event) -> None:
        if isinstance(event, Progress) and len(list(parts.glob("chunk-*.npz"))) >= 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        on_workers.predict_on_workers(client, saved_model, new_texts, parts, chunk_size=20, on_event=cancel_after_two)
    kept = {path.name: path.stat().st_mtime_ns for path in parts.glob("chunk-*.npz")}
    assert len(kept) >= 2  # (all 15 when the workers were quicker than the progress reports)
    logs = []
    found = on_workers.predict_on_workers(client, saved_model, new_texts, parts, chunk_size=20, on_event=logs.append)
    assert {name: parts.joinpath(name).stat().st_mtime_ns for name in kept} == kept  # not written again
    assert any(f"{len(kept)} of 15 chunks were predicted before" in getattr(e, "message", "") for e in logs)
    same(found, here(saved_model, new_texts))
    # other texts: the old chunks are not used
    other = new_texts[::-1]
    same(on_workers.predict_on_workers(client, saved_model, other, parts, chunk_size=20), here(saved_model, other))


def test_textlab_predict_with_a_scheduler_writes_what_one_computer_writes(client, tmp_path, capsys) -> None:
    from guiapp.cli.entry import main
    from tests.test_cli_predict import FAST_MODELS
    from tests.test_cli_run import copy_example

    spec = copy_example(tmp_path)
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text[: text.index("[[models]]")] + FAST_MODELS, encoding="utf-8")
    out = tmp_path / "results"
    assert main(["run", str(spec), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    new = pd.read_csv(spec.parent / "test.csv")[["text"]].assign(batch="2024")
    new.loc[3, "text"] = None
    new.to_csv(tmp_path / "new.csv", index=False)
    models = ["--model", "svm · basic bow", "--model", "Naive Bayes · Basic BOW"]
    assert main(["predict", str(out), str(tmp_path / "new.csv"), "--out", str(tmp_path / "here.csv"), *models]) == 0
    address = client.scheduler.address
    assert main(["predict", str(out), str(tmp_path / "new.csv"), "--out", str(tmp_path / "there.csv"), *models,
                 "--scheduler", address]) == 0
    assert (tmp_path / "there.csv").read_bytes() == (tmp_path / "here.csv").read_bytes()
    assert not (tmp_path / "there.csv.parts").exists()
    assert main(["predict", str(out), str(tmp_path / "new.csv"), "--out", str(tmp_path / "words.csv"),
                 "--scheduler", address, "--top-words"]) == 2
    assert main(["predict", str(out), str(tmp_path / "new.csv"), "--out", str(tmp_path / "nowhere.csv"),
                 "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "Nothing answered at tcp://127.0.0.1:1" in capsys.readouterr().err
    assert not (tmp_path / "nowhere.csv").exists()
