"""The Models step's expected times: of each model in the grid, the Transformer and the models that need
few or no coded texts, and of the whole run as the Run step will announce it; and the short measurement
of this computer's speed on the user's texts that makes them follow the machine.

:class:`ModelEstimates` works on the page's state (mixed into ``ModelsPage``).
"""

from __future__ import annotations

import dataclasses

from guiapp.core.errors import UserError
from guiapp.core.experiment.speed.estimates import (
    describe_duration,
    estimate_seconds,
    transformer_tuning_splits,
)
from guiapp.core.experiment.speed.codebook_estimates import codebook_on_gpu
from guiapp.core.experiment.speed.few_shot_estimates import setfit_on_gpu
from guiapp.core.models.transformers.options import expand_transformer_grid
from guiapp.core.study.split_sizes import holdout_sizes, oversampled_size
from guiapp.ui.steps.models.advanced_settings import TRANSFORMER, TRANSFORMER_PAIR
from guiapp.ui.steps.models.codebook_llm_choice import (
    CODEBOOK_PAIRS,
    RUN_STEP_NOTE,
    UNKNOWN_TIME,
    UNKNOWN_TIME_TIP,
)
from guiapp.ui.steps.models.few_shot_choice import FEW_SHOT_PAIRS
from guiapp.ui.steps.models.model_choice import Pair

ESTIMATE_TIP = (
    "A rough guess from the number of coded texts, categories and settings to try; "
    "the Run step shows the real time left once the run starts."
)


