"""The language-model server client against a real HTTP server process (chat_test_server.py) on
127.0.0.1 that speaks the OpenAI-compatible and Ollama chat APIs; plus the address checks."""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.models.llm.category_answers import read_answer
from guiapp.core.models.llm.codebook_prompt import CodebookPrompt
from guiapp.core.models.llm.server_address import check_server_address, is_loopback_host
from guiapp.core.models.llm.server_client import ServerClient

SERVER = Path(__file__).with_name("chat_test_server.py")
CATEGORIES = ["economy", "health", "sport"]
DEFINITIONS = {"economy": "jobs, prices, taxes and trade", "health": "doctors, hospitals and illness",
               "sport": "football, games and athletes"}
TEXTS = {"economy": "Taxes and prices rise while jobs are lost.",
         "health": "The hospital hired doctors to treat the illness.",
         "sport": "The football team won the games."}
MODEL = {"openai": "tiny-gpt2", "ollama": "tiny-gpt2:latest"}


PROMPT = CodebookPrompt.build([(name, DEFINITIONS[name], ()) for name in CATEGORIES])
SCHEMA = PROMPT.answer_schema()


def conversation(text: str) -> list[dict[str, str]]:
    return PROMPT.messages(text)


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The address of one test server process for this file (a tiny GPT-2: built once, in seconds);
    it is stopped at the end."""
    process = subprocess.Popen([sys.executable, str(SERVER), "--model", "gpt2", "--seed", "3"],
                               stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("PORT "), f"the test server did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()


@contextmanager
def chat_server(url: str, *switches: str) -> Iterator[str]:
    """The test server at ``url`` with ``switches`` on (e.g. "--slow", "3") and its request count at
    0; every switch is off again at the end."""
    settings: dict[str, object] = {}
    for switch in switches:
        if switch.startswith("--"):
            settings[switch[2:].replace("-", "_")] = True
        else:
            settings[next(reversed(settings))] = float(switch)
    set_switches(url, settings)
    try:
        yield url
    finally:
        set_switches(url, {})


def set_switches(url: str, settings: dict[str, object]) -> None:
    request = urllib.request.Request(url + "/test/switches", data=json.dumps(settings).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=5) as reply:
        assert reply.status == 200


def client(url: str, protocol: str, timeout: float = 10.0) -> ServerClient:
    return ServerClient(check_server_address(url, protocol), protocol, MODEL[protocol], timeout=timeout)


def chat_requests(url: str) -> int:
    with urllib.request.urlopen(url + "/test/requests", timeout=5) as reply:
        return json.load(reply)["requests"]


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_round_trip_with_schema_and_log_probabilities(protocol: str, served: str) -> None:
    with chat_server(served) as url:
        server = client(url, protocol)
        answers = server.answer_texts([conversation(text) for text in TEXTS.values()], CATEGORIES, SCHEMA, samples=5)
        assert chat_requests(url) == 3  # log-probabilities came back: one request per text, no samples
    for expected, answer in zip(TEXTS, answers):
        assert answer.support.structured_output and answer.support.logprobs
        assert len(answer.raw) == 1 and json.loads(answer.raw[0]) == {"category": expected}
        assert read_answer(answer.raw[0], CATEGORIES) == expected
        assert set(answer.probabilities) == set(CATEGORIES) and answer.covered > 0.999
        assert math.isclose(sum(answer.probabilities.values()), 1.0, rel_tol=1e-9)
        assert max(answer.probabilities, key=answer.probabilities.get) == expected
        assert answer.model == MODEL[protocol]


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_the_schema_sent_holds_the_categories_as_an_enum(protocol: str, monkeypatch) -> None:
    sent = []
    server = ServerClient(check_server_address("http://127.0.0.1:9", protocol), protocol, "m")
    monkeypatch.setattr(server, "_request", lambda path, body=None: sent.append((path, body)) or {})
    with pytest.raises(UserError):
        server.ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA, seed=7, temperature=0.5)
    path, body = sent[0]
    schema = body["response_format"]["json_schema"]["schema"] if protocol == "openai" else body["format"]
    assert schema["properties"]["category"]["enum"] == CATEGORIES and schema["required"] == ["category"]
    settings = body if protocol == "openai" else body["options"]
    assert (settings["seed"], settings["temperature"]) == (7, 0.5)
    # an answer is cut off after room for the longest category as JSON: a model that never stops costs little
    limit = settings["max_tokens"] if protocol == "openai" else settings["num_predict"]
    assert max(map(len, CATEGORIES)) * 3 < limit <= 32 + 3 * max(map(len, CATEGORIES))
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert path == ("/v1/chat/completions" if protocol == "openai" else "/api/chat")


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_without_structured_output_or_log_probabilities_samples_give_the_shares(protocol: str, served: str) -> None:
    with chat_server(served, "--no-structured", "--no-logprobs") as url:
        server = client(url, protocol)
        answer = server.ask(conversation(TEXTS["health"]), CATEGORIES, SCHEMA, temperature=0.7, seed=3, samples=4)
        second = server.ask(conversation(TEXTS["health"]), CATEGORIES, SCHEMA, temperature=0.7, seed=3, samples=4)
    assert not answer.support.structured_output and not answer.support.logprobs
    assert answer.probabilities is None and answer.tokens == ()
    assert len(answer.raw) == 4 and all(read_answer(raw, CATEGORIES) in CATEGORIES for raw in answer.raw)
    assert answer.raw.count("health") >= 3  # the words point clearly to health
    assert second.raw == answer.raw  # the same seed gives the same samples


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_a_server_without_structured_output_still_gives_log_probabilities(protocol: str, served: str) -> None:
    with chat_server(served, "--no-structured") as url:
        server = client(url, protocol)
        conversations = [conversation(TEXTS["economy"]), conversation(TEXTS["sport"])]
        answers = server.answer_texts(conversations, CATEGORIES, SCHEMA)
        # refused with the schema and log-probabilities, refused with the schema alone (OpenAI-compatible:
        # the same in llama.cpp's json_object form too), then twice plain
        assert chat_requests(url) == (6 if protocol == "openai" else 4)
    assert [answer.raw for answer in answers] == [("economy",), ("sport",)]
    assert all(not a.support.structured_output and a.support.logprobs for a in answers)
    assert max(answers[1].probabilities, key=answers[1].probabilities.get) == "sport"
    assert set(answers[0].probabilities) == set(CATEGORIES)


def test_structured_output_without_log_probabilities_falls_back_to_samples(served: str) -> None:
    with chat_server(served, "--no-logprobs") as url:
        answer = client(url, "openai").ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA, samples=3)
    assert answer.support.structured_output and not answer.support.logprobs
    assert [read_answer(raw, CATEGORIES) for raw in answer.raw] == ["sport"] * 3


def test_answers_outside_the_categories_are_kept_not_mapped(served: str) -> None:
    with chat_server(served, "--outside", "--no-logprobs") as url:
        answer = client(url, "ollama").ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA, samples=2)
    assert len(answer.raw) == 2 and all(read_answer(raw, CATEGORIES) is None for raw in answer.raw)
    assert "something else" in answer.raw[0]


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_model_list_and_reported_name(protocol: str, served: str) -> None:
    with chat_server(served) as url:
        server = client(url, protocol)
        models = server.list_models()
        record = server.model_record()
    assert [model.name for model in models] == [MODEL[protocol]]
    if protocol == "ollama":
        assert models[0].digest.startswith("sha256:") and record["server_model_digest"] == models[0].digest
        assert models[0].details["details"]["quantization_level"] == "none"
    assert record["server_model"] == MODEL[protocol] and record["on_this_computer"] is True
    assert record["texts_leave_computer"] is False


def test_addresses_on_this_computer_and_elsewhere() -> None:
    assert check_server_address("127.0.0.1", "ollama").url == "http://127.0.0.1:11434"
    assert check_server_address("localhost", "openai").port == 8080
    assert check_server_address("http://[::1]:9000").url == "http://[::1]:9000"
    assert check_server_address("127.5.6.7:1234").on_this_computer
    assert is_loopback_host("localhost") and not is_loopback_host("0.0.0.0")
    for remote in ("http://192.168.1.20:11434", "http://example.org:8080", "10.0.0.1", "http://0.0.0.0:80"):
        with pytest.raises(UserError, match="not this computer") as refused:
            check_server_address(remote)
        assert "texts leave this computer" in refused.value.hint
    accepted = check_server_address("http://192.168.1.20:11434", texts_may_leave_computer=True)
    assert accepted.record() == {"server_address": "http://192.168.1.20:11434", "on_this_computer": False,
                                 "texts_leave_computer": True}
    for wrong in ("", "ftp://127.0.0.1:21", "http://127.0.0.1:99999", "http://127.0.0.1:8080/v1", "http://:80"):
        with pytest.raises(UserError):
            check_server_address(wrong)


def test_a_server_that_is_down() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for protocol, advice in (("openai", "Start the server"), ("ollama", "ollama serve")):
        with pytest.raises(UserError, match="No language-model server answers") as down:
            client(f"http://127.0.0.1:{port}", protocol).list_models()
        assert advice in down.value.hint and "check the address" in down.value.hint


def test_a_slow_server_hits_the_timeout(served: str) -> None:
    with chat_server(served, "--slow", "3") as url:
        started = time.monotonic()
        with pytest.raises(UserError, match="did not answer within 0.5 seconds") as slow:
            client(url, "openai", timeout=0.5).ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA)
        assert time.monotonic() - started < 2.5
    assert "smaller model" in slow.value.hint


@pytest.mark.parametrize("switch, message", [("--fail", r"answered with an error \(500"),
                                             ("--garbage", "not JSON")])
def test_server_errors_are_said_in_plain_words(switch: str, message: str, served: str) -> None:
    with chat_server(served, switch) as url, pytest.raises(UserError, match=message) as failed:
        client(url, "ollama").ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA)
    assert failed.value.hint


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_a_model_the_server_does_not_offer(protocol: str, served: str) -> None:
    with chat_server(served) as url:
        server = ServerClient(check_server_address(url, protocol), protocol, "no-such-model", timeout=10)
        with pytest.raises(UserError, match="no-such-model") as unknown:
            server.ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA)
    assert "Choose a model the server offers" in unknown.value.hint


def test_cancel_stops_between_requests(served: str) -> None:
    heard = []

    def on_event(event) -> None:
        heard.append(event)
        if isinstance(event, Progress) and event.done == 2:
            raise Cancelled

    with chat_server(served) as url:
        server = client(url, "openai")
        with pytest.raises(Cancelled):
            server.answer_texts([conversation(TEXTS["sport"])] * 6, CATEGORIES, SCHEMA, on_event=on_event)
        assert chat_requests(url) == 2
    assert [event.done for event in heard] == [0, 1, 2]


def test_the_answers_come_from_the_servers_tiny_model(served: str) -> None:
    from tests.core.models.llm import chat_test_server as reference

    model = reference.TinyGPT2(3)  # the same seed as the server's: the same model
    texts = [TEXTS["health"], "Nothing here names any of them."]
    with chat_server(served) as url:
        answers = client(url, "ollama").answer_texts([conversation(text) for text in texts], CATEGORIES, SCHEMA)
    for text, answer in zip(texts, answers):
        expected = reference.category_logprobs(conversation(text), CATEGORIES, model)
        for name in CATEGORIES:
            assert math.isclose(answer.probabilities[name], math.exp(expected[name]), abs_tol=1e-4)
        assert json.loads(answer.raw[0])["category"] == max(expected, key=expected.get)
    words_only = reference.category_logprobs(conversation(texts[1]), CATEGORIES)
    # where no word of the text names a category, the tiny model decides (the words alone tie)
    assert max(abs(answers[1].probabilities[n] - math.exp(words_only[n])) for n in CATEGORIES) > 0.05
    assert json.loads(answers[1].raw[0])["category"] != max(words_only, key=words_only.get)


def test_a_yes_or_no_question_about_one_category(served: str) -> None:
    prompt = CodebookPrompt.build([(name, DEFINITIONS[name], ()) for name in CATEGORIES], multi_label=True)
    with chat_server(served) as url:
        answer = client(url, "openai").ask(prompt.messages(TEXTS["health"], "health"), prompt.answers("health"),
                                           prompt.answer_schema("health"))
    assert set(answer.probabilities) == {"yes", "no"}
    assert math.isclose(sum(answer.probabilities.values()), 1.0, rel_tol=1e-9)
    assert read_answer(answer.raw[0], ["yes", "no"]) == max(answer.probabilities, key=answer.probabilities.get)
    assert "answer" in json.loads(answer.raw[0])
