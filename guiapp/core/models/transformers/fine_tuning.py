"""Fine-tuning a Transformer on the user's coded texts, predicting, saving and opening it.

The public face of the Transformer family (the runner calls these):

- :class:`FineTuneSettings` — the reference paper's defaults (AdamW, lr falling linearly to 0,
  no warm-up, dropout 0.1, batch 16; 512 tokens, first 128 + last 382 kept of longer texts).
- :func:`pick_device` — CUDA > Apple MPS > CPU.
- :func:`fine_tune` → :class:`FineTuned`; :func:`predict_proba`; :func:`decide`.
- :func:`save_fine_tuned` / :func:`load_fine_tuned` — safetensors only, atomic, never run code.

One category per text (labels are category indices): a softmax over the categories, trained with
cross-entropy. Several categories per text (labels are a 0/1 matrix, text × category): the model's
configuration says ``multi_label_classification``, each category has its own sigmoid probability,
trained with binary cross-entropy, and a text is put in every category whose probability reaches
that category's threshold (0.5 unless the study tuned them; saved with the model).

Texts are tokenized once (``training/truncation.py``); batches group texts of similar length and
are padded only to their longest text (``training/batches.py``); the loop, mixed precision and
the GPU-memory backoff live in ``training/loop.py``, its speed-ups in ``training/speed_switches.py``
(on the CPU, torch's threads follow the free cores: ``training/cpu_threads.py``); files in
``sources/files.py``. Everything is seeded from ``settings.seed``: two runs on the same computer
with the same number of threads give identical weights.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.models.transformers import fast_inference
from guiapp.core.models.transformers.answer_agreement import DECISION, MULTI_LABEL_PROBABILITIES, PROBABILITIES
from guiapp.core.models.transformers.sources import files
from guiapp.core.models.transformers.training.batches import collate, pad_id, sorted_batches
from guiapp.core.models.transformers.training.cpu_threads import CpuThreads
from guiapp.core.models.transformers.training.first_token import first_token_only
from guiapp.core.models.transformers.training.loop import (
    autocast_dtype,
    free_memory,
    halving_on_lack_of_memory,
    train,
)
from guiapp.core.models.transformers.training.settings import DEVICES, FineTuneSettings
from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches
from guiapp.core.models.transformers.training.truncation import encode_texts, position_limit


@dataclass(frozen=True)
class DeviceInfo:
    kind: str  # "cuda" | "mps" | "cpu"
    name: str  # "NVIDIA H100 80GB HBM3", "CPU, 2 threads"
    bf16: bool = False


@dataclass
class FineTuned:
    model: Any
    tokenizer: Any
    device: DeviceInfo
    settings: FineTuneSettings
    losses: list[float] = field(default_factory=list)  # per optimizer step
    n_truncated: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    samples_per_second: float = 0.0
    # multi-label: each category's decision threshold (empty: 0.5 each); unused for one category per text
    thresholds: list[float] = field(default_factory=list)

    @property
    def n_labels(self) -> int:
        return int(self.model.config.num_labels)

    @property
    def multi_label(self) -> bool:
        """Whether a text can have several categories (one sigmoid probability per category)."""
        return files.is_multi_label(self.model.config)

    def decision_thresholds(self) -> np.ndarray:
        """Each category's threshold (multi-label): the saved ones, else 0.5 each."""
        return np.asarray(self.thresholds if self.thresholds else [DECISION] * self.n_labels, dtype=np.float64)


