"""An OpenAI-compatible server that refuses OpenAI's form of structured output (``response_format =
{"type": "json_schema", …}``, which llama-cpp-python's server answers with HTTP 500 and a validation
error) is asked with llama.cpp's form, ``{"type": "json_object", "schema": …}``, before plain answers:
the answer is then still held to the categories. What the server supports is remembered per client.
Against the chat test server (a real HTTP process on 127.0.0.1) with its ``--json-object-only``
switch."""

from __future__ import annotations

import json

import pytest

from guiapp.core.models.llm.category_answers import read_answer
from guiapp.core.models.llm.server_client import FALLBACKS, JSON_OBJECT, JSON_SCHEMA, ServerClient, ServerSupport
from guiapp.core.models.llm.server_address import check_server_address
from tests.core.models.llm.test_server_client import (  # noqa: F401 (served is a fixture)
    CATEGORIES,
    SCHEMA,
    TEXTS,
    chat_requests,
    chat_server,
    client,
    conversation,
    served,
)


def test_a_refused_json_schema_is_asked_again_in_the_json_object_form_and_remembered(served):  # noqa: F811
    with chat_server(served, "--json-object-only") as url:
        server = client(url, "openai")
        answers = server.answer_texts([conversation(text) for text in TEXTS.values()], CATEGORIES, SCHEMA)
        # refused with the schema and log-probabilities, refused with the schema alone, then one request
        # per text in the json_object form: the client remembers it
        assert chat_requests(url) == 2 + len(TEXTS)
    assert server.support == ServerSupport(JSON_OBJECT, True)
    for expected, answer in zip(TEXTS, answers):
        assert answer.support.structured_output == JSON_OBJECT and answer.support.logprobs
        assert json.loads(answer.raw[0]) == {"category": expected}  # held to the schema: a JSON object
        assert read_answer(answer.raw[0], CATEGORIES) == expected
        assert max(answer.probabilities, key=answer.probabilities.get) == expected


def test_the_json_object_form_sends_the_schema_itself(monkeypatch):
    sent = []
    server = ServerClient(check_server_address("http://127.0.0.1:9", "openai"), "openai", "m")
    server.support = ServerSupport(JSON_OBJECT, False)
    monkeypatch.setattr(server, "_request", lambda path, body=None: sent.append(body) or {})
    with pytest.raises(Exception):  # the empty reply cannot be read; only the request matters here
        server.ask(conversation(TEXTS["sport"]), CATEGORIES, SCHEMA, samples=1)
    assert sent[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert "logprobs" not in sent[0]


def test_a_server_without_any_structured_output_falls_through_both_forms(served):  # noqa: F811
    with chat_server(served, "--no-structured") as url:
        server = client(url, "openai")
        answer = server.ask(conversation(TEXTS["economy"]), CATEGORIES, SCHEMA, samples=1)
        assert chat_requests(url) == 5  # json_schema ×2, json_object ×2 refused, then plain
    assert server.support == ServerSupport("", True) and answer.raw == ("economy",)


def test_ollama_never_gets_the_json_object_form():
    assert all(JSON_OBJECT not in (a.structured_output, b.structured_output) for a, b in FALLBACKS["ollama"].items())
    forms = [ServerSupport()]
    while forms[-1] in FALLBACKS["openai"]:
        forms.append(FALLBACKS["openai"][forms[-1]])
    assert [(f.structured_output, f.logprobs) for f in forms] == [
        (JSON_SCHEMA, True), (JSON_SCHEMA, False), (JSON_OBJECT, True), (JSON_OBJECT, False), ("", True), ("", False)]


def test_the_record_says_how_the_server_held_its_answers(served):  # noqa: F811
    from guiapp.core.models.llm.codebook_model import CodebookModel, OnServer
    from tests.core.models.llm.test_server_client import DEFINITIONS, MODEL

    codebook = [(name, DEFINITIONS[name], ()) for name in CATEGORIES]

    def asked(*switches: str) -> dict:
        with chat_server(served, *switches) as url:
            model = CodebookModel(codebook, OnServer(url, "openai", MODEL["openai"], samples=1, timeout=10))
            assert model.record()["structured_output"] is None  # not asked yet
            model.predict_proba([TEXTS["sport"]])
            return model.record()

    schema, held, plain = asked(), asked("--json-object-only"), asked("--no-structured")
    assert (schema["structured_output"], held["structured_output"], plain["structured_output"]) == (
        JSON_SCHEMA, JSON_OBJECT, "")
    assert "OpenAI's json_schema form" in schema["scoring"]
    assert "llama.cpp's json_object form" in held["scoring"]
    assert "not held to the allowed answers" in plain["scoring"]
