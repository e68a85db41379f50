"""A model folder that asks to run its own program code is refused in words and never runs it.

The case: a saved model whose sentence embeddings name a folder of a standard model type whose
tokenizer configuration points (``auto_map``) at a Python file that would write a marker file.
Transformers' own answer to such a folder, unless told ``trust_remote_code=False``, is to ask on
the console "Do you wish to run the custom code? [y/N]" — here every such question is answered
"y", as a user might, so a load that asks runs the file and the marker appears.
"""

from __future__ import annotations

import builtins
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import UserError

pytest.importorskip("transformers")

TEXTS = ["tax cut for the budget", "army and navy", "nurse in the hospital", "budget tax",
         "the navy army", "hospital nurse care", "tax budget bill", "army bill"]


class Questions:
    """Stands in for the user at the console: answers "y" and remembers that it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        self.asked.append(str(prompt))
        return "y"


@pytest.fixture
def console(monkeypatch) -> Questions:
    questions = Questions()
    monkeypatch.setattr(builtins, "input", questions)

    class NoStdin:
        def read(self, *args):  # pragma: no cover - only reached by a load that asks
            questions.asked.append("stdin.read")
            return "y\n"

        readline = read

    monkeypatch.setattr(sys, "stdin", NoStdin())
    return questions


def _tiny_model(folder: Path) -> Path:
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    tokenizer = tiny_tokenizer(folder, sorted({word for text in TEXTS for word in text.split()}))
    return save_tiny_bert(folder, tokenizer)


def _ask_for_code(folder: Path, marker: Path, where: str = "tokenizer_config.json") -> None:
    """Make ``folder`` a model of a type Transformers knows (ViT: no tokenizer of its own) whose
    ``where`` maps the tokenizer and model to ``payload.py``, which writes ``marker`` when imported."""
    (folder / "payload.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('the payload ran')\n"
        "from transformers import BertTokenizerFast, BertModel\n"
        "class Tokenizer(BertTokenizerFast):\n    pass\n"
        "class Model(BertModel):\n    pass\n",
        encoding="utf-8",
    )
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config["model_type"] = "vit"
    tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    tokenizer_config.pop("tokenizer_class", None)
    target = tokenizer_config if where == "tokenizer_config.json" else config
    target["auto_map"] = {"AutoTokenizer": ["payload.Tokenizer", "payload.Tokenizer"], "AutoModel": "payload.Model"}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config), encoding="utf-8")


@pytest.fixture
def saved_with_embeddings(tmp_path, monkeypatch):
    """A saved conventional model whose sentence embeddings come from a tiny model folder."""
    from guiapp.core.experiment.protocol import fitting
    from guiapp.core.experiment.families.conventional_files import save_conventional
    from guiapp.core.features import sentence_embeddings
    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings

    monkeypatch.setattr(sentence_embeddings, "_MODELS", {})  # loaded models are kept per process
    language_model = _tiny_model(tmp_path / "language model")
    representation = SentenceEmbeddings(model=str(language_model))
    X = representation.fit(TEXTS).transform(TEXTS)
    y = np.arange(len(TEXTS)) % 2
    classifier = fitting.fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, X, y)
    save_conventional(tmp_path / "trained", representation, classifier, ["economy", "defence"], {})
    sentence_embeddings._MODELS.clear()
    return tmp_path / "trained", language_model


@pytest.mark.parametrize("where", ["tokenizer_config.json", "config.json"])
def test_predicting_with_a_model_that_asks_for_its_own_code_is_refused_in_words(
        saved_with_embeddings, tmp_path, console, where):
    from guiapp.core.predict.open_model import open_trained_model

    trained, language_model = saved_with_embeddings
    marker = tmp_path / "marker"
    _ask_for_code(language_model, marker, where)
    model = open_trained_model(trained, "SVM · sentence embeddings")
    with pytest.raises(UserError) as caught:
        model.answer(["a new text about the navy"])
    assert "program code" in caught.value.message and "never runs" in caught.value.message
    assert where in caught.value.message
    assert console.asked == [] and not marker.exists()


def test_every_load_refuses_such_code_even_without_the_check_in_words(tmp_path, console, monkeypatch):
    """The loads themselves pass ``trust_remote_code=False``: with the plain refusal switched off,
    Transformers still refuses (an error, turned into words) instead of asking."""
    from guiapp.core.features import sentence_embeddings
    from guiapp.core.models.transformers.sources import files, folders

    monkeypatch.setattr(sentence_embeddings, "_MODELS", {})
    for module in (files, folders):
        monkeypatch.setattr(module, "refuse_custom_code", lambda folder: None)
    folder = _tiny_model(tmp_path / "model")
    marker = tmp_path / "marker"
    _ask_for_code(folder, marker)
    with pytest.raises(UserError):
        sentence_embeddings.load_model(str(folder))
    with pytest.raises(UserError):
        files.load_tokenizer(folder, True)
    _ask_for_code(folder, marker, "config.json")
    with pytest.raises(UserError):
        files.load_pretrained(folder, 2, 0.1)
    assert console.asked == [] and not marker.exists()


def test_a_fine_tuned_model_folder_that_asks_for_code_is_refused(tmp_path, console):
    from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned, save_fine_tuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from guiapp.core.predict.open_model import open_trained_model
    from tests.tiny_bert import tiny_bert, tiny_tokenizer

    tokenizer = tiny_tokenizer(tmp_path / "vocab", ["tax", "army"])
    model = FineTuned(tiny_bert(len(tokenizer), 2), tokenizer, DeviceInfo("cpu", "CPU"), FineTuneSettings(device="cpu"))
    folder = tmp_path / "Fine-tuned"
    save_fine_tuned(model, folder, ["economy", "defence"])
    marker = tmp_path / "marker"
    _ask_for_code(folder, marker)
    with pytest.raises(UserError, match="program code"):
        open_trained_model(folder)
    assert console.asked == [] and not marker.exists()