def pick_device(preference: str = "auto") -> DeviceInfo:
    """The device to compute on: an NVIDIA GPU, else an Apple GPU, else the CPU."""
    if preference not in DEVICES:
        raise UserError(f"Unknown device {preference!r}.", f"Choose one of {', '.join(DEVICES)}.")
    if preference in ("auto", "cuda") and torch.cuda.is_available():
        name = torch.cuda.get_device_name(torch.cuda.current_device())
        return DeviceInfo("cuda", name, bool(torch.cuda.is_bf16_supported(including_emulation=False)))
    if preference == "cuda":
        raise UserError("No NVIDIA GPU (CUDA) is available on this computer.",
                        "Choose 'automatic' or 'CPU' as the device, or check the GPU driver.")
    mps = getattr(torch.backends, "mps", None)
    if preference in ("auto", "mps") and mps is not None and mps.is_available():
        return DeviceInfo("mps", "Apple GPU (MPS)", False)
    if preference == "mps":
        raise UserError("No Apple GPU (MPS) is available on this computer.", "Choose 'automatic' or 'CPU' as the device.")
    return DeviceInfo("cpu", f"CPU, {torch.get_num_threads()} threads", False)


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch (all devices); a generator for shuffling."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def fine_tune(
    model_path: str | Path,
    texts: Sequence[str],
    labels: np.ndarray,
    n_labels: int,
    settings: FineTuneSettings,
    on_event: EventCallback = ignore_events,
) -> FineTuned:
    """Fine-tune the pretrained model at ``model_path`` on ``texts`` coded as ``labels``: integers
    0 … n_labels - 1 (one category per text), or a 0/1 matrix of shape (texts, n_labels) when a text
    can have several categories (a multi-label model: sigmoid per category, binary cross-entropy)."""
    settings.check()
    labels = _checked_labels(texts, labels, n_labels)
    multi_label = labels.ndim == 2
    info = pick_device(settings.device)
    device = torch.device(info.kind)
    switches = SpeedSwitches.from_environment()
    # measures how busy the cores are while the model loads, and chooses the threads from that
    threads = CpuThreads(enabled=device.type == "cpu" and switches.threads)
    on_event(Progress(0.0, "Loading the Transformer model", 0, None))
    generator = seed_everything(settings.seed)  # before loading: the new head's weights are drawn
    model, tokenizer, new_weights = files.load_pretrained(model_path, n_labels, settings.dropout, multi_label)
    try:
        encoded = encode_texts(tokenizer, list(texts), position_limit(settings.max_length, model.config),
                               settings.truncation)
        n_params = sum(p.numel() for p in model.parameters())
        steps = -(-len(labels) // settings.batch_size) * settings.epochs
        head = f" with a new output layer for {n_labels} categories" if new_weights else ""
        if multi_label:
            head += " (a text can have several: a yes-or-no probability per category)"
        on_event(Log(
            f"Fine-tuning {model_name(model_path)} ({n_params / 1e6:.1f} million weights){head} "
            f"on {info.name}: {len(labels)} texts, {settings.epochs} epochs, {steps} steps of "
            f"{settings.batch_size} texts, learning rate {settings.learning_rate:g}."
        ))
        dtype = autocast_dtype(device, settings.mixed_precision, info.bf16)
        if dtype is not None:
            on_event(Log(f"Mixed precision: {'bfloat16' if dtype == torch.bfloat16 else 'float16 with loss scaling'}."))
        if encoded.n_truncated:
            on_event(Log(
                f"{encoded.n_truncated} of {len(labels)} texts were longer than {encoded.max_length} "
                f"tokens and were cut ({encoded.kept})."
            ))
        model.to(device)
        with threads:
            if device.type == "cpu":
                on_event(Log(f"Computing with {threads.describe()}."))
            outcome = train(model, encoded.input_ids, encoded.lengths, labels, pad_id(tokenizer), settings,
                            device, info.bf16, generator, on_event, threads, switches)
        if device.type == "cpu" and threads.slowed:
            outcome.notes.append(f"Other programs kept this computer's cores busy during training: TextLab "
                                 f"trained with {threads.describe()}.")
    except BaseException:
        model.to("cpu")
        del model
        free_memory(device)
        raise
    return FineTuned(model, tokenizer, info, settings, outcome.losses, encoded.n_truncated, outcome.notes,
                     outcome.seconds, outcome.samples_per_second)


def predict_proba(
    model: FineTuned, texts: Sequence[str], on_event: EventCallback = ignore_events, batch_size: int = 64
) -> np.ndarray:
    """Probabilities of each category, shape (n texts, n categories); rows sum to 1 — for a
    multi-label model each is its category's own probability (sigmoid), and rows need not sum to 1.

    On the processor they may come faster in 16-bit numbers, checked against exact ones on the
    texts being answered (``fast_inference.py``); the model's ``mixed_precision`` setting or
    ``TEXTLAB_FAST_INFERENCE=0`` keeps them exact."""
    settings = model.settings
    net, device = model.model, torch.device(model.device.kind)
    texts = list(texts)
    n = len(texts)
    multi_label = model.multi_label
    kind = MULTI_LABEL_PROBABILITIES if multi_label else PROBABILITIES
    fast = fast_inference.fast_path_for(net, kind, device.type, settings.mixed_precision)
    extra = fast_inference.extra_texts(fast, n)  # a new model's check, topped up to enough texts
    encoded = encode_texts(model.tokenizer, texts + extra, position_limit(settings.max_length, net.config),
                           settings.truncation)
    dtype = autocast_dtype(device, settings.mixed_precision, model.device.bf16)
    padding = pad_id(model.tokenizer)
    net.eval()
    on_event(Progress(0.0 if n else 1.0, f"Predicting: 0 of {n} texts", 0, n))
    switches = SpeedSwitches.from_environment()
    done = [0]

    def report(indices: np.ndarray) -> None:
        done[0] += int((indices < n).sum())  # the extra texts of a check are not the user's
        on_event(Progress(done[0] / n, f"Predicting: {done[0]} of {n} texts", done[0], n))

    with CpuThreads(enabled=device.type == "cpu" and switches.threads) as threads, \
            first_token_only(net, switches.first_token):
        def run(indices: np.ndarray, use_fast: bool, counted: bool) -> np.ndarray:
            size = min(batch_size, fast_inference.FAST_BATCH) if use_fast else batch_size
            run_dtype = fast_inference.fast_dtype() if use_fast else dtype
            # one autocast block around all batches: the weights are cast to 16 bits once, not per batch
            with torch.autocast(device.type, dtype=run_dtype, enabled=use_fast):
                return _predict_batches(net, encoded.input_ids, encoded.lengths, indices, model.n_labels,
                                        max(1, size), device, run_dtype, padding, threads,
                                        report if counted else _no_report, multi_label)

        out = fast_inference.answer(run, n + len(extra), fast, on_event, np.asarray(encoded.lengths), own=n)
    if not multi_label:
        out /= out.sum(axis=1, keepdims=True).clip(min=1e-300)
    return out


def decide(model: FineTuned, probabilities: np.ndarray) -> np.ndarray:
    """The model's decisions from its probabilities: the category index per text, or — for a
    multi-label model — a 0/1 matrix (text × category) of the categories at or above their thresholds."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if not model.multi_label:
        return probabilities.argmax(axis=1)
    return (probabilities >= model.decision_thresholds()).astype(np.uint8)


def _checked_labels(texts: Sequence[str], labels: np.ndarray, n_labels: int) -> np.ndarray:
    """``labels`` as int64 category indices, or as a uint8 0/1 matrix (texts × n_labels); ValueError
    when they do not fit the texts or the number of categories."""
    labels = np.asarray(labels)
    if len(texts) != len(labels) or len(labels) == 0:
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    if labels.ndim == 2:
        if n_labels < 1 or labels.shape[1] != n_labels:
            raise ValueError(f"a label matrix of {labels.shape[1]} columns for {n_labels} categories")
        if not np.isin(labels, (0, 1)).all():
            raise ValueError("a label matrix must hold only 0 and 1")
        return labels.astype(np.uint8)
    labels = labels.astype(np.int64)
    if labels.ndim != 1 or n_labels < 2 or labels.min() < 0 or labels.max() >= n_labels:
        raise ValueError(f"labels must lie in 0 … {n_labels - 1}")
    return labels


def _no_report(indices: np.ndarray) -> None:
    pass


def _predict_batches(net: Any, input_ids: Sequence[Sequence[int]], lengths: np.ndarray, indices: np.ndarray,
                     n_labels: int, batch_size: int, device: torch.device, dtype: torch.dtype | None, pad_id: int,
                     threads: CpuThreads, report: Callable[[np.ndarray], None], multi_label: bool = False) -> np.ndarray:
    """The probabilities of the texts at ``indices`` (rows in that order), in batches of similar
    length, longest first (halved on a lack of memory): a softmax over the categories, or with
    ``multi_label`` each category's own sigmoid."""
    out = np.zeros((len(indices), n_labels), dtype=np.float64)

    def answer(positions: np.ndarray) -> None:
        with torch.inference_mode(), torch.autocast(device.type, dtype=dtype, enabled=dtype is not None), \
                _attention_without_cudnn(device, dtype):
            batch = collate(input_ids, indices[positions], pad_id, pin_memory=device.type == "cuda").to(device)
            logits = net(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits
            logits = logits.float()
            answers = torch.sigmoid(logits) if multi_label else torch.softmax(logits, dim=-1)
            out[positions] = answers.cpu().numpy()

    for positions in halving_on_lack_of_memory(sorted_batches(np.asarray(lengths)[indices], batch_size), device,
                                               answer):  # longest first
        threads.tick()
        report(indices[positions])
    return out


def _attention_without_cudnn(device: torch.device, dtype: torch.dtype | None):  # noqa: ANN202 — a context
    """On a GPU in 16-bit numbers, attention through any backend but cuDNN's: cuDNN builds a plan for
    every new text length, which made answering several times slower than in 32-bit numbers."""
    if device.type != "cuda" or dtype is None:
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])


