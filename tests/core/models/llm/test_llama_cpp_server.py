"""A language model with your codebook on a real llama.cpp server: llama-cpp-python's
``llama_cpp.server`` (the OpenAI-compatible chat API, llama.cpp compiled from source) started on
127.0.0.1 on a tiny GGUF model written here (tiny_gguf.py), asked by TextLab's own server client.

Those tests are skipped where llama-cpp-python with its server parts, or the gguf package, is not
installed: they are optional test tools (llama-cpp-python compiles llama.cpp when it is installed),
never needed by TextLab; ``pip install -e ".[llama-server]"`` installs them. One more test, run
everywhere, replays what that server answers to a request with OpenAI's form of a JSON schema (HTTP
500 with a validation error, recorded from llama-cpp-python 0.3.36), so the client's fallback to
llama.cpp's form (``{"type": "json_object", "schema": …}``) is kept.

That server refuses OpenAI's form but holds the answer to the schema in llama.cpp's form, so TextLab
asks in that form and the answers name a category (or yes or no). Its top log-probabilities are
those of the model before the schema holds the answer; the tiny model spells an answer held to the
schema byte by byte, where its random weights decide which answer, so the tests that read the
favourite answer from the log-probabilities, and count answers outside the categories, ask as a
server without structured output is asked.
"""

from __future__ import annotations

import csv
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_model import CodebookModel, OnServer
from guiapp.core.models.llm.codebook_prompt import CATEGORY_KEY
from guiapp.core.models.llm.server_address import check_server_address
from guiapp.core.models.llm.server_client import JSON_OBJECT, JSON_SCHEMA, ServerClient, ServerSupport
from tests.core.models.llm.tiny_gguf import MODEL_NAME, tiny_gguf

CODEBOOK = [("economy", "jobs, prices, taxes and trade", ("Taxes rose again.",)),
            ("health", "doctors, hospitals and illness", ()),
            ("sport", "football, games and athletes", ())]
NAMES = [name for name, _, _ in CODEBOOK]
FAVOURITE = "sport"  # the tiny model's most likely answer
TEXTS = ["The hospital hired doctors to treat the illness.", "Taxes and prices rise while jobs are lost.",
         "The football team won the games."]
