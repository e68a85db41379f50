"""A language model coding with the codebook: texts per second of label scoring on this computer's CPU,
against generating the answer, and the cost per text of a 0.5–8 B model, all offline.

The prompt is the one TextLab builds (:class:`CodebookPrompt`) from a real codebook: the example
study's 20 policy topics (resources/example/, sheet "Topic codebook") with a one-sentence definition
each (written in this file), followed by a bill title from the example data. No trained language
model can be downloaded here, so the models are randomly initialised: their answers mean nothing,
but a random model of a given shape costs the same arithmetic as a trained one of that shape. The
tokenizer is the bundled MiniLM's WordPiece vocabulary (30,522 pieces, its special tokens left off),
which splits English into about as many pieces as the BPE vocabularies of Qwen or Llama.

Measured, in the same process and on the same prompts:

  (a) a tiny random GPT-2 (2 layers, width 16) and (b) a random GPT-2 of the bundled MiniLM's scale
  (6 layers, width 384, ≈23 M parameters):
  - label scoring: ``score_prompts`` (each category's name scored as the prompt's continuation, the
    prompt's cache reused for every category), batches of 8 texts;
  - the strongest fair alternative: generating the answer (``model.generate``, greedy, as many new
    tokens as the longest category name has, batches of 8 left-padded prompts) and reading it;
  - scoring without the cache: prompt + category in one pass per category (a text's 20 passes in one
    batch, only the needed positions' scores computed) — what the cache saves;

  (c) Qwen2-0.5B, Qwen2-1.5B, Qwen2-3B and Llama-8B shapes (hidden size, layers, heads, key/value heads,
  vocabulary as published): a model of that shape with 2 of its layers is built and timed
  with ``score_prompts`` on the same prompts, the time inside each layer clocked (forward hooks);
  per text = the rest (embeddings, output layer, the categories' scores) + layers × one layer's time.
  With ``--check-full`` (on by default in the full run), the whole 0.5 B model is also built and timed,
  to show how the estimate compares with the time taken. Memory: the parameters (counted on the meta
  device, nothing allocated) × 4 bytes (float32, what TextLab uses on a CPU) or × 2 (bfloat16).

  (d) how the study's time estimate compares with the time taken: a small study of the example's bill
  titles (the 4 commonest topics, each with its definition; 2 folds; the grid k = 0 and 1; 2 wordings
  for the sensitivity report) is run with ``run_experiment`` on the tiny GPT-2 and on the
  MiniLM-scale GPT-2, each saved to a folder as a researcher's model would be; the estimate the Run
  step announces (``codebook_estimates.codebook_seconds``, from the folder's config.json) is printed
  beside the model's measured seconds.

Usage: .venv/bin/python benchmarks/bench_llm.py [--quick] [--texts N] [--study-texts N] [--only-study]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import model_path

# One sentence per topic of the example's codebook (the Policy Agendas major topics as the
# Congressional Bills Project coded the 107th Congress), by topic code.
DEFINITIONS = {
    1: "Interest rates, inflation, unemployment, the federal budget and debt, taxes and monetary policy.",
    2: "Discrimination by race, sex, age or disability, voting rights, freedom of speech and religion, and privacy.",
    3: "Health care and health insurance, Medicare and Medicaid, hospitals, prescription drugs, diseases and "
       "medical research.",
    4: "Farming, crops and livestock, farm subsidies and prices, food inspection and safety, and fisheries.",
    5: "Jobs, wages, working conditions, pensions and employee benefits, unions, job training, and immigration "
       "and citizenship.",
    6: "Schools, colleges and universities, teachers, student loans and education programmes.",
    7: "Air and water pollution, toxic waste, recycling, protection of species and habitats, and climate change.",
    8: "Electricity, oil, gas, coal and nuclear power, energy prices, energy saving and renewable energy.",
    10: "Highways, public transit, aviation and airports, railways, shipping and ports, and transport safety.",
    12: "Crime, police, courts and prisons, illegal drugs, guns, and family matters such as child abuse and "
        "domestic violence.",
    13: "Welfare and food assistance, Social Security benefits, and help for the poor, the elderly, people with "
        "disabilities and children.",
    14: "Housing and community development, mortgages, homelessness, and urban and rural development.",
    15: "Banking and finance, securities, insurance, small businesses, bankruptcy, consumer protection, patents "
        "and copyrights, and disaster relief.",
    16: "The armed forces and their personnel, weapons, military bases, intelligence, and veterans.",
    17: "Space, science and research, telecommunications, broadcasting, the internet and computers.",
    18: "Tariffs and customs duties, imports and exports, trade agreements, and suspending the duty on "
        "particular goods.",
    19: "Foreign aid, relations with other countries, international organisations, human rights abroad and "
        "diplomacy.",
    20: "How the federal government runs: its agencies and employees, the postal service, elections, Congress, "
        "and naming federal buildings and post offices.",
    21: "National parks, forests and other public lands, water resources and dams, Native American affairs, and "
        "US territories.",
    99: "A private bill for the relief of a named person or company, or a bill that fits no other topic.",
}

# Published shapes: (family, hidden, intermediate, layers, heads, key/value heads, vocabulary, tied embeddings).
SHAPES = {
    "0.5 B (Qwen2.5-0.5B shape)": ("qwen2", 896, 4864, 24, 14, 2, 151_936, True),
    "1.5 B (Qwen2.5-1.5B shape)": ("qwen2", 1536, 8960, 28, 12, 2, 151_936, True),
    "3 B (Qwen2.5-3B shape)": ("qwen2", 2048, 11008, 36, 16, 2, 151_936, True),
    "8 B (Llama-3.1-8B shape)": ("llama", 4096, 14336, 32, 32, 8, 128_256, False),
}
BATCH = 8
MAX_POSITIONS = 4096


# ---------------------------------------------------------------------------------------------- inputs
def read_example(count: int, seed: int = 0):
    """The codebook prompt built from the example study, and ``count`` bill titles drawn with a seed."""
    import pandas as pd

    from guiapp.core.locations import example_path
    from guiapp.core.models.llm.codebook_prompt import CodebookPrompt, PromptCategory

    codebook = pd.read_excel(example_path(), sheet_name="Topic codebook", engine="calamine")
    bills = pd.read_excel(example_path(), sheet_name="Bills", engine="calamine")
    categories = [PromptCategory(str(row["Topic"]), DEFINITIONS[int(row["Topic code"])])
                  for _, row in codebook.iterrows()]
    titles = bills["Title"].astype(str).tolist()
    texts = random.Random(seed).sample(titles, count)
    return CodebookPrompt.build(categories), texts


def make_tokenizer():
    """The bundled MiniLM's WordPiece tokenizer without its [CLS]/[SEP] marks, truncation or padding."""
    from tokenizers import Tokenizer, processors
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer.from_file(str(Path(model_path()) / "tokenizer.json"))
    core.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B", special_tokens=[])
    core.no_truncation()
    core.no_padding()
    return PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", eos_token="[SEP]")