def save_fine_tuned(model: FineTuned, folder: Path, categories: list[str],
                    thresholds: Sequence[float] | None = None) -> None:
    """Save weights (safetensors), config, tokenizer and the category list, atomically. A
    multi-label model also records that it is one and each category's decision ``thresholds``
    (given here, else the model's own, else 0.5 each)."""
    categories = [str(c) for c in categories]
    if len(categories) != model.n_labels:
        raise ValueError(f"{len(categories)} category names for a model of {model.n_labels} categories")
    if thresholds is not None and not model.multi_label:
        raise ValueError("decision thresholds belong to a model whose texts can have several categories")
    if model.multi_label:
        thresholds = _checked_thresholds(model.thresholds if thresholds is None else thresholds, model.n_labels)
    config = model.model.config
    config.id2label = dict(enumerate(categories))
    config.label2id = {name: index for index, name in enumerate(categories)}
    meta = {
        "categories": categories,
        "settings": asdict(model.settings),
        "trained_on": asdict(model.device),
        "losses": model.losses,
        "n_truncated": model.n_truncated,
        "notes": model.notes,
        "seconds": model.seconds,
        "samples_per_second": model.samples_per_second,
    }
    if model.multi_label:  # single-label folders stay as they were
        meta.update(multi_label=True, thresholds=thresholds)
    files.write_folder(model.model, model.tokenizer, Path(folder), meta)


