"""Talk to a language-model server: the OpenAI-compatible chat API (``/v1/chat/completions``, as
llama.cpp's llama-server, vLLM and LM Studio speak it) or Ollama's chat API (``/api/chat``).

The client lists the server's models (with the name and digest it reports, for the record), sends
chat messages with a temperature and a seed, asks for an answer that must be one of the allowed
answers (the prompt's JSON schema, whose ``category`` is an enum of the categories) with the top
log-probabilities where the server gives them, and falls back to plain answers and several samples
where the server refuses either. An OpenAI-compatible server that refuses OpenAI's form of the schema
(``response_format = {"type": "json_schema", …}``, as llama-cpp-python's server does) is first asked
with llama.cpp's form (``{"type": "json_object", "schema": …}``), which still holds the answer to the
categories, before plain answers. What an answer means is read by :mod:`.category_answers`. A server
that is down, slow, or answers with an error or with something that is not JSON becomes a
:class:`UserError` that says what to do. Only the standard library is used.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.models.llm.category_answers import (
    TokenChoice,
    probabilities_from_logprobs,
    token_choices,
)
from guiapp.core.models.llm.server_address import ServerAddress

Protocol = Literal["openai", "ollama"]
PROTOCOLS: tuple[Protocol, ...] = ("openai", "ollama")
MODELS_PATH = {"openai": "/v1/models", "ollama": "/api/tags"}
CHAT_PATH = {"openai": "/v1/chat/completions", "ollama": "/api/chat"}
START_HINT = {"openai": "Start the server (e.g. llama-server -m model.gguf) and check the address.",
              "ollama": "Start Ollama (ollama serve) and check the address."}
MAX_REPLY = 50_000_000  # bytes: far more than any chat reply


@dataclass(frozen=True, slots=True)
class ServerModel:
    """A model the server offers, as it reports it."""

    name: str
    digest: str = ""  # Ollama's digest of the model's files; empty where the API reports none
    details: Mapping[str, object] = field(default_factory=dict)


JSON_SCHEMA = "json_schema"  # OpenAI's form: response_format = {"type": "json_schema", "json_schema": {…}}
JSON_OBJECT = "json_object"  # llama.cpp's form: response_format = {"type": "json_object", "schema": {…}}
STRUCTURED_FORMS = (JSON_SCHEMA, JSON_OBJECT, "")  # "": no structured output, a plain answer


@dataclass(frozen=True, slots=True)
class ServerSupport:
    """What the server accepted: structured output (the answer held to a JSON schema) in which form
    (:data:`JSON_SCHEMA`, :data:`JSON_OBJECT` — the OpenAI-compatible protocol only —, or "" for
    none: the value is true exactly where the answer is held to the schema) and log-probabilities.
    Ollama's ``format`` takes the schema itself; its support is either :data:`JSON_SCHEMA` or ""."""

    structured_output: str = JSON_SCHEMA
    logprobs: bool = True


@dataclass(frozen=True, slots=True)
class ServerAnswer:
    """A server's answers to one question about one text: the raw answers (one per sample), the
    tokens' top log-probabilities where the server gave them, the probability of each allowed
    answer read from them (None where there were none, or none began an allowed answer), and what
    the server supported."""

    raw: tuple[str, ...]
    probabilities: dict[str, float] | None
    tokens: tuple[TokenChoice, ...]
    support: ServerSupport
    model: str = ""  # the model name the server reported in its answer
    covered: float = 0.0  # how much probability the reported tokens gave the allowed answers


# What to ask for next when a server refuses a request, per protocol: without log-probabilities;
# (OpenAI-compatible) the schema in llama.cpp's json_object form, with and then without
# log-probabilities; with log-probabilities but without the schema; then plain answers.
FALLBACKS: dict[Protocol, dict[ServerSupport, ServerSupport]] = {
    "openai": {ServerSupport(JSON_SCHEMA, True): ServerSupport(JSON_SCHEMA, False),
               ServerSupport(JSON_SCHEMA, False): ServerSupport(JSON_OBJECT, True),
               ServerSupport(JSON_OBJECT, True): ServerSupport(JSON_OBJECT, False),
               ServerSupport(JSON_OBJECT, False): ServerSupport("", True),
               ServerSupport("", True): ServerSupport("", False)},
    "ollama": {ServerSupport(JSON_SCHEMA, True): ServerSupport(JSON_SCHEMA, False),
               ServerSupport(JSON_SCHEMA, False): ServerSupport("", True),
               ServerSupport("", True): ServerSupport("", False)},
}


