"""A language model with your codebook, end to end: inside TextLab on a tiny random causal LM built
here, and on the test language-model server (a real HTTP process on 127.0.0.1); fitting draws only
the examples, saving writes JSON that opens again to the same answers."""

from __future__ import annotations

import dataclasses
import json
import pickle

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import (
    CodebookModel,
    InTextLab,
    OnServer,
    load_codebook_model,
    release_language_model,
)
from guiapp.core.models.llm.codebook_prompt import (
    INSTRUCTIONS,
    ONE_CATEGORY_FORMAT,
    YES_NO_FORMAT,
)
from guiapp.core.models.llm.model_file import (
    CODEBOOK_MODEL_FILE,
    is_codebook_model_folder,
)
from guiapp.core.models.llm.prompt_examples import ExampleAmongScoredTexts
from tests.core.models.llm.test_server_client import MODEL, chat_server, served  # noqa: F401 (a fixture)

CODEBOOK = [("economy", "jobs, prices, taxes and trade", ("Taxes rose again.",)),
            ("health", "doctors, hospitals and illness", ()),
            ("sport", "football, games and athletes", ())]
NAMES = [name for name, _, _ in CODEBOOK]
TRAIN = ["Prices and taxes rose.", "The team won the match.", "Doctors at the hospital.", "Trade and jobs fell.",
         "The football games ended.", "Illness spread in the hospital.", "Taxes on trade.", "Athletes won games."]
TRAIN_LABELS = ["economy", "sport", "health", "economy", "sport", "health", "economy", "sport"]
TRAIN_ROWS = [10, 11, 12, 13, 14, 15, 16, 17]
TEST = ["The hospital hired doctors to treat the illness.", "Taxes and prices rise while jobs are lost.",
        "The football team won the games.", "Nothing here names any of them."]


