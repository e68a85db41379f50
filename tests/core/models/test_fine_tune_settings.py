"""A study's Transformer options and one point of its grid make the settings of one training run."""

from __future__ import annotations

from guiapp.core.models.transformers.options import full_options
from guiapp.core.models.transformers.training.settings import FineTuneSettings


def test_a_runs_settings_come_from_the_options_the_grid_point_and_the_seed() -> None:
    options = full_options({"max_length": 64, "batch_size": 4, "dropout": 0.2, "mixed_precision": False})
    settings = FineTuneSettings.from_options(options, {"learning_rate": 3e-4, "epochs": 2}, seed=7)
    assert (settings.learning_rate, settings.epochs, settings.seed) == (3e-4, 2, 7)
    assert (settings.batch_size, settings.max_length, settings.dropout, settings.mixed_precision) == (4, 64, 0.2, False)
    assert settings.truncation == options["truncation"] and settings.device == "auto"
    settings.check()  # a run's settings are usable as they are
