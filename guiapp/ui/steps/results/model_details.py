"""What the Results step shows for the chosen model: its summary line, scores per category, confusion
matrix or per-category tables, notes and saved folder, how its setting was chosen, and its time.

:class:`ModelDetails` fills the widgets that :class:`~guiapp.ui.steps.results.results_tabs.ResultsTabs`
built on the page; it shows only what the engine computed.
"""

from __future__ import annotations

from pathlib import Path

from guiapp.core.experiment import ModelResult
from guiapp.core.experiment.results.result_parts import DeviceUsed
from guiapp.core.stats.fold_interval import fold_interval
from guiapp.ui.common.chart_numbers import format_row_share
from guiapp.core.export.codebook_facts import LLM_LABELS_SENTENCE, is_codebook_model
from guiapp.ui.steps.results import codebook_details
from guiapp.ui.steps.results.combined_details import (
    COMBINED_STAGES,
    chosen_text,
    folds_text,
    how_text,
    is_combined,
    summary_part,
)
from guiapp.ui.steps.results.results_tables import describe_setting, transformer_stages
from guiapp.ui.steps.results.results_tabs import CELL_CLICK_HINT, TAB_NAMES


def is_transformer(model: ModelResult) -> bool:
    return model.representation == "transformer"


def format_weights(n: int) -> str:
    """22_713_219 -> "22.7 M weights"."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} M weights"
    return f"{n:,} weights"


def device_text(device: DeviceUsed | None) -> str:
    """Where a Transformer trained (``ModelResult.device``), in plain words."""
    if device is None:
        return ""
    kind, name = device.kind, device.name
    if kind == "cuda":
        return f"{name or 'an NVIDIA graphics card'} (GPU)" + (", with 16-bit numbers (bf16)" if device.bf16 else "")
    if kind == "mps":
        return f"{name or 'the Apple GPU'} (Apple GPU)"
    return f"the processor ({name})" if name else "the processor (CPU)"


def tuning_sentence(model: ModelResult) -> str:
    """How a Transformer's setting was chosen, with why, in plain words."""
    how = model.tuning
    if not how:
        return ""
    if how.startswith("one validation split"):
        return (f"How the setting was chosen: on {how}. Each setting was fine-tuned once on the other training "
                "texts and compared on the texts set aside; cross-validation would fine-tune it once per fold, "
                "which takes hours without a GPU.")
    return f"How the setting was chosen: {how}, like the other models."


