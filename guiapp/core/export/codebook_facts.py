"""What a language model with your codebook recorded, read for the Results step, the Excel workbook
and the methods appendix alike.

A study run keeps, in the model's ``spec``, the final model's ``record`` (the language model's name,
its weights' SHA-256 or the server's model and digest, the runtime, the full prompt template and its
SHA-256, k, seed, temperature, whether the texts left this computer, the answers outside the
categories) and the ``sensitivity`` report (the test texts answered under other wordings of the
instruction: Krippendorff's α between them and the range of macro-F1, with one sentence). This
module reads both, tolerant of a results file that lacks either, and words them once, so every place
that shows the model says the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from guiapp.core.experiment.results.experiment_result import ModelResult
from guiapp.core.models.llm.codebook_options import (
    CODEBOOK_LLM,
    SERVER,
    describe_codebook_params,
)

SHORT_HASH = 12  # characters of a SHA-256 shown on screen (the whole one is in the exports)
LLM_LABELS_SENTENCE = ("Its labels are a model's predictions, validated against your coding on the test texts; "
                       "they are never used as the true categories.")


def is_codebook_model(model: ModelResult) -> bool:
    return model.representation == CODEBOOK_LLM


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str:
    return str(value).strip() if isinstance(value, str | int | float) and not isinstance(value, bool) else ""


@dataclass(frozen=True)
class SensitivityPrompt:
    """One wording of the instruction that answered the test texts."""

    instruction_variant: int | None  # TextLab's wording by number; None: the researcher's own
    instruction: str
    prompt_sha256: str
    macro_f1: float | None

    def wording(self) -> str:
        if self.instruction_variant is None or self.instruction_variant < 0:
            return "your own instruction"
        return "TextLab's instruction" if self.instruction_variant == 0 else \
            f"TextLab's instruction, wording {self.instruction_variant + 1}"


@dataclass(frozen=True)
class PromptSensitivity:
    """How much the answers depend on the instruction's wording (the chosen prompt first)."""

    prompts: tuple[SensitivityPrompt, ...]
    alpha: float | None
    macro_f1_min: float | None
    macro_f1_max: float | None
    sentence: str
    agreed_share: float | None = None

    @classmethod
    def from_spec(cls, spec: Any) -> PromptSensitivity | None:
        raw = spec.get("sensitivity") if isinstance(spec, dict) else None
        if not isinstance(raw, dict):
            return None
        prompts = tuple(
            SensitivityPrompt(_whole(item.get("instruction_variant")), _text(item.get("instruction")),
                              _text(item.get("prompt_sha256")), _number(item.get("macro_f1")))
            for item in raw.get("prompts") or [] if isinstance(item, dict))
        scores = [p.macro_f1 for p in prompts if p.macro_f1 is not None]
        low, high = _number(raw.get("macro_f1_min")), _number(raw.get("macro_f1_max"))
        return cls(prompts, _number(raw.get("alpha")),
                   low if low is not None else (min(scores) if scores else None),
                   high if high is not None else (max(scores) if scores else None),
                   _text(raw.get("sentence")), _number(raw.get("agreed_share")))

    @property
    def n_prompts(self) -> int:
        return len(self.prompts)

    def short(self) -> str:
        """"α 0.82 between 3 wordings · macro-F1 0.55–0.62" — for a table cell."""
        parts = []
        wordings = f"{self.n_prompts} wordings" if self.n_prompts else "the wordings"
        parts.append(f"α {self.alpha:.2f} between {wordings}" if self.alpha is not None
                     else f"α not computable between {wordings}")
        if self.macro_f1_min is not None and self.macro_f1_max is not None:
            parts.append(f"macro-F1 {self.macro_f1_min:.2f}–{self.macro_f1_max:.2f}")
        return " · ".join(parts)

    def words(self) -> str:
        """The run's one sentence, or one made from the numbers where the results file has none."""
        if self.sentence:
            return self.sentence
        spread = (f"macro-F1 ranged from {self.macro_f1_min:.2f} to {self.macro_f1_max:.2f}"
                  if self.macro_f1_min is not None and self.macro_f1_max is not None else "")
        alpha = (f"Krippendorff's α between the answers of the {self.n_prompts} wordings of the instruction was "
                 f"{self.alpha:.2f}" if self.alpha is not None else
                 f"Krippendorff's α between the {self.n_prompts} wordings of the instruction could not be computed")
        return f"{alpha}{'; ' + spread if spread else ''}."


