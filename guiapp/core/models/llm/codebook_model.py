"""A language model with your codebook: a generative language model codes texts from the
codebook's categories, definitions and examples, and answers with a probability for each category,
like the zero-shot models.

:class:`CodebookModel` holds the codebook (:class:`~.codebook_prompt.PromptCategory` entries), the
instruction (the default, a paraphrase by its number, or the researcher's own), k examples per
category and the seed that draws them, and where the model runs:

* :class:`InTextLab`: a causal language model folder or Hugging Face id opened inside TextLab
  (:mod:`.causal_model`, opened once and kept); each category's name is scored as the prompt's
  continuation (:mod:`.label_scoring`);
* :class:`OnServer`: a language-model server (Ollama or OpenAI-compatible) at an address checked with
  the researcher's consent where it is not this computer (:mod:`.server_address`), asked through
  :mod:`.server_client`; answers outside the categories are counted in :attr:`CodebookModel.outside`,
  never mapped to a category.

:meth:`CodebookModel.fit` learns nothing: it only draws the few-shot examples from the training
texts (none with k = 0). :meth:`CodebookModel.predict_proba` refuses to score a text that is among
the examples, and gives texts × categories: probabilities that sum to one over exactly the
categories, or, where a text can have several categories, P(yes) for each category's question.
:meth:`CodebookModel.record` is what the appendix and results say; :meth:`CodebookModel.save`
writes the JSON file of :mod:`.model_file` and :meth:`CodebookModel.load` opens it again.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.models.llm import model_file
from guiapp.core.models.llm.category_answers import OutsideTally, answer_shares
from guiapp.core.models.llm.codebook_prompt import (
    INSTRUCTIONS,
    NO,
    YES,
    CodebookPrompt,
    FewShotExample,
    PromptCategory,
)
from guiapp.core.models.llm.prompt_examples import (
    MAX_PER_CATEGORY,
    check_examples_apart,
    draw_examples,
    examples_note,
)
from guiapp.core.models.llm.server_client import PROTOCOLS

FAMILY = "codebook_llm"
MAX_SAMPLES = 100


@dataclass(frozen=True)
class InTextLab:
    """The model runs inside TextLab: ``model`` is a model folder or a Hugging Face id;
    ``allow_download`` is the researcher's consent to download a named model that is not on this
    computer (never saved: a loaded model asks again)."""

    model: str
    device: str = "auto"  # "auto" (a GPU when there is one), "cuda", "mps" or "cpu"
    batch_size: int = 8
    allow_download: bool = False

    where = "textlab"


@dataclass(frozen=True)
class OnServer:
    """The model runs on a language-model server: its ``address``, ``protocol`` ("ollama" or
    "openai"), the ``model`` it offers, and whether the researcher agreed that the texts leave this
    computer (needed for an address that is not this computer). ``samples`` answers per question
    give the shares where the server returns no log-probabilities."""

    address: str
    protocol: str
    model: str
    texts_may_leave_computer: bool = False
    temperature: float = 0.0
    samples: int = 5
    timeout: float = 120.0

    where = "server"


Runs = InTextLab | OnServer

# The opened causal model is kept: a study's folds each make a model from the same source.
_OPENED: dict[tuple[str, str], Any] = {}


class CodebookModel:
    """A generative language model that codes texts with the codebook (see the module docstring)."""

    family_title = "Language model with your codebook"

    def __init__(self, categories: Sequence[PromptCategory | tuple | str], runs: Runs, *,
                 multi_label: bool = False, instruction: str | int | None = None, k: int = 0, seed: int = 0,
                 examples: Sequence[FewShotExample] | None = None) -> None:
        if not isinstance(multi_label, bool | np.bool_):
            raise UserError(f"Whether a text can have several categories must be true or false, not {multi_label!r}.")
        self.instruction_variant = _variant(instruction)
        text = INSTRUCTIONS[self.instruction_variant] if self.instruction_variant is not None else instruction
        self.prompt = CodebookPrompt.build(categories, text, (), bool(multi_label))
        self.k = _whole("The number of examples per category", k, 0, MAX_PER_CATEGORY)
        self.seed = _whole("The seed that draws the examples", seed, 0, 2**63 - 1)
        self.runs = _check_runs(runs)
        if isinstance(self.runs, OnServer):
            self._address()  # an address that is not this computer is refused here without consent
        self.fitted = self.k == 0
        if examples is not None:
            self.prompt = self.prompt.with_examples(examples)
            self.fitted = True
        self.outside = OutsideTally()  # answers outside the categories (server), over every call
        self.unanswered = 0  # questions for which no answer named a category: even probabilities
        self._server_record: dict[str, Any] | None = None
        self._client: Any = None
        self.saved_weights_sha256: str | None = None  # the weights a loaded model was saved with
        # several categories per text: each category's decision threshold on P(yes), as chosen in the study
        self.thresholds: list[float] | None = None

    # --- what it is -----------------------------------------------------------------------------

    @property
    def categories(self) -> list[str]:
        return list(self.prompt.names)

    @property
    def multi_label(self) -> bool:
        return self.prompt.multi_label

    @property
    def examples(self) -> tuple[FewShotExample, ...]:
        return self.prompt.examples

    @property
    def model_name(self) -> str:
        """The language model's name in plain words: the server's model, the Hugging Face id, or the
        folder's own name."""
        from guiapp.core.models.transformers.sources.resolve import is_local_path

        name = self.runs.model.strip()
        if isinstance(self.runs, InTextLab) and is_local_path(name):
            return Path(name).expanduser().name or name
        return name

    @property
    def title(self) -> str:
        return f"{self.family_title} ({self.model_name}, k = {self.k})"

    @property
    def texts_leave_computer(self) -> bool:
        return isinstance(self.runs, OnServer) and self._address().texts_leave_computer

    # --- fitting: only the examples ---------------------------------------------------------------

    def fit(self, train_texts: Sequence[str], train_labels: Sequence[Any],
            train_positions: Sequence[int] | None = None, *, scored_texts: Sequence[str] = ()) -> CodebookModel:
        """Draw ``k`` examples per category from the training texts (nothing is trained). A label is
        a category's name or number, or, with several categories per text, a collection of names or
        a 0/1 row; ``train_positions`` are the texts' rows in the study; a training text identical
        to one of ``scored_texts`` is never drawn."""
        texts = list(train_texts)
        labels = [self._label_names(label) for label in train_labels]
        drawn = draw_examples(texts, labels, self.categories, self.k, self.seed,
                              train_positions=train_positions, scored_texts=list(scored_texts))
        self.prompt = self.prompt.with_examples(drawn)
        self.fitted = True
        return self

    def _label_names(self, label: Any) -> Any:
        names = self.categories
        if label is None or isinstance(label, str):
            return label
        if isinstance(label, numbers.Integral) and not isinstance(label, bool | np.bool_):
            if not 0 <= int(label) < len(names):
                raise UserError(f"A training text is coded with category number {int(label)}, but there are "
                                f"{len(names)} categories.")
            return names[int(label)]
        if isinstance(label, numbers.Real):
            return None if math.isnan(float(label)) else self._label_names(int(label))
        row = list(label) if isinstance(label, Collection | np.ndarray) else None
        if row is None:
            return None
        if len(row) == len(names) and all(isinstance(v, numbers.Number) for v in row):
            return [name for name, value in zip(names, row, strict=True) if value and not math.isnan(float(value))]
        return row

    # --- answering --------------------------------------------------------------------------------

    def predict_proba(self, texts: Sequence[str], on_event: EventCallback = ignore_events,
                      positions: Sequence[int] | None = None) -> np.ndarray:
        """Texts × categories: probabilities summing to one over the categories, or (several
        categories per text) each category's P(yes). ``positions``: the texts' rows in the study,
        checked against the examples' rows."""
        from guiapp.core.models.zero_shot.base import text_list

        texts = text_list(texts)
        if positions is not None and len(positions) != len(texts):
            raise UserError(f"There are {len(texts):,} texts to code but {len(positions):,} rows for them.")
        return self.answer(texts, on_event, positions=positions)

    def answer(self, texts: Sequence[str], on_event: EventCallback = ignore_events, *,
               allow_examples: bool = False, positions: Sequence[int] | None = None) -> np.ndarray:
        """The same answers as :meth:`predict_proba`. ``allow_examples``: a text that is one of the
        examples shown to the model is answered too, instead of refused — for new texts after a
        study, where the check that keeps the examples apart from the scored texts does not apply
        (the answer for such a text largely repeats its coding in the prompt)."""
        from guiapp.core.models.zero_shot.base import text_list

        if not self.fitted:
            raise UserError(f"The {self.k} examples per category have not been drawn from the training texts yet.",
                            "Draw them (fit the model on the training texts) before it answers.")
        texts = text_list(texts)
        if not allow_examples:
            check_examples_apart(self.examples, texts, positions)
        if not texts:
            return np.zeros((0, len(self.categories)))
        if isinstance(self.runs, OnServer):
            return self._ask_server(texts, on_event)
        return self._score_here(texts, on_event)

    @property
    def device(self) -> tuple[str, str] | None:
        """Where the opened language model computes: its kind ("cuda", "mps" or "cpu") and its name
        (e.g. "NVIDIA H100 80GB HBM3", "CPU, 8 threads"); None on a server, or before the model was
        opened (it opens when it first answers) or after it was let go."""
        if not isinstance(self.runs, InTextLab):
            return None
        causal = _OPENED.get((self.runs.model, self.runs.device))
        return (str(causal.device), str(causal.device_name)) if causal is not None else None

    @property
    def on_gpu(self) -> bool:
        """The opened language model computes on a graphics card (False on the processor, on a
        server, or before it was opened)."""
        device = self.device
        return device is not None and device[0] != "cpu"

    def _score_here(self, texts: list[str], on_event: EventCallback) -> np.ndarray:
        from guiapp.core.models.llm.label_scoring import (
            score_prompts,
            yes_no_probabilities,
        )

        causal = self.causal_model(on_event)
        prompt = self.prompt
        if self.multi_label:
            return yes_no_probabilities(causal, texts, self.categories, prompt.prompt, on_event,
                                        batch_size=self.runs.batch_size, answers=(YES, NO))
        return score_prompts(causal, [prompt.prompt(text) for text in texts], self.categories, on_event,
                             batch_size=self.runs.batch_size)

    def causal_model(self, on_event: EventCallback = ignore_events) -> Any:
        """The opened causal language model (opened once; kept for the next model of the same
        source). A loaded model refuses weights other than those it was saved with."""
        from guiapp.core.models.llm.causal_model import open_causal_model

        runs = self.runs
        key = (runs.model, runs.device)
        causal = _OPENED.get(key)
        if causal is None:
            causal = open_causal_model(runs.model, on_event, local_files_only=not runs.allow_download,
                                       device=runs.device)
            _OPENED.clear()  # one language model in memory at a time
            _OPENED[key] = causal
        if self.saved_weights_sha256 and causal.weights_sha256 != self.saved_weights_sha256:
            raise UserError(f"The language model “{causal.name}” is not the one this model was saved with: its "
                            "weight files differ, so its answers would differ too.",
                            "Put the original model's files back, or run the study again with this model.")
        return causal

    def _address(self) -> Any:
        from guiapp.core.models.llm.server_address import check_server_address

        runs = self.runs
        return check_server_address(runs.address, runs.protocol,
                                    texts_may_leave_computer=runs.texts_may_leave_computer)

    def server_client(self) -> Any:
        """The client of the server (made once)."""
        from guiapp.core.models.llm.server_client import ServerClient

        if self._client is None:
            runs = self.runs
            self._client = ServerClient(self._address(), runs.protocol, runs.model, timeout=runs.timeout)
        return self._client

    def _ask_server(self, texts: list[str], on_event: EventCallback) -> np.ndarray:
        runs, prompt = self.runs, self.prompt
        client = self.server_client()
        questions = prompt.questions()
        conversations = [prompt.messages(text, question) for text in texts for question in questions]
        allowed = prompt.answers(questions[0])
        replies = client.answer_texts(conversations, allowed, prompt.answer_schema(questions[0]),
                                      temperature=runs.temperature, seed=self.seed, samples=runs.samples,
                                      on_event=on_event)
        rows = []
        for reply in replies:
            shares = answer_shares(reply.raw, allowed)
            self.outside.add(shares)
            probabilities = reply.probabilities or shares.probabilities
            if probabilities is None:  # no answer named a category: no information, said in the notes
                self.unanswered += 1
                probabilities = dict.fromkeys(allowed, 1 / len(allowed))
            rows.append([float(probabilities[name]) for name in allowed])
        answers = np.asarray(rows, dtype=np.float64)
        if self.multi_label:
            return answers[:, 0].reshape(len(texts), len(questions))  # P(yes) per category
        return answers / answers.sum(axis=1, keepdims=True)

    # --- the record ---------------------------------------------------------------------------------

    def model_record(self) -> dict[str, Any]:
        """What the appendix says of the language model: name, weights' SHA-256 and runtime (inside
        TextLab; the model is opened if it is not yet), or the server's model, digest and address."""
        if isinstance(self.runs, InTextLab):
            return {"runs": "in TextLab", **self.causal_model().record()}
        if self._server_record is None:
            client = self.server_client()
            chosen = next((m for m in client.list_models() if m.name == self.runs.model), None)
            details = chosen.details.get("details") if chosen is not None else None
            quantisation = details.get("quantization_level", "") if isinstance(details, dict) else ""
            self._server_record = {
                "runs": "on a language-model server", "model": self.runs.model,
                "runtime": "Ollama" if self.runs.protocol == "ollama" else "OpenAI-compatible server",
                "server_protocol": self.runs.protocol, "server_model": self.runs.model,
                "server_model_digest": chosen.digest if chosen is not None else "",
                "quantization": str(quantisation), **client.address.record()}
        return dict(self._server_record)

    def record(self) -> dict[str, Any]:
        """Everything the appendix and results.json say of this model."""
        server = isinstance(self.runs, OnServer)
        return {
            "family": FAMILY,
            "categories": self.categories,
            "multi_label": self.multi_label,
            **self.model_record(),
            "prompt_template": self.prompt.template_record(),
            "prompt_sha256": self.prompt.template_sha256(),
            "instruction": self.prompt.instruction,
            "instruction_variant": self.instruction_variant,
            "k": self.k,
            "seed": self.seed,
            "temperature": self.runs.temperature if server else None,
            "samples": self.runs.samples if server else None,
            "scoring": self._server_scoring() if server else
                       ("each allowed answer scored as the prompt's continuation (length-normalised "
                        "log-likelihood, softmax)"),
            "structured_output": self.structured_output,
            "example_positions": [example.position for example in self.examples],
            "examples_note": examples_note(self.k, self.seed),
            "texts_leave_computer": self.texts_leave_computer,
            "outside_answers": {"asked": self.outside.asked, "outside": self.outside.outside,
                                "note": self.outside.note(), "unanswered_questions": self.unanswered},
        }

    @property
    def structured_output(self) -> str | None:
        """How the server held its answers to the allowed ones, once it has answered: "json_schema"
        (OpenAI's form), "json_object" (llama.cpp's form, where a server refused OpenAI's) or "" (it
        took no schema); None inside TextLab or before the server was asked."""
        if not isinstance(self.runs, OnServer) or self._client is None or not self.outside.asked:
            return None
        return str(self._client.support.structured_output)

    def _server_scoring(self) -> str:
        held = {"json_schema": "held to the allowed answers by a JSON schema (OpenAI's json_schema form)",
                "json_object": "held to the allowed answers by a JSON schema (llama.cpp's json_object form, "
                               "since the server refused OpenAI's)",
                "": "not held to the allowed answers (the server took no JSON schema; an answer that named "
                    "none was counted as outside the categories)"}.get(
            self.structured_output, "held to the allowed answers by a JSON schema where the server takes one")
        return f"the server's answer, {held}, with its log-probabilities where given, else the shares of the samples"

    # --- saving -------------------------------------------------------------------------------------

    def file_record(self) -> dict[str, Any]:
        """What :mod:`.model_file` saves: the codebook, the instruction, the drawn examples (their
        texts and categories), where the model runs, the prompt's hash and the record."""
        runs = self.runs
        if isinstance(runs, InTextLab):
            where = {"where": runs.where, "model": runs.model, "device": runs.device, "batch_size": runs.batch_size}
        else:
            where = {"where": runs.where, "address": runs.address, "protocol": runs.protocol, "model": runs.model,
                     "texts_may_leave_computer": runs.texts_may_leave_computer, "temperature": runs.temperature,
                     "samples": runs.samples, "timeout": runs.timeout}
        record = self.record()
        return {
            "categories": [{"name": c.name, "definition": c.definition, "examples": list(c.examples)}
                           for c in self.prompt.categories],
            "multi_label": self.multi_label,
            "instruction": self.prompt.instruction,
            "instruction_variant": self.instruction_variant,
            "k": self.k,
            "seed": self.seed,
            "examples": [{"text": e.text, "categories": list(e.categories), "position": e.position}
                         for e in self.examples],
            "runs": where,
            "prompt_sha256": record["prompt_sha256"],
            "weights_sha256": record.get("weights_sha256"),
            "thresholds": [float(value) for value in self.thresholds] if self.thresholds is not None else None,
            "record": record,
        }

    def save(self, folder: str | os.PathLike[str], thresholds: Sequence[float] | None = None) -> None:
        """Write the model to ``folder`` (``codebook_model.json``, JSON only, written atomically);
        ``thresholds``: each category's decision threshold, where a text can have several."""
        if thresholds is not None:
            self.thresholds = [float(value) for value in thresholds]
        model_file.save(folder, self.file_record())

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> CodebookModel:
        """The model saved in ``folder``; a damaged or foreign file is refused in plain words."""
        data = model_file.load(folder)
        where = data["runs"]
        try:
            if where["where"] == "textlab":
                runs: Runs = InTextLab(where["model"], where["device"], where["batch_size"])
            else:
                runs = OnServer(where["address"], where["protocol"], where["model"],
                                where["texts_may_leave_computer"], where["temperature"], where["samples"],
                                where["timeout"])
            examples = [FewShotExample(e["text"], tuple(e["categories"]), e["position"]) for e in data["examples"]]
            variant = data["instruction_variant"]
            model = cls([(c["name"], c["definition"], tuple(c["examples"])) for c in data["categories"]], runs,
                        multi_label=data["multi_label"], instruction=data["instruction"] if variant is None else variant,
                        k=data["k"], seed=data["seed"], examples=examples)
        except UserError as error:  # a value no model of TextLab's would hold
            raise model_file.damaged(folder, error.message) from error
        if model.prompt.template_sha256() != data["prompt_sha256"]:
            raise model_file.damaged(folder, "its prompt is not the one it was saved with (the hash differs)",
                                     "The file was changed after it was saved. Run the study again to make the model anew.")
        model.saved_weights_sha256 = data.get("weights_sha256") or None
        model.thresholds = [float(value) for value in data["thresholds"]] if data.get("thresholds") else None
        return model