TRAIN = ["Prices and taxes rose.", "The team won the match.", "Doctors at the hospital.", "Trade and jobs fell."]
TRAIN_LABELS = ["economy", "sport", "health", "economy"]
START_SECONDS = 90


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory) -> Iterator[str]:
    """The address of a llama.cpp server answering from the tiny GGUF model; it is always stopped at
    the end, and its log is shown when it does not start."""
    pytest.importorskip("gguf", reason="the gguf package (writes the tiny model) is not installed")
    pytest.importorskip("llama_cpp", reason="llama-cpp-python (a real llama.cpp server) is not installed")
    pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python's server parts are not installed "
                        "(pip install \"llama-cpp-python[server]\")")
    folder = tmp_path_factory.mktemp("llama-cpp")
    model = tiny_gguf(folder / "tiny.gguf", NAMES, favourite=FAVOURITE)
    port = free_port()
    log_path = folder / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_NAME,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "1",
             "--n_threads_batch", "1"],
            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(url, process, log_path)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_for(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the llama.cpp server stopped at once ({process.returncode}):\n"
                        f"{log_path.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/v1/models", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    pytest.fail(f"the llama.cpp server did not answer within {START_SECONDS} s:\n"
                f"{log_path.read_text(errors='replace')[-3000:]}")


def on_llama_server(url: str, plain: bool = False, **options) -> CodebookModel:
    """A model on the server; ``plain``: asked as a server without structured output is (plain
    answers with their log-probabilities)."""
    runs = OnServer(url, "openai", MODEL_NAME, temperature=0.0, samples=options.pop("samples", 2), timeout=30)
    model = CodebookModel(CODEBOOK, runs, **options)
    if plain:
        model.server_client().support = ServerSupport("", True)
    return model


def test_a_real_llama_cpp_server_holds_the_answers_to_the_categories_in_llama_cpp_s_form(llama_server):
    model = on_llama_server(llama_server, k=1, seed=3).fit(TRAIN, TRAIN_LABELS, [10, 11, 12, 13])
    probabilities = model.predict_proba(TEXTS)
    client = model.server_client()
    # OpenAI's json_schema form refused (HTTP 500), llama.cpp's json_object form accepted, remembered
    assert client.support == ServerSupport(JSON_OBJECT, True)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    assert model.outside.asked >= len(TEXTS) and model.outside.outside == 0 and model.unanswered == 0
    asked = client.ask(model.prompt.messages(TEXTS[0]), NAMES, model.prompt.answer_schema(), samples=1)
    assert json.loads(asked.raw[0])[CATEGORY_KEY] in NAMES  # a JSON object naming a category
    # yes or no per category: the schema holds the tiny model's answers to yes or no, none outside
    several = on_llama_server(llama_server, multi_label=True, samples=2)
    answered = several.predict_proba(TEXTS[:2])
    assert answered.shape == (2, len(NAMES)) and np.all((answered >= 0) & (answered <= 1))
    assert several.outside.outside == 0 and several.unanswered == 0
    assert several.server_client().support.structured_output == JSON_OBJECT


def test_a_real_llama_cpp_server_codes_with_the_codebook_and_its_log_probabilities(llama_server):
    model = on_llama_server(llama_server, plain=True, k=1, seed=3).fit(TRAIN, TRAIN_LABELS, [10, 11, 12, 13])
    probabilities = model.predict_proba(TEXTS)
    assert probabilities.shape == (len(TEXTS), len(NAMES))
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    assert np.all(probabilities > 0) and np.all(probabilities < 1)
    # the favourite wins, with probabilities read from the server's log-probabilities (not the even
    # shares of answers that name no category, not one sampled answer's 0 or 1)
    assert [NAMES[i] for i in probabilities.argmax(axis=1)] == [FAVOURITE] * len(TEXTS)
    assert np.all(probabilities.max(axis=1) < 0.99) and np.all(probabilities.max(axis=1) > 1 / len(NAMES) + 0.05)
    assert model.outside.asked == len(TEXTS) and model.outside.outside == 0 and model.unanswered == 0

    client = model.server_client()
    assert client.support == ServerSupport("", True)
    asked = client.ask(model.prompt.messages(TEXTS[0]), NAMES, model.prompt.answer_schema(), samples=1)
    assert asked.raw[0].strip() == FAVOURITE  # the plain answer, read as it is
    assert asked.probabilities is not None and max(asked.probabilities, key=asked.probabilities.get) == FAVOURITE

    record = model.record()
    assert record["server_model"] == MODEL_NAME and record["runtime"] == "OpenAI-compatible server"
    assert record["texts_leave_computer"] is False and record["on_this_computer"] is True
    assert record["example_positions"] and set(record["example_positions"]) <= {10, 11, 12, 13}


def test_answers_outside_the_categories_from_a_real_server_are_counted_never_mapped(llama_server):
    # Asked yes or no per category without a schema, the tiny model still names a category: every
    # answer is outside the allowed ones, so each question is counted as unanswered and gets even
    # probabilities.
    model = on_llama_server(llama_server, plain=True, multi_label=True, samples=2)
    probabilities = model.predict_proba(TEXTS[:2])
    assert probabilities.shape == (2, len(NAMES))
    np.testing.assert_allclose(probabilities, 0.5)
    questions = 2 * len(NAMES)
    assert model.unanswered == questions
    assert model.outside.asked == 2 * questions and model.outside.outside == 2 * questions
    assert model.outside.answers.most_common(1)[0][0] == FAVOURITE
    note = model.record()["outside_answers"]["note"]
    assert "named no category" in note and f"“{FAVOURITE}”" in note



STUDY = """name = "Codebook language model on a llama.cpp server"
seed = 7

[data]
source = "train.csv"
test_source = "test.csv"

[data.mapping]
text_columns = ["text"]
category_column = "label"

[evaluation]
folds = 3
bootstrap_samples = 100

[[models]]
representation = "codebook_llm"
classifier = "server"
grid = {{ k = [0, 1] }}

[models.representation_options]
model = "{model}"
address = "{address}"
protocol = "openai"
samples = 2
timeout = 30
descriptions = {{ economy = "jobs, prices, taxes and trade", health = "doctors, hospitals and illness" }}
"""
WORDS = {"economy": ["taxes", "prices", "jobs", "trade"], "health": ["hospital", "doctors", "illness", "nurses"],
         "sport": ["team", "match", "goal", "players"]}


def test_a_whole_study_runs_on_a_real_llama_cpp_server_and_its_saved_model_predicts(llama_server, tmp_path, capsys):
    from guiapp.cli.entry import main
    from guiapp.core.experiment.results.experiment_result import ExperimentResult

    for name, count in (("train.csv", 8), ("test.csv", 3)):
        rows = [f"{category},The {WORDS[category][i % 4]} and the {WORDS[category][(i + count) % 4]} made news {i}."
                for category in WORDS for i in range(count)]
        (tmp_path / name).write_text("label,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "study.toml").write_text(STUDY.format(model=MODEL_NAME, address=llama_server), encoding="utf-8")
    assert main(["run", str(tmp_path / "study.toml"), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"]) == 0
    result = ExperimentResult.from_json((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    [model] = result.models
    assert model.status == "done" and model.representation == "codebook_llm" and model.classifier == "server"
    assert model.chosen_params["k"] in (0, 1) and model.chosen_params["instruction"] == 0 and len(model.grid) == 2
    record = model.spec["record"]
    assert record["server_model"] == MODEL_NAME and record["texts_leave_computer"] is False
    assert record["outside_answers"]["outside"] == 0
    assert [prompt["instruction_variant"] for prompt in model.spec["sensitivity"]["prompts"]] == [0, 1, 2]
    np.testing.assert_allclose(np.asarray(model.probabilities).sum(axis=1), 1.0, atol=1e-6)

    assert main(["predict", str(tmp_path / "out"), str(tmp_path / "test.csv"), "--text", "text",
                 "--out", str(tmp_path / "answers.csv")]) == 0
    with open(tmp_path / "answers.csv", encoding="utf-8-sig", newline="") as table:
        answers = list(csv.DictReader(table))
    predicted = next(column for column in answers[0] if column.endswith(": predicted category"))
    assert len(answers) == 3 * len(WORDS) and {row[predicted] for row in answers} <= set(NAMES)
    capsys.readouterr()

# What llama-cpp-python's server (0.3.36) answers to OpenAI's form of structured output, which it
# does not know: HTTP 500, not 400 or 422, with the request's validation error. (llama.cpp's form,
# {"type": "json_object", "schema": …}, it knows.)
REFUSED_SCHEMA = {"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                            "'input': 'json_schema'}", "type": "internal_server_error", "param": None,
                            "code": None}}


@contextmanager
def replaying_server(crashed: bool = False) -> Iterator[tuple[str, list[dict]]]:
    """A server on 127.0.0.1 that answers as llama-cpp-python's does: a request with OpenAI's form
    of a JSON schema gets :data:`REFUSED_SCHEMA` (or, ``crashed``, every chat request a plain 500),
    one in llama.cpp's json_object form the answer {"category": "sport"}, any other the answer
    " sport", each with its top log-probabilities. Yields its address and the requests it got."""
    requests: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *values: object) -> None:
            pass

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(request)
            if crashed:
                self.reply(500, {"error": {"message": "llama_decode returned -3"}})
            elif (request.get("response_format") or {}).get("type") == "json_schema":
                self.reply(500, REFUSED_SCHEMA)
            else:
                held = "response_format" in request
                top = [{"token": name if held else f" {name}", "logprob": logprob, "bytes": None}
                       for name, logprob in (("sport", -0.75), ("economy", -1.22), ("health", -1.84))]
                tokens = [{"token": "sport" if held else " sport", "logprob": -0.75, "bytes": None, "top_logprobs": top}]
                if held:
                    tokens = [{"token": '{"category": "', "logprob": 0.0, "bytes": None, "top_logprobs": []}, *tokens,
                              {"token": '"}', "logprob": 0.0, "bytes": None, "top_logprobs": []}]
                content = '{"category": "sport"}' if held else " sport"
                self.reply(200, {"model": MODEL_NAME, "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": content}, "logprobs": {"content": tokens}}]})

        def reply(self, code: int, payload: object) -> None:
            body = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_schema_refused_with_a_validation_error_is_asked_again_in_llama_cpp_s_form_and_a_crash_is_not():
    prompt = CodebookModel(CODEBOOK, OnServer("http://127.0.0.1:1", "openai", MODEL_NAME)).prompt
    messages, schema = prompt.messages(TEXTS[2]), prompt.answer_schema()
    with replaying_server() as (url, requests):
        client = ServerClient(check_server_address(url, "openai"), "openai", MODEL_NAME, timeout=10)
        answer = client.ask(messages, NAMES, schema, samples=1)
    assert client.support == ServerSupport(JSON_OBJECT, True)
    assert json.loads(answer.raw[0]) == {CATEGORY_KEY: FAVOURITE}
    assert max(answer.probabilities, key=answer.probabilities.get) == FAVOURITE
    assert [request["response_format"]["type"] for request in requests] == [JSON_SCHEMA, JSON_SCHEMA, JSON_OBJECT]
    assert requests[-1]["response_format"]["schema"] == schema and requests[-1]["logprobs"] is True
    with replaying_server(crashed=True) as (url, requests):
        client = ServerClient(check_server_address(url, "openai"), "openai", MODEL_NAME, timeout=10)
        with pytest.raises(UserError, match="answered with an error"):
            client.ask(messages, NAMES, schema, samples=1)
    assert len(requests) == 1  # a server that fails is not asked again as if it refused an option