def tiny_lm(folder, seed: int = 0):
    """A tiny random GPT-2 that reads 1,024 tokens, over a word-level tokenizer that knows the
    prompt's words (the shared tiny model reads only 64, too few for a codebook prompt)."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    split = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    source = " ".join([*INSTRUCTIONS, ONE_CATEGORY_FORMAT, YES_NO_FORMAT, *TRAIN, *TEST, *NAMES,
                       *(d for _, d, _ in CODEBOOK),
                       "Categories Example of Text Category Answer Does this text belong to the category “ ” yes no"])
    words = sorted({word for word, _ in split.pre_tokenize_str(source)})
    vocab = {token: index for index, token in enumerate(["<unk>", "<pad>", "<eos>", *words])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = split
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(vocab), n_positions=1024, n_embd=16, n_layer=2, n_head=2,
                        bos_token_id=2, eos_token_id=2, pad_token_id=1)
    GPT2LMHeadModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def lm_folder(tmp_path_factory) -> str:
    return str(tiny_lm(tmp_path_factory.mktemp("codebook-lm")))


def here(lm_folder: str, **options) -> CodebookModel:
    return CodebookModel(CODEBOOK, InTextLab(lm_folder, device="cpu", batch_size=3), **options)


def on_server(url: str, protocol: str = "openai", **options) -> CodebookModel:
    runs = OnServer(url, protocol, MODEL[protocol], temperature=options.pop("temperature", 0.0),
                    samples=options.pop("samples", 3), timeout=10)
    return CodebookModel(CODEBOOK, runs, **options)


def biased(model: CodebookModel, word: str, amount: float = 30.0) -> None:
    """Raise the logit of ``word``'s token in the (shared, kept) opened model's output layer."""
    import torch

    causal = model.causal_model()
    head = causal.model.get_output_embeddings()
    new = torch.nn.Linear(head.in_features, head.out_features, bias=True)
    with torch.no_grad():
        new.weight.copy_(head.weight)
        new.bias.zero_()
        new.bias[causal.tokenizer.convert_tokens_to_ids(word)] = amount
    causal.model.set_output_embeddings(new)


@pytest.fixture()
def fresh_models():
    """Every test here opens its tiny model anew (one test changes the opened model's output layer)."""
    codebook_model_module._OPENED.clear()
    yield
    release_language_model()


def test_in_textlab_probabilities_sum_to_one_over_exactly_the_categories(lm_folder, fresh_models):
    model = here(lm_folder, k=1, seed=4).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    probabilities = model.predict_proba(TEST)
    assert probabilities.shape == (len(TEST), len(NAMES)) and np.all(probabilities > 0)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-12)
    assert model.categories == NAMES and model.predict_proba([]).shape == (0, 3)
    again = here(lm_folder, k=1, seed=4).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    assert again.causal_model() is model.causal_model()  # opened once, kept for the next fold's model
    biased(model, "sport")
    assert list(model.predict_proba(TEST).argmax(axis=1)) == [2] * len(TEST)


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_on_a_server_probabilities_sum_to_one_over_exactly_the_categories(protocol, served):  # noqa: F811
    with chat_server(served) as url:
        model = on_server(url, protocol)
        probabilities = model.predict_proba(TEST[:3])
        record = model.record()
    assert probabilities.shape == (3, 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    assert list(probabilities.argmax(axis=1)) == [1, 0, 2]  # the test server's words point to them
    assert model.outside.outside == 0 and model.outside.asked == 3
    assert record["server_model"] == MODEL[protocol] and record["texts_leave_computer"] is False
    assert record["on_this_computer"] is True and record["temperature"] == 0.0 and record["samples"] == 3
    if protocol == "ollama":
        assert record["server_model_digest"].startswith("sha256:") and record["quantization"] == "none"


def test_answers_outside_the_categories_are_counted_not_mapped(served):  # noqa: F811
    with chat_server(served, "--outside", "--no-logprobs") as url:
        model = on_server(url, "ollama", samples=2, temperature=0.7)
        probabilities = model.predict_proba(TEST[:2])
    np.testing.assert_allclose(probabilities, 1 / 3)  # no answer named a category: no information
    assert (model.outside.asked, model.outside.outside, model.unanswered) == (4, 4, 2)
    assert "something else" in model.outside.note()
    assert model.record()["outside_answers"]["outside"] == 4


def test_fit_draws_only_from_the_training_texts_and_a_text_among_the_examples_is_refused(lm_folder, fresh_models):
    model = here(lm_folder, k=2, seed=1)
    with pytest.raises(UserError, match="not been drawn"):
        model.predict_proba(TEST)
    model.fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    assert len(model.examples) == 6 and {e.text for e in model.examples} <= set(TRAIN)
    assert {e.position for e in model.examples} <= set(TRAIN_ROWS)
    for name in NAMES:
        assert sum(name in e.categories for e in model.examples) == 2
    shown = model.examples[0]
    with pytest.raises(ExampleAmongScoredTexts):
        model.predict_proba([TEST[0], "  " + shown.text])
    with pytest.raises(ExampleAmongScoredTexts, match=f"row {shown.position + 1}"):
        model.predict_proba(["another text"], positions=[shown.position])
    assert model.predict_proba(TEST, positions=[0, 1, 2, 3]).shape == (4, 3)
    # a training text that is also scored is not drawn when the scored texts are named
    kept = here(lm_folder, k=8, seed=1).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS, scored_texts=[TRAIN[0]])
    assert TRAIN[0] not in {e.text for e in kept.examples} and len(kept.examples) == 7
    # category numbers, as the study holds them, name the categories
    numbered = here(lm_folder, k=2, seed=1).fit(TRAIN, [NAMES.index(n) for n in TRAIN_LABELS], TRAIN_ROWS)
    assert numbered.examples == model.examples
    assert here(lm_folder, k=0).fit(TRAIN, TRAIN_LABELS).examples == ()


def test_the_same_seed_gives_the_same_examples_and_answers(lm_folder, fresh_models):
    first = here(lm_folder, k=1, seed=7).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    second = here(lm_folder, k=1, seed=7).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    assert first.examples == second.examples
    np.testing.assert_array_equal(first.predict_proba(TEST), second.predict_proba(TEST))
    assert first.record()["prompt_sha256"] == second.record()["prompt_sha256"]
    others = [here(lm_folder, k=1, seed=seed).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS).examples for seed in range(8)]
    assert len(set(others)) > 1  # another seed, other examples


