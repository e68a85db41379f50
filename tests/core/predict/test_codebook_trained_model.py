"""A saved language model with your codebook opens as a trained model: the same answers as before it
was saved, its saved thresholds where a text can have several categories, new texts predicted in
small chunks with progress, and, when its language model cannot be reached, a message in words when
it is opened or used — never a traceback."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Progress
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import CodebookModel, OnServer, release_language_model
from guiapp.core.predict.codebook_trained_model import CodebookTrainedModel
from guiapp.core.predict.new_texts import predict_new_texts
from guiapp.core.predict.open_model import open_trained_model
from tests.core.predict.codebook_samples import NAMES, TEST, TRAIN, saved_codebook, tiny_lm


@pytest.fixture(scope="module")
def lm_folder(tmp_path_factory) -> str:
    return str(tiny_lm(tmp_path_factory.mktemp("codebook-lm")))


@pytest.fixture(autouse=True)
def fresh_models():
    codebook_model_module._OPENED.clear()
    yield
    release_language_model()


def test_a_saved_model_opens_and_answers_as_before_saving(lm_folder, tmp_path):
    model = saved_codebook(tmp_path / "saved", lm_folder)
    before = model.predict_proba(TEST)
    opened = open_trained_model(tmp_path / "saved", "Codebook language model (tiny)")
    assert isinstance(opened, CodebookTrainedModel) and opened.family == "codebook_llm"
    assert opened.categories == NAMES and not opened.multi_label and opened.name == "Codebook language model (tiny)"
    decisions, probabilities = opened.answer(TEST)
    np.testing.assert_allclose(probabilities, before, atol=1e-12)
    assert decisions.tolist() == before.argmax(axis=1).tolist()
    assert opened.title.startswith("Language model with your codebook (") and "k = 1" in opened.title
    assert opened.tokenizer is None and opened.max_tokens is None  # the language model opens only to answer


def test_several_categories_per_text_use_the_saved_thresholds(lm_folder, tmp_path):
    model = saved_codebook(tmp_path / "saved", lm_folder, multi_label=True, thresholds=[0.0, 1.0, 0.5])
    opened = open_trained_model(tmp_path / "saved")
    assert opened.multi_label and opened.thresholds.tolist() == [0.0, 1.0, 0.5]
    decisions, probabilities = opened.answer(TEST)
    np.testing.assert_allclose(probabilities, model.predict_proba(TEST), atol=1e-12)
    assert decisions.shape == (len(TEST), 3)
    assert decisions[:, 0].all() and not decisions[:, 1].any()  # P(yes) ≥ 0 always; never ≥ 1
    assert decisions[:, 2].tolist() == (probabilities[:, 2] >= 0.5).astype(int).tolist()
    saved_codebook(tmp_path / "plain", lm_folder, multi_label=True)
    assert open_trained_model(tmp_path / "plain").thresholds.tolist() == [0.5, 0.5, 0.5]  # none saved: one half


def test_new_texts_are_predicted_in_small_chunks_with_progress(lm_folder, tmp_path):
    saved_codebook(tmp_path / "saved", lm_folder)
    opened = open_trained_model(tmp_path / "saved", "LLM")
    texts = [TEST[i % len(TEST)] for i in range(opened.chunk_size * 2 + 3)] + ["   "]
    events = []
    found = predict_new_texts([opened], texts, on_event=events.append)
    predictions = found.predictions[0]
    assert predictions.n_empty == 1 and predictions.predicted[:-1].tolist() == \
        opened.answer(texts[:-1])[0].tolist()
    counted = [event.done for event in events if isinstance(event, Progress) and event.done]
    assert opened.chunk_size in counted and opened.chunk_size * 2 in counted  # progress after every chunk


def test_a_new_text_among_the_examples_is_answered_not_refused(lm_folder, tmp_path):
    model = saved_codebook(tmp_path / "saved", lm_folder)
    example = model.examples[0].text
    opened = open_trained_model(tmp_path / "saved")
    decisions, probabilities = opened.answer([TEST[0], example])
    np.testing.assert_allclose(probabilities[0], model.predict_proba([TEST[0]])[0], atol=1e-12)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    assert opened.among_examples == 1 and example in TRAIN
    found = predict_new_texts([opened], [example, TEST[1], example])
    assert found.predictions[0].n_empty == 0 and opened.among_examples == 2
    assert found.warnings == [f"{opened.name}: 2 of the new texts are among the examples the language model was "
                              "shown with your coding, so its answers for them largely repeat your coding."]


def test_a_language_model_folder_that_was_moved_is_said_in_words(tmp_path):
    lm = tiny_lm(tmp_path / "lm")
    saved_codebook(tmp_path / "saved", lm)
    shutil.move(lm, tmp_path / "elsewhere")
    with pytest.raises(UserError, match="no longer there") as caught:
        open_trained_model(tmp_path / "saved", "My LLM")
    assert "“My LLM”" in caught.value.message and "Put the language model's folder back" in caught.value.hint


def test_other_weights_in_the_folder_are_refused_when_the_model_answers(tmp_path):
    lm = tiny_lm(tmp_path / "lm", seed=0)
    model = saved_codebook(tmp_path / "saved", lm)
    model.predict_proba(TEST[:1])
    model.save(tmp_path / "saved")  # the weights' SHA-256 is recorded once the model has answered
    tiny_lm(lm, seed=1)
    codebook_model_module._OPENED.clear()
    opened = open_trained_model(tmp_path / "saved")
    with pytest.raises(UserError, match="weight files differ"):
        opened.answer(TEST[:1])


def test_a_hub_model_that_is_not_here_is_not_downloaded(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    model = CodebookModel([("a", "", ()), ("b", "", ())],
                          codebook_model_module.InTextLab("someone/not-downloaded-model", "cpu"))
    unreachable(model)  # saving must not open (download) the model
    model.save(tmp_path / "saved")
    with pytest.raises(UserError, match="not on this computer") as caught:
        open_trained_model(tmp_path / "saved", "Hub LLM")
    assert "Download it first" in caught.value.hint


def test_a_damaged_file_and_a_server_without_consent_are_refused_in_words(tmp_path):
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "codebook_model.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(UserError, match="“Damaged” cannot be used"):
        open_trained_model(tmp_path / "damaged", "Damaged")
    model = CodebookModel([("a", "", ()), ("b", "", ())],
                          OnServer("http://192.0.2.7:11434", "ollama", "llama3.2", texts_may_leave_computer=True))
    unreachable(model)
    model.save(tmp_path / "remote")
    path = tmp_path / "remote" / "codebook_model.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"texts_may_leave_computer": true',
                                                             '"texts_may_leave_computer": false'), encoding="utf-8")
    with pytest.raises(UserError) as caught:
        open_trained_model(tmp_path / "remote", "Remote")
    assert "sent to another computer" in str(caught.value) and "Traceback" not in str(caught.value)


def test_a_server_that_is_down_is_said_when_the_model_answers(tmp_path):
    import socket

    with socket.socket() as probe:  # a port on this computer where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = CodebookModel([("a", "", ()), ("b", "", ())],
                          OnServer(f"http://127.0.0.1:{port}", "openai", "tiny", timeout=2))
    unreachable(model)
    model.save(tmp_path / "down")
    opened = open_trained_model(tmp_path / "down", "Server LLM")
    assert opened.runs_on_server
    with pytest.raises(UserError) as caught:
        opened.answer(["A text."])
    assert "Traceback" not in str(caught.value) and caught.value.hint


def unreachable(model: CodebookModel) -> None:
    """Let ``model`` be saved without opening its language model or asking its server (a model that
    cannot be reached, saved only to test how it is refused later)."""
    model.model_record = lambda: {"runs": "elsewhere", "model": model.runs.model}  # type: ignore[method-assign]