@dataclass(frozen=True)
class CodebookRecord:
    """The final model's record (``spec["record"]``), read field by field; unknown fields are ""."""

    raw: dict[str, Any]

    @classmethod
    def of(cls, model: ModelResult) -> CodebookRecord:
        record = model.spec.get("record") if isinstance(model.spec, dict) else None
        return cls(dict(record) if isinstance(record, dict) else {})

    def get(self, name: str) -> Any:
        return self.raw.get(name)

    @property
    def on_server(self) -> bool:
        return bool(self.raw.get("server_protocol") or self.raw.get("server_address"))

    @property
    def model_name(self) -> str:
        return _text(self.raw.get("server_model") or self.raw.get("model"))

    @property
    def weights(self) -> str:
        """The weights' SHA-256 (in TextLab) or the server's digest of its model."""
        return _text(self.raw.get("weights_sha256") or self.raw.get("server_model_digest"))

    @property
    def runtime(self) -> str:
        return _text(self.raw.get("runtime"))

    @property
    def quantisation(self) -> str:
        """The server's quantisation, or the number format the weights were read in (TextLab)."""
        return _text(self.raw.get("quantization") or self.raw.get("dtype"))

    @property
    def device(self) -> str:
        return _text(self.raw.get("device"))

    @property
    def prompt_sha256(self) -> str:
        return _text(self.raw.get("prompt_sha256"))

    @property
    def prompts(self) -> list[str]:
        """The full prompt template(s), "{text}" where each text goes (one per category's question where a
        text can have several categories)."""
        template = self.raw.get("prompt_template")
        prompts = template.get("prompts") if isinstance(template, dict) else None
        return [str(p) for p in prompts if isinstance(p, str)] if isinstance(prompts, list) else []

    @property
    def k(self) -> int | None:
        return _whole(self.raw.get("k"))

    @property
    def seed(self) -> int | None:
        return _whole(self.raw.get("seed"))

    @property
    def temperature(self) -> float | None:
        return _number(self.raw.get("temperature"))

    @property
    def samples(self) -> int | None:
        return _whole(self.raw.get("samples"))

    @property
    def scoring(self) -> str:
        return _text(self.raw.get("scoring"))

    @property
    def examples_note(self) -> str:
        return _text(self.raw.get("examples_note"))

    @property
    def texts_left_computer(self) -> bool:
        return self.raw.get("texts_leave_computer") is True

    @property
    def server_address(self) -> str:
        return _text(self.raw.get("server_address"))

    @property
    def outside(self) -> tuple[int, int, str]:
        """(answers asked, answers outside the categories, their note)."""
        raw = self.raw.get("outside_answers")
        if not isinstance(raw, dict):
            return 0, 0, ""
        return _whole(raw.get("asked")) or 0, _whole(raw.get("outside")) or 0, _text(raw.get("note"))


def setting_words(model: ModelResult) -> str:
    """"2 examples per category, TextLab's instruction" (the chosen prompt variant)."""
    try:
        return describe_codebook_params(model.chosen_params) or "TextLab's instruction"
    except (TypeError, ValueError):
        return ", ".join(f"{name} = {value}" for name, value in model.chosen_params.items())


def where_words(model: ModelResult) -> str:
    """"inside TextLab" or "on a language-model server"."""
    return "on a language-model server" if model.classifier == SERVER else "inside TextLab"


def left_computer_sentence(model: ModelResult) -> str:
    """One plain sentence where the texts were sent to a server that is not this computer; "" otherwise."""
    record = CodebookRecord.of(model)
    if not record.texts_left_computer:
        return ""
    where = f" at {record.server_address}" if record.server_address else ""
    return (f"The texts left this computer: {model.name} sent them to the language-model server{where}, "
            "which is another computer, as you agreed.")


def outside_sentence(model: ModelResult) -> str:
    """How many of the server's answers named no category (never mapped to one); "" when none did."""
    asked, outside, note = CodebookRecord.of(model).outside
    if not outside:
        return ""
    return note or (f"{outside:,} of {asked:,} answers named none of the categories; they were counted, not mapped "
                    "to a category.")


def short_hash(value: str) -> str:
    return f"{value[:SHORT_HASH]}…" if len(value) > SHORT_HASH else value


def model_line(model: ModelResult) -> str:
    """"tiny-gpt2 (weights SHA-256 97aa9bcdd12f…), transformers 5.2 on the CPU, float32" — the language
    model in one line."""
    record = CodebookRecord.of(model)
    name = record.model_name or model.representation_options.get("model")
    if not name:
        return "not recorded in these results"
    digest = record.weights
    label = "server's digest" if record.on_server else "weights SHA-256"
    parts = [f"{name} ({label} {short_hash(digest)})" if digest else str(name)]
    runtime = record.runtime
    if record.on_server:
        where = f" at {record.server_address}" if record.server_address else ""
        parts.append(f"{runtime or 'a language-model server'}{where}")
    elif runtime:
        parts.append(f"{runtime}{' on ' + record.device if record.device else ''}")
    if record.quantisation:
        parts.append(record.quantisation)
    return ", ".join(parts)


