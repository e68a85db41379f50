"""Rerunning a study from its replication package: a package written in one process and replicated
in a fresh one gives the same scores (bag-of-words models and a tiny BERT fine-tuned on the CPU,
seeded — the bundled Transformer's code path; a real bundled model takes minutes), a changed data
file or model file is refused by its hash before anything is opened, a package without the texts
asks for them and accepts the right file, and the verdict's words for made-up numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import UserError
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.replication import replicate as replicate_module
from guiapp.core.replication.manifest import MANIFEST
from guiapp.core.replication.replicate import replicate
from guiapp.core.replication.verdict import (
    DIFFERENT,
    IDENTICAL,
    WITHIN_SPREAD,
    Spread,
    device_difference,
    library_differences,
    likely_reasons,
    model_verdict,
    overall_verdict,
)
from tests.core.replication.rerun_packages import (
    coded_table,
    copy_package,
    model_file,
    rehash,
    run_project,
    write,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def studied(tmp_path_factory):
    """One study run here (two bag-of-words models and a tiny BERT), and its package."""
    folder = tmp_path_factory.mktemp("study")
    project = run_project(folder, transformer=True)
    return project, write(project, folder / "package")


@pytest.fixture(scope="module")
def package(studied) -> Path:
    return studied[1]


def test_a_package_replicated_in_a_fresh_process_gives_identical_scores(package, tmp_path):
    out = tmp_path / "rerun"
    finished = _fresh_process("replicate", str(package), "--out", str(out), "--jobs", "1", home=tmp_path)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    printed = finished.stdout
    assert "Identical: every model gave the package's numbers again." in printed
    original = ExperimentResult.from_json((package / "results" / "results.json").read_text(encoding="utf-8"))
    rerun = ExperimentResult.from_json((out / "results.json").read_text(encoding="utf-8"))
    assert [m.name for m in rerun.models] == [m.name for m in original.models]
    assert any(m.representation == "transformer" for m in rerun.models)
    for before, after in zip(original.models, rerun.models, strict=True):
        assert after.test.macro_f1 == before.test.macro_f1
        assert after.predictions == before.predictions
        _same_probabilities(before, after, original)
        assert f"{before.name}: identical: the same macro-F1 and the same answer for every test text." in printed
    assert "Traceback" not in finished.stderr


@pytest.mark.slow
def test_the_bundled_transformer_on_the_cpu_replicates_identically_in_a_fresh_process(tmp_path):
    """The real bundled Transformer (all-MiniLM-L6-v2, installed with TextLab), fine-tuned briefly on
    the CPU with the study's seed: the fresh process gives the same probabilities to the last digit."""
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.project.format import Project, model_folders_of
    from guiapp.core.study.sections import ModelSpec
    from tests.core.replication.rerun_packages import study

    spec = study()
    spec.models = [ModelSpec("transformer", "fine_tune", grid={"learning_rate": [3e-4], "epochs": [1]},
                             representation_options={"model": "all-MiniLM-L6-v2", "max_length": 24, "batch_size": 16})]
    result = run_experiment(spec, table=coded_table(), n_jobs=1, artefacts_dir=tmp_path / "models")
    assert result.models[0].ok, result.models[0].message
    package = write(Project(spec=spec, table=coded_table(), result=result, model_folders=model_folders_of(result),
                            source_name="bills.xlsx"), tmp_path / "package")
    finished = _fresh_process("replicate", str(package), "--out", str(tmp_path / "rerun"), "--jobs", "1",
                              home=tmp_path)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "Fine-tuned all-MiniLM-L6-v2: identical: the same macro-F1 and the same answer" in finished.stdout
    rerun = ExperimentResult.from_json((tmp_path / "rerun" / "results.json").read_text(encoding="utf-8"))
    _same_probabilities(result.models[0], rerun.models[0], result)


def _same_probabilities(before, after, original) -> None:
    """To the last digit where the rerun could train with the original's CPU threads (one count
    recorded); where the busy computer changed the count during the original's training, close."""
    from guiapp.core.replication.replicate import _original_threads

    if _original_threads(original) is not None or before.device is None:
        assert after.probabilities == before.probabilities
    else:
        assert np.allclose(after.probabilities, before.probabilities, atol=1e-3)


def _fresh_process(*args: str, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "guiapp", *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, HOME=str(home)),  # the suite's settings (one compute thread, …), a new home
    )