def wrap(net, tokenizer, name: str):
    import torch

    from guiapp.core.models.llm.causal_model import CausalModel

    net.eval()
    return CausalModel(name, Path("."), net, tokenizer, "cpu", f"CPU, {torch.get_num_threads()} threads",
                       "float32", "random", net.config.model_type)


def gpt2(tokenizer, width: int, layers: int, heads: int, seed: int = 0):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=MAX_POSITIONS, n_embd=width, n_layer=layers,
                        n_head=heads, bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id,
                        pad_token_id=tokenizer.pad_token_id)
    return GPT2LMHeadModel(config).eval()


def shaped_config(shape: tuple, layers: int | None = None):
    from transformers import LlamaConfig, Qwen2Config

    family, hidden, intermediate, depth, heads, kv_heads, vocab, tied = shape
    kind = Qwen2Config if family == "qwen2" else LlamaConfig
    return kind(vocab_size=vocab, hidden_size=hidden, intermediate_size=intermediate,
                num_hidden_layers=layers or depth, num_attention_heads=heads, num_key_value_heads=kv_heads,
                max_position_embeddings=MAX_POSITIONS, tie_word_embeddings=tied, pad_token_id=0, bos_token_id=102,
                eos_token_id=102)


def parameter_count(shape: tuple) -> int:
    """The full model's parameters, counted on the meta device (no memory allocated)."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        net = AutoModelForCausalLM.from_config(shaped_config(shape))
    return sum(p.numel() for p in net.parameters())


def shaped_model(shape: tuple, layers: int | None, seed: int = 0):
    import torch
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(shaped_config(shape, layers), dtype=torch.float32).eval()


# ---------------------------------------------------------------------------------------------- the ways
def by_label_scoring(model, prompts: list[str], names: list[str], batch: int = BATCH) -> np.ndarray:
    from guiapp.core.models.llm.label_scoring import score_prompts

    return score_prompts(model, prompts, names, batch_size=batch)


def by_generation(model, prompts: list[str], names: list[str], new_tokens: int, batch: int = BATCH) -> int:
    """Greedy generation of the answer, read back as a category; the number of answers that name none."""
    import torch

    from guiapp.core.models.llm.codebook_prompt import answer_key

    tokenizer, keys = model.tokenizer, {answer_key(name) for name in names}
    tokenizer.padding_side = "left"
    outside = 0
    for start in range(0, len(prompts), batch):
        encoded = tokenizer(prompts[start:start + batch], return_tensors="pt", padding=True)
        with torch.inference_mode():
            out = model.model.generate(**encoded, max_new_tokens=new_tokens, do_sample=False,
                                       pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
        for answer in tokenizer.batch_decode(out[:, encoded["input_ids"].shape[1]:], skip_special_tokens=True):
            outside += answer_key(answer) not in keys
    return outside


def by_one_pass_per_label(model, prompts: list[str], names: list[str]) -> np.ndarray:
    """Each category's mean log-probability from prompt + category in one pass per category (a text's
    passes batched, left-padded, scores kept only for the category's positions): no cache reused."""
    import torch

    from guiapp.core.models.llm.label_scoring import encode

    rows = []
    pad = model.tokenizer.pad_token_id
    for prompt in prompts:
        prompt_ids, labels_ids = encode(model.tokenizer, prompt, names)
        sequences = [prompt_ids + ids for ids in labels_ids]
        width, keep = max(map(len, sequences)), max(map(len, labels_ids)) + 1
        inputs = torch.tensor([[pad] * (width - len(s)) + s for s in sequences])
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in sequences])
        with torch.inference_mode():
            logits = model.model(input_ids=inputs, attention_mask=mask,
                                 position_ids=(mask.cumsum(dim=1) - 1).clamp(min=0), logits_to_keep=keep).logits
        scores = torch.log_softmax(logits.float(), dim=-1)
        row = []
        for place, ids in enumerate(labels_ids):
            n = len(ids)
            positions = torch.arange(keep - n - 1, keep - 1)
            row.append(float(scores[place, positions, torch.tensor(ids)].mean()))
        rows.append(row)
    return np.asarray(rows)