class ServerClient:
    """A client of one server, one protocol and one model."""

    def __init__(self, address: ServerAddress, protocol: Protocol, model: str = "", *,
                 timeout: float = 120.0) -> None:
        if protocol not in PROTOCOLS:
            raise UserError(f"TextLab does not know the server kind “{protocol}”.",
                            "Choose Ollama or an OpenAI-compatible server.")
        self.address = address
        self.protocol = protocol
        self.model = model
        self.timeout = timeout
        self.support = ServerSupport()

    # -- HTTP -------------------------------------------------------------------------------------
    def _request(self, path: str, body: Mapping[str, object] | None = None) -> object:
        """The JSON the server answers at ``path`` (GET without a body, else POST)."""
        url = self.address.url + path
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                         headers={"Content-Type": "application/json",
                                                  "Accept": "application/json"})
        hint = START_HINT[self.protocol]
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                raw = reply.read(MAX_REPLY)
        except urllib.error.HTTPError as error:
            raise _http_error(error, url, self.model) from None
        except TimeoutError:
            raise self._too_slow() from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise self._too_slow() from None
            raise UserError(f"No language-model server answers at {self.address.url}.", hint,
                            str(error.reason)) from None
        except (http.client.HTTPException, ConnectionError, OSError) as error:
            raise UserError(f"The connection to the server at {self.address.url} broke off.", hint,
                            repr(error)) from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise UserError(f"The server at {self.address.url} answered with something that is not JSON.",
                            "Check that the address is a language-model server's and that the kind of "
                            "server (Ollama or OpenAI-compatible) is the right one.",
                            raw[:500].decode("utf-8", "replace")) from None

    def _too_slow(self) -> UserError:
        return UserError(f"The server at {self.address.url} did not answer within {self.timeout:g} seconds.",
                         "Check that it is not busy with other work, choose a smaller model, or allow "
                         "it more time.")

    # -- models -----------------------------------------------------------------------------------
    def list_models(self) -> list[ServerModel]:
        """The models the server offers, with the name and digest it reports."""
        reply = self._request(MODELS_PATH[self.protocol])
        entries = reply.get("data" if self.protocol == "openai" else "models") if isinstance(reply, dict) else None
        if not isinstance(entries, list):
            raise _malformed(self.address, "no list of models")
        models = []
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            name = entry.get("id") if self.protocol == "openai" else entry.get("model") or entry.get("name")
            if not isinstance(name, str) or not name:
                continue
            details = {key: value for key, value in entry.items() if key not in ("id", "name", "model", "digest")}
            models.append(ServerModel(name=name, digest=str(entry.get("digest") or ""), details=details))
        return models

    def model_record(self) -> dict[str, object]:
        """What the appendix says of the model: its name and the digest the server reports."""
        chosen = next((m for m in self.list_models() if m.name == self.model), None)
        record: dict[str, object] = {"server_protocol": self.protocol, "server_model": self.model,
                                     "server_model_digest": chosen.digest if chosen else ""}
        record.update(self.address.record())
        return record

    # -- chat -------------------------------------------------------------------------------------
    def _chat_body(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, object], *,
                   temperature: float, seed: int, samples: int, top_logprobs: int,
                   support: ServerSupport, max_tokens: int) -> dict[str, object]:
        body: dict[str, object] = {"model": self.model, "messages": [dict(m) for m in messages],
                                   "stream": False}
        if self.protocol == "openai":
            body.update(temperature=temperature, seed=seed, max_tokens=max_tokens)
            if samples > 1:
                body["n"] = samples
            if support.structured_output == JSON_SCHEMA:
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": "answer", "strict": True, "schema": dict(schema)}}
            elif support.structured_output == JSON_OBJECT:
                body["response_format"] = {"type": "json_object", "schema": dict(schema)}
            if support.logprobs:
                body.update(logprobs=True, top_logprobs=top_logprobs)
        else:
            body["options"] = {"temperature": temperature, "seed": seed, "num_predict": max_tokens}
            if support.structured_output:
                body["format"] = dict(schema)
            if support.logprobs:
                body.update(logprobs=True, top_logprobs=top_logprobs)
        return body

    def _parse_chat(self, reply: object) -> tuple[list[str], tuple[TokenChoice, ...] | None, str]:
        """The answers, the first answer's token log-probabilities (None where none came back) and
        the model the server names."""
        if not isinstance(reply, dict):
            raise _malformed(self.address, "no answer object")
        model = str(reply.get("model") or "")
        try:
            if self.protocol == "openai":
                choices = reply["choices"]
                answers = [str(choice["message"]["content"] or "") for choice in choices]
                content = (choices[0].get("logprobs") or {}).get("content") if choices else None
            else:
                answers = [str(reply["message"]["content"] or "")]
                content = reply.get("logprobs")
        except (KeyError, TypeError, AttributeError, IndexError):
            raise _malformed(self.address, "no answer in the reply") from None
        if not answers:
            raise _malformed(self.address, "no answer in the reply")
        return answers, _tokens(content), model

    def ask(self, messages: Sequence[Mapping[str, str]], answers: Sequence[str], schema: Mapping[str, object], *,
            temperature: float = 0.0, seed: int = 0, samples: int = 5, top_logprobs: int = 20) -> ServerAnswer:
        """Ask one question (the prompt's ``messages``) whose allowed ``answers`` the JSON ``schema``
        names. Where the server gives log-probabilities that begin the allowed answers, one answer
        suffices; otherwise ``samples`` answers (seeds ``seed``, ``seed + 1``, …) give the shares.
        A server that refuses structured output or log-probabilities is asked again without them
        (an OpenAI-compatible one first with the schema in llama.cpp's form, see :data:`FALLBACKS`),
        and the client remembers what it supports."""
        limit = answer_token_limit(answers)
        while True:
            body = self._chat_body(messages, schema, temperature=temperature, seed=seed,
                                   samples=1, top_logprobs=top_logprobs, support=self.support, max_tokens=limit)
            try:
                raw, tokens, model = self._parse_chat(self._request(CHAT_PATH[self.protocol], body))
                break
            except _Rejected:
                fewer = FALLBACKS[self.protocol].get(self.support)
                if fewer is None:
                    raise
                self.support = fewer
        if tokens is None:
            self.support = replace(self.support, logprobs=False)
        read = probabilities_from_logprobs(tokens, answers) if tokens else None
        probabilities = read.probabilities if read else None
        if probabilities is None and samples > 1:
            raw = raw[:1] + self._more_samples(messages, schema, temperature, seed, samples - 1, limit)
        return ServerAnswer(raw=tuple(raw), probabilities=probabilities, tokens=tokens or (),
                            support=self.support, model=model, covered=read.covered if read else 0.0)

    def _more_samples(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, object],
                      temperature: float, seed: int, count: int, limit: int) -> list[str]:
        support = replace(self.support, logprobs=False)
        if self.protocol == "openai":
            body = self._chat_body(messages, schema, temperature=temperature, seed=seed + 1,
                                   samples=count, top_logprobs=0, support=support, max_tokens=limit)
            answers, _, _ = self._parse_chat(self._request(CHAT_PATH[self.protocol], body))
            if len(answers) >= count:
                return answers[:count]
            more = answers
        else:
            more = []
        while len(more) < count:
            body = self._chat_body(messages, schema, temperature=temperature, seed=seed + 1 + len(more),
                                   samples=1, top_logprobs=0, support=support, max_tokens=limit)
            more.append(self._parse_chat(self._request(CHAT_PATH[self.protocol], body))[0][0])
        return more

    def answer_texts(self, conversations: Sequence[Sequence[Mapping[str, str]]], answers: Sequence[str],
                     schema: Mapping[str, object], *, temperature: float = 0.0, seed: int = 0, samples: int = 5,
                     top_logprobs: int = 20, on_event: EventCallback = ignore_events) -> list[ServerAnswer]:
        """One :class:`ServerAnswer` per conversation (one per text), in order. ``on_event`` hears
        the progress after each text and may cancel (raise ``Cancelled``) between requests."""
        total = len(conversations)
        replies: list[ServerAnswer] = []
        on_event(Progress(0.0 if total else 1.0, "Asking the language-model server", 0, total))
        for index, messages in enumerate(conversations):
            replies.append(self.ask(messages, answers, schema, temperature=temperature, seed=seed,
                                    samples=samples, top_logprobs=top_logprobs))
            on_event(Progress((index + 1) / total, "Asking the language-model server", index + 1, total))
        return replies


