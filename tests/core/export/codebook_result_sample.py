"""A study's result with a language model with your codebook among its models, shaped as a study run
returns it: a real run of two quick models, and beside them a codebook model whose answers are a
noisy copy of one of theirs, whose ``spec`` holds a record with the keys of
``CodebookModel.record()`` and a prompt-sensitivity report, and whose saved model is a real
``codebook_model.json``."""

from __future__ import annotations

import copy
import json

import numpy as np

from guiapp.core.experiment.results.experiment_result import (
    ExperimentResult,
    GridPointResult,
    ModelResult,
    TestResult,
)
from guiapp.core.experiment.scores import metrics
from guiapp.core.models.llm.codebook_options import display_name

WEIGHTS = "97aa9bcdd12fdd55fe7c260b391bbac3a2d88588faf2202bbe752478cd90b9d8"
PROMPT_SHA = "e3fe78bb0f95ce26316769a2e39d0f30ffedfd5d874a1e46106fd3214e6b2ca4"
DIGEST = "sha256:4f2a6c0b1e7d9a8c3b5e6f7a8d9c0b1a2e3f4d5c6b7a8e9f0d1c2b3a4e5f6a7b"
INSTRUCTION = ("You are helping a social scientist code texts with a codebook. Read the codebook's categories "
               "and their definitions, then decide which category the text belongs to.")
PARAPHRASE = "Code the text with the codebook below: choose the one category whose definition fits it best."


def record(categories: list[str], *, server: bool = False, leaves: bool = False, outside: int = 0) -> dict:
    """A record with the keys and kinds of values ``CodebookModel.record()`` gives."""
    prompt = (f"{INSTRUCTION}\n\nCategories:\n" + "\n".join(f"- {c}: texts about {c}" for c in categories)
              + "\n\nText: \"{text}\"\nCategory:")
    where = ({"runs": "on a language-model server", "model": "llama3.2", "runtime": "Ollama",
              "server_protocol": "ollama", "server_model": "llama3.2", "server_model_digest": DIGEST,
              "quantization": "Q4_K_M",
              "server_address": "http://192.168.1.20:11434" if leaves else "http://127.0.0.1:11434",
              "on_this_computer": not leaves, "texts_leave_computer": leaves}
             if server else
             {"runs": "in TextLab", "model": "Qwen2.5-0.5B-Instruct", "model_type": "qwen2", "weights_sha256": WEIGHTS,
              "dtype": "float32", "device": "CPU, 2 threads", "runtime": "transformers 5.25.0"})
    return {
        "family": "codebook_llm", "categories": list(categories), "multi_label": False, **where,
        "prompt_template": {"multi_label": False, "messages": [[{"role": "system", "content": prompt}]],
                            "prompts": [prompt]},
        "prompt_sha256": PROMPT_SHA, "instruction": INSTRUCTION, "instruction_variant": 0, "k": 2, "seed": 5,
        "temperature": 0.0 if server else None, "samples": 5 if server else None,
        "structured_output": "json_schema" if server else None,
        "scoring": ("the server's answer (a JSON-schema enum of the allowed answers) with its log-probabilities "
                    "where given, else the shares of the samples") if server else
                   "each allowed answer scored as the prompt's continuation (length-normalised log-likelihood, softmax)",
        "example_positions": [3, 8, 12, 20, 31, 40],
        "examples_note": ("The language model was shown up to 2 coded examples per category, drawn with seed 5 from "
                          "the training texts of the fold being scored; no example was among the texts it was "
                          "scored on (checked by row and by identical text)."),
        "texts_leave_computer": leaves if server else False,
        "outside_answers": {"asked": 120 if server else 0, "outside": outside,
                            "note": (f"{outside} of 120 answers named none of the categories (e.g. “something "
                                     "else”); they were counted, not mapped to a category.") if outside else "",
                            "unanswered_questions": 0},
    }