def timed(work, *args) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    result = work(*args)
    return time.perf_counter() - start, result


# ---------------------------------------------------------------------------------------------- runs
def small_models(prompt_builder, texts: list[str], tokenizer, quick: bool) -> list[dict]:
    from guiapp.core.models.llm.label_scoring import batch_log_likelihoods, encode

    names = list(prompt_builder.names)
    prompts = [prompt_builder.prompt(text) for text in texts]
    _, label_ids = encode(tokenizer, prompts[0], names)
    new_tokens = max(map(len, label_ids))
    results = []
    for title, width, layers, heads in [("tiny random GPT-2 (2 layers, width 16)", 16, 2, 2),
                                        ("random GPT-2, MiniLM scale (6 layers, width 384)", 384, 6, 12)]:
        model = wrap(gpt2(tokenizer, width, layers, heads), tokenizer, title)
        parameters = sum(p.numel() for p in model.model.parameters())
        by_label_scoring(model, prompts[:2], names, 2)  # warm-ups
        by_generation(model, prompts[:2], names, new_tokens, 2)
        scoring, probabilities = timed(by_label_scoring, model, prompts, names)
        generation, outside = timed(by_generation, model, prompts, names, new_tokens)
        few = prompts[:2 if quick else 8]
        no_cache, naive = timed(by_one_pass_per_label, model, few, names)
        cached = batch_log_likelihoods(model, few, names)
        results.append({"title": title, "parameters": parameters, "texts": len(prompts),
                        "scoring": scoring / len(prompts), "generation": generation / len(prompts),
                        "no_cache": no_cache / len(few), "no_cache_texts": len(few), "outside": outside,
                        "new_tokens": new_tokens, "sum_ok": bool(np.allclose(probabilities.sum(axis=1), 1.0)),
                        "difference": float(np.max(np.abs(cached - naive)))})
        del model
        gc.collect()
    return results


