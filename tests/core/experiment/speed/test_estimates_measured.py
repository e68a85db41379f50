"""Estimates from a short measurement on this computer, cached per machine."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from guiapp.core.experiment.speed import speed_cache
from guiapp.core.experiment.speed.estimates import MODEL_SECONDS, describe_duration, estimate_seconds
from guiapp.core.experiment.speed.speed_cache import machine_identity, read_speed, speeds_file, write_speeds
from guiapp.core.experiment.speed.speed_probe import measure_speeds, missing_keys, speed_keys
from guiapp.core.study.sections import ModelSpec


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def embeddings_lr() -> ModelSpec:
    return ModelSpec(representation="sentence_embeddings", classifier="logistic_regression")


def test_the_cache_keeps_values_per_machine_and_forgets_stale_ones():
    me = machine_identity()
    assert read_speed("embed:x", me) is None
    write_speeds({"embed:x": 0.2}, me)
    assert read_speed("embed:x", me) == 0.2
    assert read_speed("embed:x", machine_identity(gpu="NVIDIA H100")) is None  # another machine
    old = time.time() - (speed_cache.MAX_AGE_DAYS + 1) * 86400
    write_speeds({"fit:svm:bow": 2.0}, me, now=old)
    assert read_speed("fit:svm:bow", me) is None  # measured too long ago: measure again
    speeds_file().write_text("{not json", encoding="utf-8")
    assert read_speed("embed:x", me) is None


def test_a_measured_embedding_speed_replaces_the_constant():
    model = embeddings_lr()
    rough = estimate_seconds(model, 862, 215, 3, 5)
    write_speeds({"embed:all-MiniLM-L6-v2": 0.25}, machine_identity())  # a busy computer: 4 texts/s
    measured = estimate_seconds(model, 862, 215, 3, 5)
    assert measured >= 1077 * 0.25 > rough
    assert describe_duration(measured) == "about 5 minutes"


def test_a_measured_fit_factor_scales_the_classifier_time():
    model = ModelSpec(representation="bow", classifier="svm")
    before = estimate_seconds(model, 5000, 1000, 3, 5)
    write_speeds({"fit:svm:bow": 3.0}, machine_identity())
    after = estimate_seconds(model, 5000, 1000, 3, 5)
    assert after - MODEL_SECONDS == pytest.approx(3.0 * (before - MODEL_SECONDS))  # all but the fixed part


def test_keys_name_the_model_and_the_device():
    assert speed_keys(embeddings_lr()) == ["fit:logistic_regression:sentence_embeddings", "embed:all-MiniLM-L6-v2"]
    transformer = ModelSpec(representation="transformer", classifier="fine_tuned",
                            representation_options={"model": "all-MiniLM-L6-v2"})
    assert speed_keys(transformer, on_gpu=True) == ["finetune:all-MiniLM-L6-v2:gpu"]


def test_measuring_fits_writes_the_cache_once():
    rng = np.random.default_rng(0)
    words = [f"word{i}" for i in range(400)]
    texts = [" ".join(rng.choice(words, 12)) for _ in range(300)]
    y = rng.integers(0, 3, 300)
    models = [ModelSpec(representation="bow", classifier="logistic_regression"),
              ModelSpec(representation="bow", classifier="naive_bayes")]
    events = []
    measured = measure_speeds(texts, y, models, events.append)
    assert set(measured) == {"fit:logistic_regression:bow", "fit:naive_bayes:bow"}
    assert all(value > 0 for value in measured.values())
    assert missing_keys(models) == []
    assert measure_speeds(texts, y, models) == {}  # already measured on this machine
    stored = json.loads(speeds_file().read_text(encoding="utf-8"))
    assert machine_identity() in stored["machines"]
    assert any("Measuring the speed" in getattr(e, "message", "") for e in events)


@pytest.mark.slow
def test_measuring_the_embedding_takes_seconds_and_gives_seconds_per_text():
    texts = [f"Short text number {i} about taxes and schools." for i in range(100)]
    y = np.arange(100) % 2
    measured = measure_speeds(texts, y, [embeddings_lr()])
    per_text = measured["embed:all-MiniLM-L6-v2"]
    assert 0 < per_text < 1.0