def release_language_model() -> None:
    """Let go of the kept causal language model (at the end of a study, or before another model
    needs the memory)."""
    _OPENED.clear()


def load_codebook_model(folder: str | os.PathLike[str]) -> CodebookModel:
    """The codebook language model saved in ``folder``."""
    return CodebookModel.load(folder)


def _variant(instruction: str | int | None) -> int | None:
    if instruction is None:
        return 0
    if isinstance(instruction, str):
        return None
    if isinstance(instruction, bool) or not isinstance(instruction, numbers.Integral) \
            or not 0 <= int(instruction) < len(INSTRUCTIONS):
        raise UserError(f"There is no instruction number {instruction!r}.",
                        f"Choose one of the {len(INSTRUCTIONS)} instructions, or write your own.")
    return int(instruction)


def _whole(label: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral) or not low <= int(value) <= high:
        raise UserError(f"{label} must be a whole number from {low} to {high:,}, not {value!r}.")
    return int(value)


def _check_runs(runs: Runs) -> Runs:
    if isinstance(runs, InTextLab):
        if not isinstance(runs.model, str) or not runs.model.strip():
            raise UserError("No language model was chosen.",
                            "Choose a model folder or a Hugging Face id of an instruction-tuned model.")
        if runs.device not in ("auto", "cuda", "mps", "cpu"):
            raise UserError(f"TextLab does not know the device “{runs.device}”.", "Choose auto, cuda, mps or cpu.")
        _whole("The batch size", runs.batch_size, 1, 4096)
        return runs
    if isinstance(runs, OnServer):
        if runs.protocol not in PROTOCOLS:
            raise UserError(f"TextLab does not know the server kind “{runs.protocol}”.",
                            "Choose Ollama or an OpenAI-compatible server.")
        if not isinstance(runs.model, str) or not runs.model.strip():
            raise UserError("No model on the language-model server was chosen.", "Choose one of the server's models.")
        if not isinstance(runs.address, str) or not isinstance(runs.texts_may_leave_computer, bool):
            raise UserError("The server's address is missing.", "Type the server's address, e.g. http://127.0.0.1:11434.")
        temperature = runs.temperature
        if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) \
                or not math.isfinite(temperature) or not 0 <= temperature <= 2:
            raise UserError(f"The temperature must be a number from 0 to 2, not {temperature!r}.",
                            "Use 0 for the same answer every time, or about 0.7 with several samples.")
        _whole("The number of samples per question", runs.samples, 1, MAX_SAMPLES)
        timeout = runs.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not 0 < timeout <= 86_400:
            raise UserError(f"The time allowed for the server's answer must be a number of seconds, not {timeout!r}.")
        return runs
    raise UserError("Choose where the language model runs: inside TextLab or on a language-model server.")