class LayerClock:
    """Seconds spent inside the model's decoder layers (forward hooks on each layer)."""

    def __init__(self, layers) -> None:
        self.seconds, self._started = 0.0, {}
        for index, layer in enumerate(layers):
            layer.register_forward_pre_hook(lambda _m, _a, index=index: self._started.__setitem__(index, time.perf_counter()))
            layer.register_forward_hook(lambda _m, _a, _o, index=index: self._stop(index))

    def _stop(self, index: int) -> None:
        self.seconds += time.perf_counter() - self._started.pop(index)


def large_shapes(prompts: list[str], names: list[str], tokenizer, check_full: bool) -> list[dict]:
    rows = []
    for title, shape in SHAPES.items():
        depth = shape[3]
        parameters = parameter_count(shape)
        built = time.perf_counter()
        model = wrap(shaped_model(shape, 2), tokenizer, title)
        built = time.perf_counter() - built
        by_label_scoring(model, ["Text: a bill.\nCategory:"], names, 1)  # warm-up
        clock = LayerClock(model.model.model.layers)
        total, _ = timed(by_label_scoring, model, prompts, names, len(prompts))
        per_layer = clock.seconds / 2 / len(prompts)
        rest = total / len(prompts) - 2 * per_layer
        del model, clock
        gc.collect()
        row = {"title": title, "parameters": parameters, "layers": depth, "estimate": rest + depth * per_layer,
               "per_layer": per_layer, "rest": rest, "texts": len(prompts), "built": built, "full": None}
        if check_full and depth == 24:
            model = wrap(shaped_model(shape, None), tokenizer, title)
            by_label_scoring(model, ["Text: a bill.\nCategory:"], names, 1)  # warm-up
            full, _ = timed(by_label_scoring, model, prompts, names, len(prompts))
            row["full"] = full / len(prompts)
            del model
            gc.collect()
        rows.append(row)
        print(f"  {title}: {row['estimate']:.2f} s per text (estimated; 2-layer model built in {built:.0f} s)", flush=True)
    return rows