class ModelEstimates:
    """How long the ticked models take, shown beside each and in total (mixed into ``ModelsPage``)."""

    def _measure_missing(self) -> None:
        """Measure, in the background, the speeds the estimates still guess (once per set of models)."""
        if not self.measure_in_background or self._measure_slot.is_busy():
            return
        from guiapp.core.experiment.speed.speed_probe import measure_study, missing_keys
        from guiapp.workers import Worker

        spec = self.build_spec()
        try:
            table = self.session.study_table_with_codings()  # the texts coded in TextLab count too
        except UserError:
            table = self.session.frame
        if spec is None or table is None:
            return
        # zero-shot, SetFit and codebook language models keep their built-in figures (the probe fits and
        # fine-tunes the others)
        spec = dataclasses.replace(spec, models=[model for model in spec.models
                                                 if (model.representation, model.classifier) not in FEW_SHOT_PAIRS
                                                 and (model.representation, model.classifier) not in CODEBOOK_PAIRS])
        if not spec.models:
            return
        missing = frozenset(missing_keys(spec.models))
        if not missing or missing == self._measured_for:
            return
        self._measured_for = missing
        worker = Worker(measure_study, spec, table=table, name="measure this computer's speed")
        worker.signals.finished.connect(lambda _found: self._update_estimates())
        worker.signals.failed.connect(lambda _error: None)  # the estimate keeps its built-in figures
        self._measure_slot.start(worker)
        self.estimate_label.setText(self.estimate_label.text() + "  Measuring this computer's speed on a few "
                                    "of your texts to make the estimate more precise…")

    def _sizes(self) -> tuple[int, int, int] | None:
        """(training texts, test texts, categories), or None before the data is checked."""
        report = self._report
        if report is None or self._data is None or not self._data.mapping.category_column or report.n_coded == 0:
            return None
        n_train, n_test = self._split or holdout_sizes(self.settings.evaluation.test_share, report.n_coded)
        return n_train, n_test, len(report.categories)

    def _training_size(self, n_train: int) -> int:
        """Training texts after oversampling (grows the smaller categories)."""
        evaluation = self.settings.evaluation
        report = self._report
        if evaluation.oversampling != "random" or report is None or not report.categories or report.n_coded == 0:
            return n_train
        return oversampled_size([c.count for c in report.categories], report.n_coded, n_train,
                                evaluation.oversampling_ratio)
    def _update_estimates(self) -> None:
        sizes = self._sizes()
        checked = self.checked_models()
        evaluation = self.settings.evaluation
        self.transformer.set_protocol(
            str(self.settings.options_for(TRANSFORMER).get("device", "auto")),
            evaluation.transformer_tuning, evaluation.folds, evaluation.validation_share,
        )
        if sizes is None:
            self.transformer.set_estimate("")
            for pair in self.choice.available():
                self.choice.set_estimate(pair, "")
            for pair in self.few_shot.available():
                self.few_shot.set_estimate(pair, "")
            self.codebook.set_estimate("")
            self.estimate_label.setText(
                f"{len(checked)} model{'s' if len(checked) != 1 else ''} ticked. The expected time "
                "appears once your data is checked on the Data step."
            )
            return
        n_train, n_test, n_categories = sizes
        fitted = self._training_size(n_train)
        folds = self.settings.evaluation.folds
        total = 0.0
        for pair in self.choice.available():
            seconds = estimate_seconds(self._model_spec(pair), fitted, n_test, n_categories, folds)
            self.choice.set_estimate(pair, describe_duration(seconds), f"Expected time: {describe_duration(seconds)}.")
            if pair in checked:
                total += seconds
        seconds = self._transformer_estimate(fitted, n_test, n_categories)
        if seconds is not None and TRANSFORMER_PAIR in checked:
            total += seconds
        for pair in self.few_shot.available():
            seconds = self._few_shot_estimate(pair, fitted, n_test, n_categories)
            if seconds is not None and pair in checked:
                total += seconds
        seconds = self._codebook_estimate(fitted, n_test, n_categories)
        if seconds is not None and self.codebook.is_checked():
            total += seconds
        unknown = seconds is None and self.codebook.is_checked()
        total = self._whole_run_seconds(fitted, n_test, n_categories, total)
        if not checked:
            self.estimate_label.setText("No model is ticked yet.")
        elif unknown and len(checked) == 1:
            self.estimate_label.setText("1 model: its time cannot be estimated before it runs.")
        elif unknown:
            self.estimate_label.setText(f"The other {len(checked) - 1} model{'s' if len(checked) > 2 else ''}: "
                                        f"{describe_duration(total)} on this computer, plus the language model with "
                                        "your codebook, whose time cannot be estimated before it runs.")
        elif len(checked) == 1:
            self.estimate_label.setText(f"1 model: {describe_duration(total)} on this computer.")
        else:
            self.estimate_label.setText(f"All {len(checked)} models: {describe_duration(total)} on this computer.")
        if checked:
            self._measure_missing()

    def _whole_run_seconds(self, n_train: int, n_test: int, n_categories: int, models_alone: float) -> float:
        """The whole run as the Run step will announce it — the models, the refits the combined models
        need, a Transformer's seeds, loading — from the same plan; the models' own sum when it cannot
        be planned."""
        from guiapp.core.experiment.run.run_size import estimate_run

        spec = self.build_spec()
        if spec is None or not spec.models:
            return models_alone
        tokens = self._report.tokens if self._report is not None else None
        try:
            planned = estimate_run(spec, n_train, n_test, n_categories, on_gpu=self.transformer.on_gpu(),
                                   mean_tokens=tokens.mean if tokens is not None else None,
                                   # a language model with your codebook asks one yes/no question per category
                                   multi_label=spec.data.mapping.multi_label)
        except (UserError, ValueError, OSError):
            return models_alone
        return planned.seconds if planned.seconds is not None else models_alone

    def _few_shot_estimate(self, pair: Pair, n_train: int, n_test: int, n_categories: int) -> float | None:
        """Show a zero-shot or SetFit model's expected time; returns it (None when it cannot be estimated)."""
        evaluation = self.settings.evaluation
        tokens = self._report.tokens if self._report is not None else None
        spec = self._model_spec(pair)
        on_gpu = self.transformer.on_gpu()
        if spec.representation == "setfit":  # not when set to the processor
            on_gpu = setfit_on_gpu(spec, on_gpu)
        try:
            seconds = estimate_seconds(
                spec, n_train, n_test, n_categories, evaluation.folds, on_gpu=on_gpu,
                tuning=evaluation.transformer_tuning, validation_share=evaluation.validation_share,
                mean_tokens=tokens.mean if tokens is not None else None,
            )
        except (UserError, ValueError, OSError):
            self.few_shot.set_estimate(pair, "", "")
            return None
        where = "with the GPU" if on_gpu else "on the processor"
        self.few_shot.set_estimate(pair, f"{describe_duration(seconds)} on this computer",
                                   f"Expected time {where}. {ESTIMATE_TIP}")
        return seconds

    def _codebook_estimate(self, n_train: int, n_test: int, n_categories: int) -> float | None:
        """Show the language model with your codebook's expected time; returns it (None when it cannot be
        estimated: the card then says the time is unknown, and why)."""
        evaluation = self.settings.evaluation
        tokens = self._report.tokens if self._report is not None else None
        on_gpu = self.transformer.on_gpu()
        spec = self.codebook.model_spec()
        reason = ""
        try:
            seconds = estimate_seconds(
                spec, n_train, n_test, n_categories, evaluation.folds, on_gpu=on_gpu,
                tuning=evaluation.transformer_tuning, validation_share=evaluation.validation_share,
                mean_tokens=tokens.mean if tokens is not None else None,
            )
        except UserError as error:  # a server, or a model not on this computer: said in words
            seconds, reason = None, error.message
        except Exception:  # noqa: BLE001 - an estimate never stops the step: the card says it is unknown
            seconds = None
        if seconds is None or not seconds >= 0:
            self.codebook.set_estimate(UNKNOWN_TIME, f"{reason} {RUN_STEP_NOTE}" if reason else UNKNOWN_TIME_TIP)
            return None
        prompts = len(self.codebook.settings.variants())
        where = "with the GPU" if codebook_on_gpu(spec, on_gpu) else "on the processor"
        self.codebook.set_estimate(
            f"{describe_duration(seconds)} on this computer",
            f"Expected time {where}: {prompts} prompt{'s' if prompts != 1 else ''} × {evaluation.folds} folds, "
            f"then the test texts{' under each wording' if self.codebook.settings.sensitivity > 1 else ''}. "
            f"{ESTIMATE_TIP}")
        return seconds

    def _transformer_estimate(self, n_train: int, n_test: int, n_categories: int) -> float | None:
        """Show the Transformer's expected time; returns it (None when it cannot be estimated)."""
        evaluation = self.settings.evaluation
        on_gpu = self.transformer.on_gpu()
        tokens = self._report.tokens if self._report is not None else None
        spec = self.transformer_spec()
        try:
            seconds = estimate_seconds(
                spec, n_train, n_test, n_categories, evaluation.folds, on_gpu=on_gpu,
                tuning=evaluation.transformer_tuning, validation_share=evaluation.validation_share,
                mean_tokens=tokens.mean if tokens is not None else None,
            )
            n_settings = len(expand_transformer_grid(spec.grid, self.transformer.model()))
        except (UserError, ValueError, OSError):
            self.transformer.set_estimate("", "")
            return None
        splits = transformer_tuning_splits(evaluation.transformer_tuning, on_gpu, evaluation.folds)
        per = f"{splits} folds" if splits > 1 else "1 validation split"
        where = "with the GPU" if on_gpu else "on the processor"
        checking = " (assuming no GPU until the check has finished)" if self.transformer.is_checking() else ""
        tip = (
            f"Expected time {where}{checking}: {n_settings} setting{'s' if n_settings != 1 else ''} × {per} = "
            f"{n_settings * splits} fine-tunings, then one final fine-tuning on all {n_train:,} training texts. "
            f"{ESTIMATE_TIP}"
        )
        self.transformer.set_estimate(f"{describe_duration(seconds)} on this computer", tip)
        return seconds