def record_lines(model: ModelResult) -> list[tuple[str, Any]]:
    """(label, value) lines of the record for the Excel Settings sheet (beside its family, where it ran and
    its chosen setting, which every model has), whole hashes and the full prompt included; values that are
    not known are left out."""
    record, sensitivity = CodebookRecord.of(model), PromptSensitivity.from_spec(model.spec)
    asked, outside, note = record.outside
    lines: list[tuple[str, Any]] = [
        ("Language model", record.model_name or model.representation_options.get("model")),
        ("Weights' SHA-256" if not record.on_server else "Server's model digest", record.weights),
        ("Runtime", record.runtime),
        ("Server address", record.server_address),
        ("Server protocol", record.get("server_protocol")),
        ("Quantisation / number format", record.quantisation),
        ("Device", record.device if not record.on_server else ""),
        ("Examples per category (k)", record.k),
        ("Seed of the examples", record.seed),
        ("Temperature", record.temperature),
        ("Answers per question (samples)", record.samples),
        ("How answers became probabilities", record.scoring),
        ("Examples", record.examples_note),
        ("Prompt's SHA-256", record.prompt_sha256),
        *((("Prompt template" if len(record.prompts) == 1 else f"Prompt template {i}"), prompt)
          for i, prompt in enumerate(record.prompts, 1)),
    ]
    if sensitivity is not None:
        lines += [("Prompt sensitivity: α between the wordings", sensitivity.alpha
                   if sensitivity.alpha is not None else "not computable"),
                  ("Prompt sensitivity: macro-F1 lowest", sensitivity.macro_f1_min),
                  ("Prompt sensitivity: macro-F1 highest", sensitivity.macro_f1_max),
                  ("Prompt sensitivity", sensitivity.words())]
        lines += [(f"Wording {i}: {p.wording()} (macro-F1)", p.macro_f1) for i, p in enumerate(sensitivity.prompts, 1)]
    if record.raw:
        lines.append(("Texts left this computer", "yes: " + left_computer_sentence(model)
                      if record.texts_left_computer else "no"))
    if asked:
        lines.append(("Answers outside the categories", f"{outside:,} of {asked:,}" + (f": {note}" if note else "")))
    return [(label, value) for label, value in lines if value not in (None, "", [], {})]


def codebook_appendix_facts(model: ModelResult) -> dict[str, Any]:
    """The methods appendix's facts of a language model with your codebook (plain JSON; what is not known
    is left out)."""
    record, sensitivity = CodebookRecord.of(model), PromptSensitivity.from_spec(model.spec)
    asked, outside, note = record.outside
    options = model.representation_options
    facts: dict[str, Any] = {
        "where": model.classifier,
        "language_model": record.model_name or _text(options.get("model")),
        "weights_sha256": _text(record.get("weights_sha256")),
        "server_model_digest": _text(record.get("server_model_digest")),
        "server_address": record.server_address,
        "server_protocol": _text(record.get("server_protocol")),
        "runtime": record.runtime,
        "quantisation": _text(record.get("quantization")),
        "number_format": _text(record.get("dtype")),
        "device": record.device,
        "multi_label": record.get("multi_label") if isinstance(record.get("multi_label"), bool) else None,
        "instruction": _text(record.get("instruction")),
        "own_instruction": record.get("instruction_variant") is None and bool(record.raw),
        "prompt_sha256": record.prompt_sha256,
        "prompt_templates": record.prompts,
        "k": record.k,
        "seed": record.seed,
        "temperature": record.temperature,
        "samples": record.samples,
        "scoring": record.scoring,
        "examples_note": record.examples_note,
        "n_categories": len(record.get("categories")) if isinstance(record.get("categories"), list) else None,
        "descriptions": sorted(str(name) for name, text in (options.get("descriptions") or {}).items() if text)
        if isinstance(options.get("descriptions"), dict) else None,
        "texts_left_computer": record.texts_left_computer if record.raw else None,
        "outside_answers": {"asked": asked, "outside": outside, "note": note} if asked else None,
        "sensitivity": None if sensitivity is None else {
            "prompts": [{"wording": p.wording(), "instruction": p.instruction, "prompt_sha256": p.prompt_sha256,
                         "macro_f1": p.macro_f1} for p in sensitivity.prompts],
            "alpha": sensitivity.alpha, "macro_f1_min": sensitivity.macro_f1_min,
            "macro_f1_max": sensitivity.macro_f1_max, "sentence": sensitivity.words()},
        "labels_as_truth": False,
    }
    return {key: value for key, value in facts.items() if value not in (None, "", [], {})}