def _checked_thresholds(thresholds: Sequence[float], n_labels: int) -> list[float]:
    """One threshold in [0, 1] per category (none given: 0.5 each); ValueError otherwise."""
    values = [float(t) for t in thresholds] if len(thresholds) else [DECISION] * n_labels
    if len(values) != n_labels or not all(0.0 <= t <= 1.0 for t in values):
        raise ValueError(f"{len(values)} decision thresholds for {n_labels} categories (each between 0 and 1 needed)")
    return values


def load_fine_tuned(folder: Path) -> tuple[FineTuned, list[str]]:
    """Open a model saved by :func:`save_fine_tuned` on the best device here; never runs code."""
    net, tokenizer, meta = files.read_folder(Path(folder))
    saved = meta.get("settings") if isinstance(meta.get("settings"), dict) else {}
    try:  # each recorded value of the type it must have: a damaged or forged file is refused in words
        settings = FineTuneSettings.from_saved(saved)
        losses, notes = meta.get("losses", []), meta.get("notes", [])
        if not isinstance(losses, list) or not isinstance(notes, list):
            raise ValueError("its training record is not a list")
        record = ([float(x) for x in losses], int(meta.get("n_truncated", 0)), [str(x) for x in notes],
                  float(meta.get("seconds", 0.0)), float(meta.get("samples_per_second", 0.0)))
        thresholds = _saved_thresholds(meta, net.config)
    except (TypeError, ValueError, UserError) as error:
        reason = (error.message.split(": ", 1)[-1] if isinstance(error, UserError) else str(error)).rstrip(".")
        raise UserError(f"The saved model in {folder} records settings TextLab cannot use ({reason}).",
                        "Its textlab_labels.json may be damaged or was not written by TextLab; train the model "
                        "again.") from None
    info = pick_device("auto")
    net.to(torch.device(info.kind))
    net.eval()
    fine_tuned = FineTuned(net, tokenizer, info, settings, *record, thresholds=thresholds)
    return fine_tuned, [str(c) for c in meta["categories"]]


def _saved_thresholds(meta: dict[str, Any], config: Any) -> list[float]:
    """A saved multi-label model's thresholds (0.5 each where none were recorded); [] for a model of
    one category per text. ValueError when the label file and the model's configuration disagree."""
    recorded = meta.get("multi_label")
    if recorded is None:  # one category per text, as every model saved before multi-label ones
        if files.is_multi_label(config):  # a configuration inherited from the pretrained model
            config.problem_type = None
        return []
    if recorded is not True or not files.is_multi_label(config):
        raise ValueError("its label file and its configuration disagree on whether a text can have several "
                         "categories")
    saved = meta.get("thresholds", [])
    if not isinstance(saved, list):
        raise ValueError("its decision thresholds are not a list")
    return _checked_thresholds(saved, int(config.num_labels))


def model_name(model_path: str | Path) -> str:
    """A short name for a model: its folder's or hub name (the bundled model by its own name)."""
    from guiapp.core.models.transformers.sources.registry import BUNDLED_KEY
    from guiapp.core.models.transformers.sources.resolve import bundled_model_path

    try:
        if Path(model_path).resolve() == bundled_model_path().resolve():
            return BUNDLED_KEY
    except (UserError, OSError):
        pass
    return Path(str(model_path)).name or str(model_path)


__all__ = [
    "DeviceInfo", "FineTuneSettings", "FineTuned", "decide", "fine_tune", "load_fine_tuned", "pick_device",
    "predict_proba", "save_fine_tuned", "seed_everything",
]