def test_save_and_load_give_the_same_probabilities_and_the_record(lm_folder, tmp_path, fresh_models):
    model = here(lm_folder, k=1, seed=3, instruction=1).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    before = model.predict_proba(TEST)
    model.save(tmp_path / "saved")
    assert is_codebook_model_folder(tmp_path / "saved")
    loaded = load_codebook_model(tmp_path / "saved")
    np.testing.assert_array_equal(loaded.predict_proba(TEST), before)
    assert loaded.examples == model.examples and loaded.instruction_variant == 1
    record = loaded.record()
    assert record["prompt_sha256"] == model.prompt.template_sha256() and len(record["prompt_sha256"]) == 64
    assert (record["k"], record["seed"], record["instruction"]) == (1, 3, INSTRUCTIONS[1])
    assert record["example_positions"] == [e.position for e in model.examples]
    assert record["weights_sha256"] == model.causal_model().weights_sha256
    assert record["texts_leave_computer"] is False and record["temperature"] is None
    assert "{text}" in record["prompt_template"]["prompts"][0]
    saved = json.loads((tmp_path / "saved" / CODEBOOK_MODEL_FILE).read_text(encoding="utf-8"))
    assert saved["examples"][0]["text"] == model.examples[0].text and saved["runs"]["where"] == "textlab"
    assert loaded.thresholds is None and saved["thresholds"] is None


def test_the_decision_thresholds_are_saved_and_a_wrong_count_is_refused(lm_folder, tmp_path, fresh_models):
    model = here(lm_folder, multi_label=True)
    model.save(tmp_path / "saved", thresholds=[0.3, 0.6, 0.5][:len(model.categories)])
    assert load_codebook_model(tmp_path / "saved").thresholds == [0.3, 0.6, 0.5][:len(model.categories)]
    with pytest.raises(ValueError, match="decision thresholds"):  # never written: the file is checked first
        model.save(tmp_path / "other", thresholds=[0.5] * (len(model.categories) + 1))


def test_a_saved_model_refuses_other_weights(lm_folder, tmp_path, fresh_models):
    folder = tiny_lm(tmp_path / "lm", seed=0)
    model = here(str(folder))
    model.predict_proba(TEST[:1])
    model.save(tmp_path / "saved")
    tiny_lm(folder, seed=1)  # the model's files replaced by another model's
    codebook_model_module._OPENED.clear()
    with pytest.raises(UserError, match="not the one this model was saved with"):
        load_codebook_model(tmp_path / "saved").predict_proba(TEST[:1])


def test_a_server_model_saved_and_loaded_asks_the_same(served, tmp_path):  # noqa: F811
    with chat_server(served) as url:
        model = on_server(url, "openai", k=1, seed=2).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
        before = model.predict_proba(TEST)
        model.save(tmp_path / "saved")
        loaded = load_codebook_model(tmp_path / "saved")
        np.testing.assert_allclose(loaded.predict_proba(TEST), before, atol=1e-12)
    assert isinstance(loaded.runs, OnServer) and loaded.runs == model.runs


def test_a_damaged_or_foreign_file_is_refused_in_words(lm_folder, tmp_path, fresh_models):
    model = here(lm_folder, k=1, seed=3).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    model.save(tmp_path / "good")
    good = json.loads((tmp_path / "good" / CODEBOOK_MODEL_FILE).read_text(encoding="utf-8"))

    def refused(content: bytes | dict, match: str) -> None:
        folder = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        raw = content if isinstance(content, bytes) else json.dumps(content).encode()
        (folder / CODEBOOK_MODEL_FILE).write_bytes(raw)
        with pytest.raises(UserError, match=match) as error:
            load_codebook_model(folder)
        assert "cannot be opened" in error.value.message and error.value.hint

    refused(b"{not json", "cannot be opened")
    refused(pickle.dumps({"a": 1}), "cannot be opened")  # never unpickled
    refused({**good, "format": "textlab-zero-shot"}, "not a language model with a codebook")
    refused({**good, "version": 99}, "newer TextLab")
    refused({**good, "categories": "economy"}, "codebook")
    refused({**good, "examples": [{"text": "x", "categories": ["politics"], "position": 1}]}, "examples")
    refused({**good, "runs": {"where": "cloud", "model": "m"}}, "where the language model runs")
    refused({**good, "k": -1}, "number of examples")
    edited = dict(good, categories=[dict(good["categories"][0], definition="anything at all"), *good["categories"][1:]])
    refused(edited, "hash differs")
    refused({**good, "categories": [{"name": "a", "definition": "", "examples": []}] * 2,
             "examples": []}, "cannot be opened")
    with pytest.raises(UserError, match="holds no language model"):
        load_codebook_model(tmp_path / "empty")


