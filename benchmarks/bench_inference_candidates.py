"""The candidates for faster Transformer answers on a CPU, measured side by side: speed and agreement.

How docs/inference-speed.md chose 16-bit (bfloat16) answers. A fine-tuned MiniLM (the app's own
``fine_tune``, 1 epoch on 1,000 Davidson tweets, as in ``bench_predict.py --transformer``) answers
N other tweets (default 600) with each candidate, in this process, with torch's thread count pinned
(``--threads``, default 1: on a shared machine, CPU time of one thread is the steadiest measure;
``wall`` is printed too):

- torch fp32 as the engine runs it today (batches of 64, the last layer on the first token only),
  and the same in batches of 16;
- torch with ``autocast(bfloat16)``, batches of 16 (the chosen way);
- torch's int8 dynamic quantisation of every Linear layer (``torch.ao.quantization.quantize_dynamic``);
- ``torch.compile`` in fp32 and bfloat16 (``--compile``; minutes of compiling on 2 cores, and it
  needs a C++ compiler, which TextLab's users do not have);
- ONNX Runtime fp32 (exported with torch's TorchScript exporter, attention fused by
  ``onnxruntime.transformers.optimizer``) and ONNX Runtime int8 (``quantize_dynamic``), where
  ``onnxruntime`` and ``onnx`` are installed (``pip install onnxruntime onnx``; TextLab needs neither).

Agreement is with the exact answers: the share of texts with the same category, the largest
probability difference; for sentence embeddings (the bundled MiniLM, mean pooling) the lowest cosine
similarity to the exact vector. ``TEXTLAB_BENCH_MODEL`` / ``TEXTLAB_BENCH_DATA`` as in bench_predict.py.

    python benchmarks/bench_inference_candidates.py [--texts 600] [--threads 1] [--compile]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--compile", action="store_true", help="also torch.compile (slow to compile)")
    args = parser.parse_args()
    import torch

    from benchmarks._transformer_answers import TRAIN_TEXTS, corpus, fine_tune_into, model_path

    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")  # torch.ao.quantization says it moves to torchao; ONNX export chatter
    texts, labels, categories, source = corpus()
    answer_texts = texts[TRAIN_TEXTS:TRAIN_TEXTS + args.texts]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "fine-tuned"
        fine_tune_into(folder, texts[:TRAIN_TEXTS], labels[:TRAIN_TEXTS], categories, "cpu")
        print(f"{args.texts} {source}, {args.threads} thread(s); texts/s of CPU time (of wall time)")
        classify(folder, answer_texts, args, Path(tmp))
        embed(model_path(), answer_texts)


def _timed(name: str, n: int, work, exact: np.ndarray | None, compare) -> np.ndarray:
    work()  # once to warm up
    wall, cpu = time.perf_counter(), time.process_time()
    answers = work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    agreement = compare(exact, answers) if exact is not None else "(the exact answers)"
    print(f"  {name:<34} {n / cpu:7.1f} ({n / wall:6.1f})  {agreement}", flush=True)
    return answers


def _probabilities(exact: np.ndarray, answers: np.ndarray) -> str:
    same = (exact.argmax(axis=1) == answers.argmax(axis=1)).mean()
    difference = np.abs(exact - answers).max(axis=1)
    return (f"same category {same:.2%}, largest difference {difference.max():.4f}, "
            f"texts above 0.02: {(difference > 0.02).mean():.1%}")


def _cosines(exact: np.ndarray, answers: np.ndarray) -> str:
    cosine = (exact * answers).sum(1) / np.linalg.norm(exact, axis=1) / np.linalg.norm(answers, axis=1)
    return f"lowest cosine {cosine.min():.5f}, mean {cosine.mean():.5f}"


def classify(folder: Path, texts: list[str], args, tmp: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from guiapp.core.models.transformers.training.batches import collate, sorted_batches
    from guiapp.core.models.transformers.training.first_token import first_token_only
    from guiapp.core.models.transformers.training.truncation import encode_texts

    tokenizer = AutoTokenizer.from_pretrained(folder)
    net = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    encoded = encode_texts(tokenizer, texts, 512, "head_tail")
    n, k = len(texts), net.config.num_labels

    def torch_way(model, batch: int, bf16: bool = False, first: bool = True):
        def work() -> np.ndarray:
            out = np.zeros((n, k))
            with torch.inference_mode(), first_token_only(model, first), \
                    torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                for rows in sorted_batches(encoded.lengths, batch):
                    b = collate(encoded.input_ids, rows, 0)
                    logits = model(input_ids=b.input_ids, attention_mask=b.attention_mask).logits
                    out[rows] = torch.softmax(logits.float(), -1).numpy()
            return out
        return work

    print("Classification (fine-tuned):")
    exact = _timed("torch fp32, batches of 64 (today)", n, torch_way(net, 64), None, _probabilities)
    _timed("torch fp32, batches of 16", n, torch_way(net, 16), exact, _probabilities)
    _timed("torch bfloat16 autocast, batches of 16", n, torch_way(net, 16, True), exact, _probabilities)
    quantised = torch.ao.quantization.quantize_dynamic(copy.deepcopy(net), {torch.nn.Linear}, dtype=torch.qint8)
    _timed("torch int8 dynamic, batches of 16", n, torch_way(quantised, 16), exact, _probabilities)
    if args.compile:
        start = time.perf_counter()
        compiled = torch.compile(copy.deepcopy(net), dynamic=True)
        torch_way(compiled, 16, first=False)()
        print(f"  (torch.compile: {time.perf_counter() - start:.0f} s to compile)")
        _timed("torch.compile fp32, batches of 16", n, torch_way(compiled, 16, first=False), exact, _probabilities)
        _timed("torch.compile bfloat16, batches of 16", n, torch_way(compiled, 16, True, first=False), exact,
               _probabilities)
    for name, session in _onnx_sessions(folder, tmp, args.threads):
        def work(session=session) -> np.ndarray:
            out = np.zeros((n, k))
            for rows in sorted_batches(encoded.lengths, 16):
                b = collate(encoded.input_ids, rows, 0)
                out[rows] = session.run(None, {"input_ids": b.input_ids.numpy(),
                                               "attention_mask": b.attention_mask.numpy()})[0]
            return out
        _timed(f"{name}, batches of 16", n, work, exact, _probabilities)


def _onnx_sessions(folder: Path, tmp: Path, threads: int) -> list[tuple[str, object]]:
    """ONNX Runtime fp32 and int8 sessions of the classifier (none where ONNX Runtime is missing)."""
    try:
        import onnx
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.transformers.optimizer import optimize_model
    except ImportError:
        print("  (ONNX Runtime not installed: pip install onnxruntime onnx to measure it too)")
        return []
    import torch
    from transformers import AutoModelForSequenceClassification

    from guiapp.core.models.transformers.training.first_token import first_token_only

    net = AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager").eval()

    class Probabilities(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return torch.softmax(self.inner(input_ids=input_ids, attention_mask=attention_mask).logits, -1)

    plain, fused, quantised = tmp / "model.onnx", tmp / "fused.onnx", tmp / "int8.onnx"
    example = torch.ones(2, 16, dtype=torch.long)
    axes = {"input_ids": {0: "b", 1: "t"}, "attention_mask": {0: "b", 1: "t"}, "probabilities": {0: "b"}}
    with first_token_only(net), contextlib.redirect_stdout(sys.stderr):
        torch.onnx.export(Probabilities(net), (example, example), str(plain), dynamo=False, opset_version=17,
                          input_names=["input_ids", "attention_mask"], output_names=["probabilities"],
                          dynamic_axes=axes)
        config = net.config
        optimize_model(str(plain), model_type="bert", num_heads=config.num_attention_heads,
                       hidden_size=config.hidden_size).save_model_to_file(str(fused))
        quantize_dynamic(str(fused), str(quantised), weight_type=QuantType.QInt8,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    return [(name, ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]))
            for name, path in (("ONNX Runtime fp32 (fused)", fused), ("ONNX Runtime int8 dynamic", quantised))]


def embed(path: str, texts: list[str]) -> None:
    import torch

    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings, _token_lengths, load_model

    representation = SentenceEmbeddings(model=path)
    tokenizer, model = load_model(path)
    lengths = _token_lengths(tokenizer, texts, 256)
    rows = np.arange(len(texts))

    class NoThreads:
        def tick(self) -> int:
            return torch.get_num_threads()

    def way(net, batch: int, dtype=None):
        return lambda: representation._embed_rows(texts, rows, lengths, batch, 256, tokenizer, net, dtype,
                                                  NoThreads(), None)

    print("Sentence embeddings (bundled model):")
    n = len(texts)
    exact = _timed("torch fp32, batches of 32 (today)", n, way(model, 32), None, _cosines)
    _timed("torch bfloat16 autocast, batches of 16", n, way(model, 16, torch.bfloat16), exact, _cosines)
    quantised = torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
    _timed("torch int8 dynamic, batches of 16", n, way(quantised, 16), exact, _cosines)


if __name__ == "__main__":
    main()
