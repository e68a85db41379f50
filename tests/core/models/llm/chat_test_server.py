"""A small language-model server for the tests: it speaks the OpenAI-compatible chat API and
Ollama's chat API on 127.0.0.1 and answers from a deterministic model of its own.

With ``--model gpt2`` (the tests' choice) a tiny randomly initialised GPT-2 is built here from a
seed, over a byte tokenizer (a text's UTF-8 bytes are its tokens); each category's score is the
length-normalised log-likelihood of its name after the prompt, plus three times the number of words
the text shares with the category's name and definition, so that a random model still has a right
answer. The categories come from the JSON schema's enum (its one property is the answer's key), or
else from the prompt's lines "- name: definition". With ``--model words`` (no torch, starts at
once) only the shared words count. The categories' log-probabilities are the log-softmax of the
scores: at temperature 0 the server answers the best category; above it, it samples with the
request's seed.

Run ``python chat_test_server.py [switches]``: it prints ``PORT <n>`` once it listens. Switches
(also settable while it runs, by POSTing them as JSON to ``/test/switches``, which also sets the
request count to 0): ``--no-structured`` (a request with a JSON schema, in either form, is refused
with 400), ``--json-object-only`` (as llama-cpp-python's server: OpenAI's ``json_schema`` form is
refused with HTTP 500 and a validation error, llama.cpp's ``{"type": "json_object", "schema": …}``
holds the answer to the schema),
``--no-logprobs`` (log-probabilities are silently left out), ``--outside`` (answers a category that
is not one), ``--slow SECONDS`` (waits before each chat answer), ``--fail`` (HTTP 500),
``--garbage`` (a chat answer that is not JSON). A model name it does not know gets 404.
``GET /test/requests`` tells how many chat requests came.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIGEST = "sha256:" + "0123456789abcdef" * 4
OUTSIDE = "something else"
WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def prompt_categories(messages: list[dict]) -> dict[str, str]:
    """The categories named in the prompt's lines "- name: definition"."""
    found: dict[str, str] = {}
    for message in messages:
        for line in str(message.get("content", "")).splitlines():
            if line.startswith("- ") and ":" in line:
                name, definition = line[2:].split(":", 1)
                found[name.strip()] = definition.strip()
    return found


def the_text(messages: list[dict]) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    content = str(users[-1].get("content", "")) if users else ""
    return content.split("Text:", 1)[-1]


def log_softmax(scores: dict[str, float]) -> dict[str, float]:
    high = max(scores.values())
    total = math.log(sum(math.exp(s - high) for s in scores.values())) + high
    return {name: s - total for name, s in scores.items()}


class TinyGPT2:
    """A tiny random GPT-2 over bytes, built from a seed: the same seed, the same model."""

    def __init__(self, seed: int = 0) -> None:
        import torch
        from transformers import GPT2Config, GPT2LMHeadModel

        torch.set_num_threads(1)
        torch.manual_seed(seed)
        self.torch = torch
        self.context = 512
        self.model = GPT2LMHeadModel(GPT2Config(vocab_size=256, n_positions=self.context, n_embd=32,
                                                n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0,
                                                initializer_range=0.2)).eval()
        self.lock = threading.Lock()

    def label_loglik(self, prompt: str, label: str) -> float:
        """The mean log-probability of the label's bytes after the prompt's last bytes."""
        ending = list(label.encode("utf-8"))
        start = list(prompt.encode("utf-8"))[-(self.context - len(ending)):]
        ids = self.torch.tensor([start + ending])
        with self.lock, self.torch.no_grad():
            logits = self.model(ids).logits[0, len(start) - 1:-1].log_softmax(-1)
        return float(logits[self.torch.arange(len(ending)), self.torch.tensor(ending)].mean())


def category_logprobs(messages: list[dict], enum: list[str] | None,
                      model: TinyGPT2 | None = None) -> dict[str, float]:
    described = prompt_categories(messages)
    names = enum if enum else list(described)
    text = words(the_text(messages))
    prompt = "\n".join(str(m.get("content", "")) for m in messages) + "\nCategory: "
    scores = {name: 3.0 * len(text & words(name + " " + described.get(name, ""))) - 0.01 * index
              + (model.label_loglik(prompt, name) if model else 0.0)
              for index, name in enumerate(names)}
    return log_softmax(scores)


def choose(logprobs: dict[str, float], temperature: float, rng: random.Random) -> str:
    if temperature <= 0:
        return max(logprobs, key=logprobs.__getitem__)
    weights = [math.exp(lp / temperature) for lp in logprobs.values()]
    return rng.choices(list(logprobs), weights=weights)[0]


SWITCHES = {"no_structured": False, "json_object_only": False, "no_logprobs": False, "outside": False,
            "slow": 0.0, "fail": False, "garbage": False}