class ModelDetails:
    """Shows the chosen model's details on the Results page's tabs (mixed into ``ResultsPage``)."""

    def _model_chosen(self, index: int) -> None:
        model = self.chosen_model()
        if model is None or self.result is None:
            return
        self.session.choose_model(model.name)
        test = model.test
        rank = self._ranked.index(model) + 1
        parts = [f"macro-F1 {test.macro_f1:.2f}"]
        if test.macro_f1_ci:
            parts[0] += f" ({test.macro_f1_ci[0]:.2f}–{test.macro_f1_ci[1]:.2f})"
        if test.multi_label:
            parts.append(f"micro-F1 {test.micro_f1 or 0:.2f}")
            parts.append(f"all categories right for {format_row_share(test.accuracy)} of the texts")
        else:
            parts.append(f"accuracy {test.accuracy:.2f}")
        parts.append(f"rank {rank} of {len(self._ranked)}")
        transformer = is_transformer(model)
        if is_combined(model):
            parts.append(summary_part(model))
        elif is_codebook_model(model):
            parts.append(codebook_details.summary_part(model))
        elif model.n_features:
            parts.append(format_weights(model.n_features) if transformer
                         else f"each text is {model.n_features:,} numbers")
        device = device_text(model.device) if transformer else ""
        if device:
            parts.append(f"trained on {device}")
        self.summary_label.setText("  ·  ".join(parts))
        self._show_notes(model)

        n_test = self.result.n_test_texts
        if test.multi_label:
            self._show_categories(model)
        else:
            self.category_caption.set_plain_text(
                f"How {model.name} does on each category of the {n_test:,} test texts. Precision: how often it "
                "is right when it picks the category; recall: how many of your texts in the category it finds. "
                "Click a column title to sort."
            )
            self.category_table.set_scores(test.per_category)

            self.confusion_caption.set_plain_text(
                "Confusion matrix. Rows: your coding; columns: the model's choice. Each cell: number of test texts "
                "and share of the row. Blue: agreement; orange: mistakes; the stronger, the larger the share. "
                + CELL_CLICK_HINT
            )
            self.heatmap.set_matrix(self.result.categories, test.confusion)

        self._show_tuning(model)
        if transformer:
            self.times_table.set_seconds(model.seconds, transformer_stages(model.tuning))
        elif is_combined(model):
            self.times_table.set_seconds(model.seconds, COMBINED_STAGES)
        else:
            self.times_table.set_seconds(model.seconds)
        self.device_label.set_plain_text(f"{model.name} was trained on {device}." if device else "")
        self.device_label.setVisible(bool(device))
        self.time_chart.set_times([(m.name, m.total_seconds or 0.0) for m in self._ranked], highlight=model.name)

    def _show_categories(self, model: ModelResult) -> None:
        """The scores per category and the per-category tables where a text can have several categories."""
        from guiapp.core.export.multi_label_facts import thresholds_tuned

        result, test = self.result, model.test
        n_test = result.n_test_texts
        tuned = thresholds_tuned(result)
        rule = ("Each category is decided on its own: the model puts a text in a category when its probability for "
                "it reaches the category's threshold (" + ("tuned on the training texts, never on the test texts)."
                                                           if tuned else "0.5 for every category)."))
        self.category_caption.set_plain_text(
            f"How {model.name} does on each category of the {n_test:,} test texts. Precision: how often it is right "
            "when it puts a text in the category; recall: how many of your texts in the category it finds. "
            f"The interval is the range the F1 would likely take with other test texts. {rule} "
            "Click a column title to sort."
        )
        thresholds = model.thresholds if len(model.thresholds) == len(result.categories) else None
        self.category_table.set_scores(test.per_category, multi_label=True, thresholds=thresholds)
        self.confusion_caption.set_plain_text(
            f"One small table per category, for {model.name} on the {n_test:,} test texts. Rows: whether you coded "
            "a text with the category (yes / no); columns: whether the model put it there (yes / no). Each cell: "
            "number of test texts and share of the row. Blue: the model decided as you coded; orange: it missed "
            "or added the category; the stronger, the larger the share. Hover over a cell for a sentence."
        )
        self.category_grid.set_tables(result.categories, test.category_confusions or [], test.per_category,
                                      thresholds)

    def _show_notes(self, model: ModelResult) -> None:
        notes = model.notes
        if is_codebook_model(model):  # its prompt sensitivity is said once, under the chart of all models
            said = codebook_details.sensitivity_sentence(model)
            notes = [note for note in notes if note.strip() != said]
        self.model_notes_label.set_plain_text("Notes: " + " ".join(notes) if notes else "")
        self.model_notes_label.setVisible(bool(notes))
        codebook = is_codebook_model(model)
        self.codebook_box.setVisible(codebook)
        self.codebook_label.set_plain_text(codebook_details.details_text(model) if codebook else "")
        if codebook:  # what the language model's labels are, beside its glossary terms
            terms = self.codebook_label.toolTip()
            self.codebook_label.setToolTip(LLM_LABELS_SENTENCE + (f"\n{terms}" if terms else ""))
        self.prompt_button.setEnabled(codebook and bool(codebook_details.prompt_text(model)))
        folder = model.artefact
        self.saved_box.setVisible(bool(folder))
        if folder:
            exists = Path(folder).is_dir()
            self.saved_label.setText(f"The trained model was saved in: {folder}" + ("" if exists else " (no longer there)"))
            self.saved_label.setToolTip(
                "The fine-tuned model's files (safetensors weights, tokenizer, categories), to apply it to new "
                "texts later." if is_transformer(model) else "The saved model's files.")
            self.show_folder_button.setEnabled(exists)

    def show_prompt(self) -> None:
        """Open the exact prompt of the chosen language model with your codebook."""
        model = self.chosen_model()
        if model is None or not is_codebook_model(model):
            return
        self.prompt_dialog = codebook_details.PromptDialog(model, self)
        self.prompt_dialog.open()

    def _extend_grid(self) -> None:
        model = self.chosen_model()
        choice = model.setting_choice if model else None
        if choice is not None and choice.extended_grid:
            self.extendGridRequested.emit(dict(choice.extended_grid))

    def _show_tuning(self, model: ModelResult) -> None:
        choice = model.setting_choice
        self.extend_button.setVisible(bool(is_transformer(model) and choice is not None and choice.extended_grid))
        self.tabs.setTabText(TAB_NAMES.index("Tuning"), "How it combines" if is_combined(model) else "Tuning")
        if is_combined(model):
            self._show_combination(model)
            return
        setting = describe_setting(model.classifier, model.chosen_params)
        self.chosen_label.set_plain_text(f"Chosen setting: {setting}", bold_prefix="")
        transformer = is_transformer(model)
        tuning = tuning_sentence(model) if transformer else ""
        self.tuning_label.set_plain_text(tuning)
        self.tuning_label.setVisible(bool(tuning))
        self.grid_table.setVisible(not transformer)
        self.transformer_grid.setVisible(transformer)
        self.transformer_spacer.setVisible(transformer)
        if transformer:
            self._show_transformer_tuning(model)
            return
        scores = model.cv_scores
        if scores:
            folds = "  ·  ".join(f"{score:.2f}" for score in scores)
            self.folds_label.set_plain_text(
                f"Its macro-F1 on each of the {len(scores)} folds of cross-validation: {folds}  —  "
                f"mean {model.cv_mean:.2f}" + self._fold_interval(scores)
            )
        else:
            self.folds_label.set_plain_text("No cross-validation scores were recorded for this model.")
        if len(model.grid) > 1:
            self.grid_caption.set_plain_text(
                f"All {len(model.grid)} settings of the grid, best mean first. The chosen one is highlighted."
            )
        elif model.grid:
            self.grid_caption.set_plain_text("Only one setting was tried, so there was nothing to choose.")
        else:
            self.grid_caption.set_plain_text("No tuning results were recorded for this model.")
        self.grid_table.set_grid(model.classifier, model.grid, model.chosen_params)

    def _fold_interval(self, scores: list[float]) -> str:
        """The mean's 95 % interval across folds (``fold_interval``), e.g. " (95 % interval 0.71–0.77)";
        "" when there is none (fewer than 3 folds)."""
        if self.result is None:
            return ""
        interval = fold_interval(scores, self.result.test_split.n_train or 0, self.result.protocol.folds)
        return f" (95 % interval {interval[0]:.2f}–{interval[1]:.2f})" if interval else ""

    def _show_combination(self, model: ModelResult) -> None:
        self.tuning_label.set_plain_text(chosen_text(model))
        self.chosen_label.set_plain_text(how_text(model))
        self.tuning_label.setVisible(True)
        self.folds_label.set_plain_text(folds_text(model))
        self.grid_caption.set_plain_text("")
        self.grid_table.setVisible(False)
        self.transformer_grid.setVisible(False)
        self.transformer_spacer.setVisible(True)

    def _show_transformer_tuning(self, model: ModelResult) -> None:
        split = model.tuning.startswith("one validation split")
        held_out = "the validation texts" if split else "the folds of cross-validation (mean)"
        scores = model.cv_scores
        if split and scores:
            self.folds_label.set_plain_text(f"Its macro-F1 on the validation texts: {scores[0]:.2f}")
        elif scores:
            folds = "  ·  ".join(f"{score:.2f}" for score in scores)
            self.folds_label.set_plain_text(
                f"Its macro-F1 on each of the {len(scores)} folds of cross-validation: {folds}  —  "
                f"mean {model.cv_mean:.2f}")
        else:
            self.folds_label.set_plain_text("No tuning scores were recorded for this model.")
        n = len(model.grid)
        if n > 1:
            self.grid_caption.set_plain_text(
                f"The {n} settings tried: learning rate (rows) × epochs (columns). Each cell is the macro-F1 on "
                f"{held_out}; the chosen one is highlighted. Hover over a cell for its time.")
        elif n:
            self.grid_caption.set_plain_text("Only one setting was tried, so there was nothing to choose.")
        else:
            self.grid_caption.set_plain_text("No tuning results were recorded for this model.")
        self.transformer_grid.set_grid(model.grid, model.chosen_params, held_out)