def answer_token_limit(answers: Sequence[str]) -> int:
    """The most tokens an answer may take: room for the longest allowed answer written as JSON (a
    token is rarely shorter than a third of a character), so that a model that does not stop after
    its answer is cut off instead of writing until its context is full."""
    return 32 + 3 * max((len(answer) for answer in answers), default=0)


class _Rejected(UserError):
    """The server refused the request as malformed (HTTP 400 or 422): perhaps an option it lacks."""


def _http_error(error: urllib.error.HTTPError, url: str, model: str) -> UserError:
    try:
        detail = error.read(4000).decode("utf-8", "replace")
    except OSError:
        detail = ""
    # llama-cpp-python's server answers a request it cannot read with 500 and "N validation error(s)"
    if error.code in (400, 422) or (error.code == 500 and "validation error" in detail):
        return _Rejected(f"The server at {url} refused the request ({error.code}).",
                         "Check that the chosen model and kind of server are right.", detail)
    if error.code == 404:
        return UserError(f"The server at {url} does not know this request or the model “{model}” (404).",
                         "Choose a model the server offers, and check the kind of server "
                         "(Ollama or OpenAI-compatible).", detail)
    return UserError(f"The server at {url} answered with an error ({error.code} {error.reason}).",
                     "Look at the server's own log, restart it if needed, and try again.", detail)


def _malformed(address: ServerAddress, what: str) -> UserError:
    return UserError(f"The server at {address.url} answered in a form TextLab cannot read ({what}).",
                     "Check that the kind of server (Ollama or OpenAI-compatible) is the right one.")


def _tokens(content: object) -> tuple[TokenChoice, ...] | None:
    """The tokens' log-probabilities in the OpenAI form (which Ollama also uses): a list of
    {token, logprob, top_logprobs: [{token, logprob}]}; None where there are none or they cannot be
    read."""
    if not isinstance(content, list) or not content or not all(isinstance(item, Mapping) for item in content):
        return None
    try:
        return tuple(token_choices(content))
    except (TypeError, ValueError, AttributeError):
        return None