# What llama-cpp-python's server answers to OpenAI's form of structured output (HTTP 500).
JSON_SCHEMA_REFUSED = {"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                                 "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                                 "'input': 'json_schema'}", "type": "internal_server_error"}}


class State:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.requests = 0
        self.lock = threading.Lock()
        self.model = TinyGPT2(args.seed) if args.model == "gpt2" else None
        self.model_name = "tiny-gpt2" if self.model else "tiny-words"


def make_handler(state: State) -> type[BaseHTTPRequestHandler]:
    args = state.args
    model = state.model_name

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *values: object) -> None:
            pass

        def send(self, code: int, payload: object, raw: bytes | None = None) -> None:
            body = raw if raw is not None else json.dumps(payload).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self.send(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "tests"}]})
            elif self.path == "/api/tags":
                self.send(200, {"models": [{"name": model + ":latest", "model": model + ":latest",
                                            "digest": DIGEST, "size": 1234,
                                            "details": {"family": "words", "quantization_level": "none"}}]})
            elif self.path == "/test/requests":
                self.send(200, {"requests": state.requests})
            else:
                self.send(404, {"error": "not found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length))
            except ValueError:
                self.send(400, {"error": "the request is not JSON"})
                return
            if self.path == "/test/switches":
                for name, default in SWITCHES.items():
                    setattr(args, name, type(default)(request.get(name, default)))
                with state.lock:
                    state.requests = 0
                self.send(200, vars(args))
                return
            if self.path not in ("/v1/chat/completions", "/api/chat"):
                self.send(404, {"error": "not found"})
                return
            with state.lock:
                state.requests += 1
            if args.slow:
                time.sleep(args.slow)
            if args.fail:
                self.send(500, {"error": "the model crashed"})
                return
            if args.garbage:
                self.send(200, None, raw=b"<html>this is not json</html>")
                return
            if request.get("model") not in (model, model + ":latest"):
                self.send(404, {"error": f"model '{request.get('model')}' not found"})
                return
            openai = self.path == "/v1/chat/completions"
            self.chat(request, openai)

        def chat(self, request: dict, openai: bool) -> None:
            if openai:
                form = request.get("response_format") or {}
                if form.get("type") == "json_schema" and args.json_object_only:
                    self.send(500, JSON_SCHEMA_REFUSED)
                    return
                schema = (form.get("json_schema", {}).get("schema") if form.get("type") == "json_schema"
                          else form.get("schema") if form.get("type") == "json_object" else None)
                options = request
            else:
                schema = request.get("format") if isinstance(request.get("format"), dict) else None
                options = request.get("options") or {}
            if schema is not None and args.no_structured:
                self.send(400, {"error": "structured output (a JSON schema) is not supported"})
                return
            key, enum = next(iter((schema or {}).get("properties", {}).items()), ("category", {}))
            enum = enum.get("enum")
            messages = request.get("messages") or []
            logprobs = category_logprobs(messages, enum, state.model)
            rng = random.Random(int(options.get("seed") or 0))
            temperature = float(options.get("temperature") or 0.0)
            count = int(request.get("n") or 1) if openai else 1
            want_logprobs = bool(request.get("logprobs")) and not args.no_logprobs
            top = int(request.get("top_logprobs") or 0)
            answers = []
            for _ in range(count):
                name = OUTSIDE if args.outside else choose(logprobs, temperature, rng)
                content = json.dumps({key: name}) if schema else name
                tokens = [{"token": f'{{"{key}": "', "logprob": 0.0, "top_logprobs": []}] if schema else []
                ranked = sorted(logprobs.items(), key=lambda item: -item[1])[:top]
                tokens.append({"token": name, "logprob": logprobs.get(name, -30.0),
                               "top_logprobs": [{"token": n, "logprob": lp} for n, lp in ranked]})
                if schema:
                    tokens.append({"token": '"}', "logprob": 0.0, "top_logprobs": []})
                answers.append((content, tokens))
            if openai:
                choices = [{"index": i, "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                            "logprobs": {"content": tokens} if want_logprobs else None}
                           for i, (content, tokens) in enumerate(answers)]
                self.send(200, {"id": "chat-1", "object": "chat.completion", "model": model, "choices": choices})
            else:
                content, tokens = answers[0]
                reply = {"model": model + ":latest", "message": {"role": "assistant", "content": content},
                         "done": True}
                if want_logprobs:
                    reply["logprobs"] = tokens
                self.send(200, reply)

    return Handler


class QuietServer(ThreadingHTTPServer):
    """Says nothing when a client hung up before its answer (as the timeout test's does)."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-structured", action="store_true")
    parser.add_argument("--json-object-only", action="store_true")
    parser.add_argument("--no-logprobs", action="store_true")
    parser.add_argument("--outside", action="store_true")
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--fail", action="store_true")
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--model", choices=("gpt2", "words"), default="words")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    server = QuietServer(("127.0.0.1", 0), make_handler(State(args)))
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main(sys.argv[1:])