# ---------------------------------------------------------------------------------------------- (d) a study
def study_table(count: int, seed: int = 0):
    """``count`` bill titles of the example's 4 commonest topics, as many of each (text, topic), drawn
    with a seed."""
    import pandas as pd

    from guiapp.core.locations import example_path

    bills = pd.read_excel(example_path(), sheet_name="Bills", engine="calamine")
    common = bills["Topic code"].value_counts().index[:4]
    chosen = pd.concat([bills[bills["Topic code"] == code].sample(count // 4, random_state=seed) for code in common])
    return pd.DataFrame({"text": chosen["Title"].astype(str).tolist(), "label": chosen["Topic"].astype(str).tolist(),
                         "code": chosen["Topic code"].astype(int).tolist()})


def estimate_against_study(tokenizer, folder: Path, count: int) -> list[dict]:
    """Run the small study on each saved random model; the estimate beside the measured seconds."""
    from guiapp.core.compute.machine_load import read_load
    from guiapp.core.experiment.run.run_size import estimate_run
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.experiment.speed.estimates import mean_subword_tokens
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    table = study_table(count)
    descriptions = {str(topic): DEFINITIONS[int(code)] for topic, code in zip(table["label"], table["code"])}
    rows = []
    for title, width, layers, heads in [("tiny random GPT-2 (2 layers, width 16)", 16, 2, 2),
                                        ("random GPT-2, MiniLM scale (6 layers, width 384)", 384, 6, 12)]:
        saved = folder / f"gpt2-{width}"
        gpt2(tokenizer, width, layers, heads).save_pretrained(saved)
        tokenizer.save_pretrained(saved)
        model = ModelSpec("codebook_llm", "in_textlab", representation_options={
            "model": str(saved), "descriptions": descriptions, "device": "cpu", "batch_size": BATCH, "sensitivity": 2},
            grid={"k": [0, 1]})
        spec = ExperimentSpec(data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
                              evaluation=EvaluationSpec(folds=2, bootstrap_samples=100), models=[model], seed=0)
        load = read_load()  # what the Run step allows for: other programs keeping the cores busy
        result = run_experiment(spec, table=table[["text", "label"]], n_jobs=1)
        found = result.models[0]
        if not found.ok:
            raise SystemExit(f"the study failed: {found.message}")
        n_train, n_test = result.split["n_train"], result.split["n_test"]
        train_texts = [text for text in table["text"] if text not in set(result.test_texts)]
        size = estimate_run(spec, n_train, n_test, len(result.categories), mean_tokens=mean_subword_tokens(train_texts),
                            load=load)
        planned = size.plan.models[0]
        slowdown = load.slowdown() if load is not None else 1.0
        rows.append({"title": title, "train": n_train, "test": n_test, "passes": planned.passes,
                     "estimate": planned.seconds, "loaded": planned.seconds * slowdown, "slowdown": slowdown,
                     "measured": found.seconds["total"], "load": os.getloadavg()[0]})
        print(f"  {title}: estimated {planned.seconds:.1f} s ({planned.seconds * slowdown:.1f} s allowing for the "
              f"machine's load), took {found.seconds['total']:.1f} s", flush=True)
    return rows


def machine() -> str:
    import torch

    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines()
        model = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("Model name"))
    except (OSError, subprocess.SubprocessError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {torch.get_num_threads()} threads (torch {torch.__version__}), Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer texts, no whole 0.5 B model (under 2 minutes)")
    parser.add_argument("--texts", type=int, default=None, help="texts for the small models (default 64; quick 8)")
    parser.add_argument("--large-texts", type=int, default=None, help="texts for the 0.5–8 B shapes (default 4; quick 1)")
    parser.add_argument("--check-full", action=argparse.BooleanOptionalAction, default=None,
                        help="also time the whole 0.5 B model (default: on, off with --quick)")
    parser.add_argument("--study-texts", type=int, default=None,
                        help="coded texts of the small study that checks the estimate (default 100; quick 40)")
    parser.add_argument("--only-study", action="store_true", help="only the estimate against a small study (d)")
    args = parser.parse_args()
    count = args.texts or (8 if args.quick else 64)
    large = args.large_texts or (1 if args.quick else 4)
    check_full = (not args.quick) if args.check_full is None else args.check_full

    started = time.perf_counter()
    prompt_builder, texts = read_example(max(count, large))
    tokenizer = make_tokenizer()
    names = list(prompt_builder.names)
    prompts = [prompt_builder.prompt(text) for text in texts]
    lengths = [len(tokenizer(p)["input_ids"]) for p in prompts]
    print(f"Machine: {machine()}; load average at the start {os.getloadavg()[0]:.2f} (other work slows every row)")
    print(f"Prompt: the example's {len(names)} topics with a definition each and one bill title; "
          f"{min(lengths)}–{max(lengths)} tokens (median {int(np.median(lengths))}), MiniLM's WordPiece pieces.\n")

    if args.only_study:
        study_section(tokenizer, args.study_texts or (40 if args.quick else 100))
        return
    small = small_models(prompt_builder, texts[:count], tokenizer, args.quick)
    print("| Model (random weights) | Parameters | Label scoring: texts/s | Generating the answer: texts/s "
          "| Scoring ÷ generating (time) | One pass per category: texts/s | Cache reuse ÷ one pass per category (time) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in small:
        print(f"| {r['title']} | {r['parameters'] / 1e6:.1f} M | {1 / r['scoring']:.1f} | {1 / r['generation']:.1f} "
              f"| {r['scoring'] / r['generation']:.2f} | {1 / r['no_cache']:.2f} | {r['scoring'] / r['no_cache']:.2f} |")
    for r in small:
        print(f"  {r['title']}: {r['texts']} texts in batches of {BATCH} ({r['no_cache_texts']} without the cache); "
              f"generation: up to {r['new_tokens']} new tokens, {r['outside']} of {r['texts']} answers named no "
              f"category (random weights); probabilities sum to one: {r['sum_ok']}; cached vs one-pass "
              f"log-likelihoods differ by at most {r['difference']:.1e}.")

    print("\nLarger models, estimated from 2 of their layers (random weights, float32, CPU):", flush=True)
    rows = large_shapes(prompts[:large], names, tokenizer, check_full)
    print("\n| Model shape | Parameters | Layers | Seconds per text (estimated) | Texts per hour "
          "| Memory, float32 | Memory, bfloat16 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['title']} | {r['parameters'] / 1e9:.2f} B | {r['layers']} | {r['estimate']:.1f} "
              f"| {3600 / r['estimate']:,.0f} | {r['parameters'] * 4 / 2**30:.1f} GiB "
              f"| {r['parameters'] * 2 / 2**30:.1f} GiB |")
    for r in rows:
        line = (f"  {r['title']}: {r['texts']} text(s) scored together; one layer {r['per_layer']:.2f} s per text, "
                f"embeddings, output layer and the categories' scores {max(r['rest'], 0):.2f} s; "
                f"per text = rest + {r['layers']} × one layer")
        if r["full"] is not None:
            line += (f"; the whole model, built and timed: {r['full']:.2f} s per text "
                     f"(estimate ÷ measured = {r['estimate'] / r['full']:.2f})")
        print(line + ".")
    print("  Memory: the weights only (parameters × 4 or 2 bytes); the prompt's cache and the scores add a little.")
    study_section(tokenizer, args.study_texts or (40 if args.quick else 100))
    print(f"\nTotal time of this run: {time.perf_counter() - started:.0f} s; load average at the end "
          f"{os.getloadavg()[0]:.2f}")


def study_section(tokenizer, count: int) -> None:
    import tempfile

    print(f"\nThe study's time estimate against the time taken ({count} bill titles of 4 topics, 2 folds, "
          "k = 0 and 1, 2 wordings):", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as folder:
        rows = estimate_against_study(tokenizer, Path(folder), count)
    print("\n| Model (random weights) | Training / test texts | Prompts | Estimated, idle machine "
          "| Estimated, allowing for the load (as the Run step says) | Taken | Estimated ÷ taken (idle / load) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['title']} | {r['train']} / {r['test']} | {r['passes']:,} | {r['estimate']:.1f} s "
              f"| {r['loaded']:.1f} s (× {r['slowdown']:.2f}) | {r['measured']:.1f} s "
              f"| {r['estimate'] / r['measured']:.2f} / {r['loaded'] / r['measured']:.2f} |")
    print("  The estimate includes importing PyTorch and Transformers (6 s), counted whether or not they were "
          f"loaded before; load average at the end {os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()
