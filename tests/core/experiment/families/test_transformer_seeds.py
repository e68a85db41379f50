"""A Transformer fine-tuned with several seeds is one model: probabilities averaged, the spread
across seeds reported, saved as one folder and opened for prediction with the same answers; the
setting choice is recorded with its noise. A tiny randomly initialised BERT keeps this fast."""

from __future__ import annotations

import numpy as np

from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer


def test_seeds_are_averaged_reported_saved_and_reopened(tmp_path) -> None:
    table = coded_texts(90, seed=2)
    words = {word for text in table["text"] for word in str(text).lower().split()}
    model_folder = save_tiny_bert(tmp_path / "tiny", tiny_tokenizer(tmp_path / "vocab", words))
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=100, transformer_seeds=2, combine=False),
        models=[ModelSpec("transformer", "fine_tune",
                          representation_options={"model": str(model_folder), "max_length": 32, "batch_size": 8},
                          grid={"learning_rate": [1e-3, 3e-3], "epochs": [1]})],
        seed=4,
    )
    result = run_experiment(spec, table=table, n_jobs=1, artefacts_dir=tmp_path / "models")
    model = result.models[0]
    assert model.ok, model.message
    assert model.spec["seeds"] == 2 and len(model.spec["seed_scores"]) == 2
    assert any("2 seeds" in note for note in model.spec["notes"])
    choice = model.spec["setting_choice"]
    assert choice["rule"] == "cheapest within noise" and choice["chosen"] in choice["within_noise"]
    assert len(choice["interval"]) == 2 and choice["standard_error"] > 0
    folder = tmp_path / "models" / model.artefact.split("/")[-1]
    assert sorted(p.name for p in folder.iterdir()) == ["combined.json", "seed-1", "seed-2"]
    opened = open_trained_model(model.artefact, model.name)
    decisions, probabilities = opened.answer(result.test_texts)
    assert np.allclose(probabilities, model.probabilities, atol=1e-5)
    assert decisions.tolist() == model.predictions