def test_a_changed_data_file_is_refused_by_its_hash(package, tmp_path):
    changed = copy_package(package, tmp_path / "package")
    table = pd.read_parquet(changed / "data" / "table.parquet")
    table.loc[3, "label"] = "energy" if table.loc[3, "label"] != "energy" else "health"
    table.to_parquet(changed / "data" / "table.parquet")
    with pytest.raises(UserError) as refused:
        replicate(changed, tmp_path / "rerun", n_jobs=1)
    assert "data/table.parquet was changed" in refused.value.message
    assert not (tmp_path / "rerun").exists()


def test_a_table_with_other_content_given_with_data_is_refused_naming_both_hashes(studied, tmp_path):
    project, _ = studied
    without = write(project, tmp_path / "package", share_texts=False)
    expected = json.loads((without / MANIFEST).read_text(encoding="utf-8"))["data"]["table"]["sha256"]
    other = coded_table()
    other.loc[0, "text"] = other.loc[0, "text"] + " again"
    other.to_csv(tmp_path / "bills.csv", index=False)
    with pytest.raises(UserError) as refused:
        replicate(without, tmp_path / "rerun", data=tmp_path / "bills.csv", n_jobs=1)
    message = refused.value.message
    assert expected in message and "is not the one the study used" in message
    assert "--data" in refused.value.hint
    assert not (tmp_path / "rerun").exists()


def test_a_package_without_the_texts_asks_for_them_and_the_right_file_replicates(studied, tmp_path):
    project, _ = studied
    without = write(project, tmp_path / "package", share_texts=False)
    assert not (without / "data" / "table.parquet").exists()
    expected = json.loads((without / MANIFEST).read_text(encoding="utf-8"))["data"]["table"]["sha256"]
    with pytest.raises(UserError) as asked:
        replicate(without, tmp_path / "rerun", n_jobs=1)
    said = f"{asked.value.message} {asked.value.hint}"
    assert expected in said and "90 rows" in said and "--data" in said and "bills.xlsx" in said

    coded_table().to_excel(tmp_path / "bills.xlsx", index=False)  # the author's file, obtained by the reviewer
    replication = replicate(without, tmp_path / "rerun", data=tmp_path / "bills.xlsx", n_jobs=1, spread_seeds=0)
    assert replication.overall.kind == IDENTICAL and replication.exit_status == 0
    assert replication.data_from == "from bills.xlsx"
    assert {c.verdict.kind for c in replication.models} == {IDENTICAL}
    assert all(c.answers_changed == 0 and c.answers_compared == 27 for c in replication.models)


def test_a_tampered_model_file_is_refused_before_anything_is_opened(package, tmp_path, monkeypatch):
    tampered = copy_package(package, tmp_path / "package")
    weights = model_file(tampered)
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))

    def opened(*args, **kwargs):
        raise AssertionError("a file of the package was opened before the hashes were checked")

    monkeypatch.setattr(replicate_module, "_original_result", opened)
    monkeypatch.setattr(replicate_module, "_checked_table", opened)
    import skops.io

    monkeypatch.setattr(skops.io, "load", opened)
    with pytest.raises(UserError) as refused:
        replicate(tampered, tmp_path / "rerun", n_jobs=1)
    relative = weights.relative_to(tampered).as_posix()
    assert f"{relative} was changed: its SHA-256 is not the one the package recorded." in refused.value.message
    assert "nothing in it was opened" in refused.value.message


def test_a_rerun_inside_the_package_folder_does_not_count_as_a_change(package, tmp_path):
    inside = copy_package(package, tmp_path / "package")
    for _ in range(2):  # the README's `textlab replicate . --out rerun`, twice
        replication = replicate(inside, inside / "rerun", n_jobs=1, spread_seeds=0)
        assert replication.overall.kind == IDENTICAL