def test_several_categories_per_text_give_p_yes_per_category(lm_folder, served, fresh_models):  # noqa: F811
    labels = [{"economy", "sport"} if index % 3 == 0 else {TRAIN_LABELS[index]} for index in range(len(TRAIN))]
    rows = np.array([[name in label for name in NAMES] for label in labels], dtype=np.uint8)
    model = here(lm_folder, k=1, seed=5, multi_label=True).fit(TRAIN, rows, TRAIN_ROWS)
    assert model.multi_label and any(len(e.categories) == 2 for e in model.examples)
    assert model.examples == here(lm_folder, k=1, seed=5, multi_label=True).fit(TRAIN, labels, TRAIN_ROWS).examples
    probabilities = model.predict_proba(TEST)
    assert probabilities.shape == (len(TEST), 3) and np.all((probabilities > 0) & (probabilities < 1))
    assert not np.allclose(probabilities.sum(axis=1), 1.0)  # each category its own question
    biased(model, "yes")
    assert np.all(model.predict_proba(TEST) > 0.99)
    with chat_server(served) as url:
        asked = on_server(url, "openai", multi_label=True)
        answers = asked.predict_proba(TEST[:2])
    assert answers.shape == (2, 3) and np.all((answers >= 0) & (answers <= 1))
    assert asked.outside.asked == 6 and asked.outside.outside == 0


def test_where_it_runs_is_checked_in_words():
    with pytest.raises(UserError, match="not this computer"):
        CodebookModel(CODEBOOK, OnServer("http://192.168.1.20:11434", "ollama", "m"))
    remote = CodebookModel(CODEBOOK, OnServer("http://192.168.1.20:11434", "ollama", "m", texts_may_leave_computer=True))
    assert remote.texts_leave_computer
    for wrong, match in ((OnServer("127.0.0.1", "grpc", "m"), "server kind"),
                         (OnServer("127.0.0.1", "ollama", "m", temperature=5), "temperature"),
                         (OnServer("127.0.0.1", "ollama", "m", samples=0), "samples"),
                         (InTextLab(" "), "No language model"), ("somewhere", "where the language model runs")):
        with pytest.raises(UserError, match=match):
            CodebookModel(CODEBOOK, wrong)
    with pytest.raises(UserError, match="instruction number"):
        CodebookModel(CODEBOOK, InTextLab("x"), instruction=7)
    assert CodebookModel(CODEBOOK, dataclasses.replace(InTextLab("x"), batch_size=2), instruction="Code it.").prompt.instruction == "Code it."
    assert CodebookModel(CODEBOOK, InTextLab("/models/qwen-0.5b")).title == \
        "Language model with your codebook (qwen-0.5b, k = 0)"


def test_cancel_stops_the_model_between_batches_on_both_paths(lm_folder, served, fresh_models):  # noqa: F811
    def cancel_at(done: int):
        def on_event(event) -> None:
            if isinstance(event, Progress) and event.done == done:
                raise Cancelled
        return on_event

    with pytest.raises(Cancelled):
        here(lm_folder).predict_proba(TEST * 3, cancel_at(3))  # after the first batch of three
    with chat_server(served) as url:
        with pytest.raises(Cancelled):
            on_server(url).predict_proba(TEST, cancel_at(1))
        from tests.core.models.llm.test_server_client import chat_requests

        assert chat_requests(url) == 1