def sensitivity() -> dict:
    return {"prompts": [{"instruction_variant": 0, "instruction": INSTRUCTION, "prompt_sha256": PROMPT_SHA,
                         "macro_f1": 0.61},
                        {"instruction_variant": 1, "instruction": PARAPHRASE, "prompt_sha256": "1" * 64,
                         "macro_f1": 0.55},
                        {"instruction_variant": 2, "instruction": "Which category fits?", "prompt_sha256": "2" * 64,
                         "macro_f1": 0.58}],
            "alpha": 0.74, "agreed_share": 0.83, "macro_f1_min": 0.55, "macro_f1_max": 0.61,
            "sentence": ("The three wordings of the instruction gave the same answer to 83 % of the test texts "
                         "(Krippendorff's α = 0.74); macro-F1 ranged from 0.55 to 0.61: the answers depend somewhat "
                         "on how the instruction is worded: report the range of scores, not only the chosen "
                         "prompt's.")}


def codebook_model(result: ExperimentResult, folder=None, *, server: bool = False, leaves: bool = False,  # noqa: ANN001
                   outside: int = 0, with_sensitivity: bool = True, seed: int = 3) -> ModelResult:
    """A codebook model's result: the first model's answers with a share of them changed."""
    base = result.finished_models()[0]
    rng = np.random.default_rng(seed)
    n_categories = len(result.categories)
    probabilities = (np.asarray(base.probabilities, dtype=float) if base.probabilities is not None
                     else np.eye(n_categories)[np.asarray(base.predictions, dtype=int)])
    noise = rng.dirichlet(np.ones(n_categories), len(probabilities))
    probabilities = 0.45 * probabilities + 0.55 * noise
    predictions = probabilities.argmax(axis=1)
    truth = np.asarray(result.test_true)
    test = TestResult(macro_f1=metrics.macro_f1(truth, predictions),
                      macro_f1_ci=metrics.bootstrap_macro_f1(truth, predictions, n_categories, 200, 1, 0.95),
                      ci_level=0.95, accuracy=metrics.accuracy(truth, predictions),
                      per_category=metrics.category_scores(truth, predictions, result.categories),
                      confusion=metrics.confusion(truth, predictions, n_categories))
    classifier = "server" if server else "in_textlab"
    options = ({"model": "llama3.2", "address": "http://127.0.0.1:11434", "protocol": "ollama",
                "texts_may_leave_computer": leaves, "temperature": 0.0, "samples": 5, "timeout": 120.0}
               if server else {"model": "Qwen/Qwen2.5-0.5B-Instruct", "device": "auto", "batch_size": 8})
    options.update(descriptions={c: f"texts about {c}" for c in result.categories}, examples={}, instruction=None,
                   sensitivity=3)
    name = display_name(classifier, options)
    chosen = {"k": 2, "instruction": 0}
    artefact = ""
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "codebook_model.json").write_text(json.dumps({"record": record(result.categories)}),
                                                    encoding="utf-8")
        artefact = str(folder)
    return ModelResult(
        name=name, representation="codebook_llm", classifier=classifier,
        spec={"representation": "codebook_llm", "classifier": classifier, "name": name,
              "representation_options": options, "grid": {"k": [0, 2], "instruction": [0]},
              "notes": ["The language model saw 2 coded training texts per category, never the texts it answered."],
              "record": record(result.categories, server=server, leaves=leaves, outside=outside),
              "sensitivity": sensitivity() if with_sensitivity else None},
        chosen_params=chosen, cv_scores=[0.58, 0.6, 0.57],
        grid=[GridPointResult({"k": 0, "instruction": 0}, [0.5, 0.52, 0.49], 0.503, 0.012, 30.0),
              GridPointResult(chosen, [0.58, 0.6, 0.57], 0.583, 0.012, 45.0)],
        test=test, predictions=[int(p) for p in predictions], probabilities=probabilities.tolist(),
        seconds={"tuning": 75.0, "final_fit": 0.1, "predict": 20.0, "total": 95.1}, artefact=artefact)


def with_codebook_model(result: ExperimentResult, folder=None, **options) -> ExperimentResult:  # noqa: ANN001
    """A copy of ``result`` with a codebook model added after its models."""
    shown = copy.deepcopy(result)
    shown.models.append(codebook_model(shown, folder, **options))
    return shown