def test_numbers_that_moved_are_measured_against_other_seeds(package, tmp_path):
    moved = copy_package(package, tmp_path / "package")
    results = json.loads((moved / "results" / "results.json").read_text(encoding="utf-8"))
    first = results["models"][0]
    first["test"]["macro_f1"] += 0.25  # as if the original had scored far higher
    (moved / "results" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    rehash(moved, "results/results.json")
    replication = replicate(moved, tmp_path / "rerun", n_jobs=1, spread_seeds=1)
    assert replication.exit_status == 1 and replication.overall.kind == DIFFERENT
    changed = replication.models[0]
    assert changed.name == first["name"] and changed.spread is not None and changed.spread.seeds == 1
    assert abs(changed.difference + 0.25) < 1e-9
    assert changed.verdict.kind == DIFFERENT and "−0.250" not in changed.verdict.sentence
    assert "-0.250" in changed.verdict.sentence and "measured with 1 other seed" in changed.verdict.sentence
    assert all(c.spread is None and c.verdict.kind == IDENTICAL for c in replication.models[1:])


# -- the verdict's words, with made-up numbers -------------------------------------------------------
def test_identical_needs_the_same_score_and_the_same_answers():
    assert model_verdict(0.8, 0.8, 0).kind == IDENTICAL
    assert model_verdict(0.8, 0.8, 3, Spread(2, 0.0)).kind == DIFFERENT


def test_a_move_within_the_spread_of_other_seeds():
    verdict = model_verdict(0.812, 0.806, 4, Spread(2, 0.011), ["other library versions (torch 2.2 in the package, 2.3 here)"])
    assert verdict.kind == WITHIN_SPREAD and verdict.agrees
    assert verdict.sentence.startswith("within the run-to-run spread (±0.011 measured with 2 other seeds)")
    assert "-0.006" in verdict.sentence and "4 test texts got another answer" in verdict.sentence


def test_a_move_beyond_the_spread_names_the_libraries_that_differ():
    reasons = likely_reasons({"scikit-learn": "1.4.2", "numpy": "1.26.4", "requests": "2.31.0"},
                             {"scikit_learn": "1.5.0", "NumPy": "1.26.4", "requests": "2.32.0"})
    verdict = model_verdict(0.80, 0.74, 12, Spread(2, 0.01), reasons)
    assert verdict.kind == DIFFERENT and not verdict.agrees
    assert "more than the run-to-run spread (±0.010 measured with 2 other seeds)" in verdict.sentence
    assert ("likely reason: other library versions (scikit-learn 1.4.2 in the package, 1.5.0 here; "
            "requests 2.31.0 in the package, 2.32.0 here)") in verdict.sentence
    assert "numpy" not in verdict.sentence.lower()


def test_other_cpu_threads_are_named_and_the_rerun_is_held_to_the_original_threads():
    from guiapp.core.experiment.results.experiment_result import ModelResult
    from guiapp.core.replication.replicate import threads_used
    from guiapp.core.replication.verdict import thread_difference

    def fine_tuned(name: str, notes: list[str]) -> ModelResult:
        return ModelResult("Fine-tuned x", "transformer", "fine_tune",
                           {"device": {"kind": "cpu", "name": name}, "notes": notes})

    assert threads_used(fine_tuned("CPU, 8 threads", [])) == 8
    busy = "Other programs kept this computer's cores busy during training: TextLab trained with 3 threads on 8 cores"
    assert threads_used(fine_tuned("CPU, 8 threads", [busy + " (fewer while other programs kept cores busy)."])) == 3
    varied = busy.replace("3 threads", "2 to 8 threads")
    assert threads_used(fine_tuned("CPU, 8 threads", [varied])) is None
    assert thread_difference(3, 8) == ("another number of CPU threads: the original trained with 3, this rerun with "
                                       "8 (sums over many numbers then differ in their last digits)")
    assert thread_difference(8, 8) == "" and thread_difference(None, 8) == ""


def test_other_reasons_device_and_data_and_none_found():
    assert device_difference("cuda", "cpu") == "another device: the original trained on a GPU, this rerun on the CPU"
    assert device_difference("cpu", "cpu") == "" and device_difference("", "cpu") == ""
    reasons = likely_reasons({}, {}, original_device="cuda", this_device="cpu", data_same=False)
    assert reasons == ["the data are not the same by hash",
                       "another device: the original trained on a GPU, this rerun on the CPU"]
    unexplained = model_verdict(0.8, 0.7, 5, None, [])
    assert "the run-to-run spread was not measured" in unexplained.sentence
    assert "no likely reason was found" in unexplained.sentence


def test_many_differing_libraries_are_named_most_important_first_and_the_rest_counted():
    original = {f"lib{n}": "1.0" for n in range(10)} | {"torch": "2.2.0"}
    said = library_differences(original, {f"lib{n}": "2.0" for n in range(10)} | {"torch": "2.3.0"})
    assert said.startswith("torch 2.2.0 in the package, 2.3.0 here;") and said.endswith("and 5 other libraries")
    assert library_differences({"numpy": "1.0"}, {}) == "numpy 1.0 in the package, not installed here"


def test_the_overall_verdict():
    same, near = model_verdict(0.8, 0.8, 0), model_verdict(0.8, 0.79, 1, Spread(2, 0.02))
    apart = model_verdict(0.8, 0.5, 9, Spread(2, 0.02))
    assert overall_verdict([same, same]).kind == IDENTICAL
    assert overall_verdict([same, near]).kind == WITHIN_SPREAD
    assert overall_verdict([same, near, apart]).sentence.startswith("Different: 1 of 3 models")
    assert model_verdict(0.8, None, missing="it failed in the rerun: out of memory").sentence == (
        "different: it failed in the rerun: out of memory.")


def test_a_difference_names_the_device_and_the_library_versions_that_differ(package, tmp_path):
    elsewhere = copy_package(package, tmp_path / "package")
    results = json.loads((elsewhere / "results" / "results.json").read_text(encoding="utf-8"))
    transformer = next(model for model in results["models"] if model["representation"] == "transformer")
    transformer["spec"]["device"] = {"kind": "cuda", "name": "NVIDIA H100 80GB HBM3", "bf16": False}
    transformer["test"]["macro_f1"] += 0.2  # as if trained on a GPU, with other numbers
    (elsewhere / "results" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    environment = json.loads((elsewhere / "environment" / "environment.json").read_text(encoding="utf-8"))
    environment["distributions"]["torch"] = "1.13.0"
    (elsewhere / "environment" / "environment.json").write_text(json.dumps(environment), encoding="utf-8")
    rehash(elsewhere, "results/results.json")
    rehash(elsewhere, "environment/environment.json")

    replication = replicate(elsewhere, tmp_path / "rerun", n_jobs=1, spread_seeds=0)
    moved = next(c for c in replication.models if c.name == transformer["name"])
    assert moved.verdict.kind == DIFFERENT
    sentence = moved.verdict.sentence
    assert "another device: the original trained on a GPU, this rerun on the CPU" in sentence
    assert "other library versions (torch 1.13.0 in the package," in sentence
    assert all(c.verdict.kind == IDENTICAL for c in replication.models if c is not moved)


def test_a_zipped_package_is_replicated(studied, tmp_path):
    from guiapp.core.replication.package import write_package

    project, _ = studied
    zipped = write_package(project, tmp_path / "package", as_zip=True, report_card=lambda project, folder: [])
    assert zipped.suffix == ".zip"
    replication = replicate(zipped, tmp_path / "rerun", n_jobs=1, spread_seeds=0)
    assert replication.overall.kind == IDENTICAL and len(replication.models) == 3


def test_the_results_may_not_go_into_a_folder_of_the_package(package, tmp_path):
    inside = copy_package(package, tmp_path / "package")
    for out in (inside / "models", inside):
        with pytest.raises(UserError) as refused:
            replicate(inside, out, n_jobs=1)
        assert "is part of the package" in refused.value.message and "--out rerun" in refused.value.hint


def test_the_spread_is_measured_with_another_seed_on_the_same_test_texts(package):
    from guiapp.core.replication.replicate import _spread_spec
    from guiapp.core.study.spec import ExperimentSpec
    from guiapp.core.study.study_data import load_study_data
    from guiapp.core.tables.reader import read_table

    spec = ExperimentSpec.load(package / "study.toml")
    table = read_table(package / "data" / "table.parquet").frame
    original = ExperimentResult.from_json((package / "results" / "results.json").read_text(encoding="utf-8"))
    measured = original.models[1]
    trial, trial_table = _spread_spec(spec, table, original, [measured.name])
    assert [(m.representation, m.classifier) for m in trial.models] == [(measured.representation, measured.classifier)]
    trial.seed += 1
    data = load_study_data(trial, table=trial_table)
    assert data.split.how == "split column"
    assert sorted(int(data.rows[i]) for i in data.split.test) == sorted(original.test_rows)
    assert spec.data.mapping.split_column is None  # the package's study is left as it was
