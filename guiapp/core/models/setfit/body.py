"""The sentence model SetFit fine-tunes, and the vector it gives a text.

A text's vector is the mean of the model's last hidden states over the text's tokens (weighted by
the attention mask), L2-normalised: what sentence-transformers computes for all-MiniLM-L6-v2, and
what the sentence-embedding representation computes. Long texts keep their first tokens, as in
sentence-transformers. The model is opened with the engine's safe loading: a checked folder,
safetensors weights only, never code from the folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.models.transformers.sources import files
from guiapp.core.models.transformers.sources.registry import BUNDLED_KEY
from guiapp.core.models.transformers.sources.resolve import resolve_model
from guiapp.core.models.transformers.training.batches import collate, pad_id, sorted_batches
from guiapp.core.models.transformers.training.cpu_threads import CpuThreads
from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches
from guiapp.core.models.transformers.training.truncation import Encoded, encode_texts, position_limit, token_limit

DEFAULT_MODEL = BUNDLED_KEY  # all-MiniLM-L6-v2, bundled with TextLab
PREDICT_BATCH = 64


def open_body(folder: str | Path) -> tuple[Any, Any]:
    """The sentence model (without any head) and its tokenizer from a checked model folder."""
    from transformers import AutoModel

    folder = Path(folder)
    files.check_folder(folder)
    tokenizer = files.load_tokenizer(folder, True)
    try:
        with files.quiet_loading():
            net = AutoModel.from_pretrained(str(folder), local_files_only=True, use_safetensors=True,
                                            trust_remote_code=False)
    except Exception as exc:
        raise UserError(f"The sentence model in {folder} could not be opened: its files are damaged, "
                        "incomplete or of an unsupported kind.",
                        "Copy the model folder again, or choose another model; if TextLab saved it, train it again.",
                        details=f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(getattr(net.config, "hidden_size", None), int):
        raise UserError(f"The model in {folder} does not say how many numbers its text vectors have.",
                        "Choose a sentence model such as the bundled all-MiniLM-L6-v2.")
    return net, tokenizer


def load_body(source: str | Path | None, on_event: EventCallback = ignore_events) -> tuple[Any, Any, Path]:
    """The pretrained sentence model ``source`` names (the bundled MiniLM when None), a fresh copy
    that may be trained, its tokenizer and its folder."""
    folder = resolve_model(str(source) if source is not None else DEFAULT_MODEL, on_event)
    net, tokenizer = open_body(folder)
    return net, tokenizer, folder


def encode(tokenizer: Any, config: Any, texts: Sequence[str], max_length: int) -> Encoded:
    """Token ids of ``texts``, each cut to its first :func:`token_limit` tokens."""
    return encode_texts(tokenizer, list(texts), token_limit(tokenizer, config, max_length), "head")


def pooled(net: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """The texts' vectors: mean of the last hidden states over real tokens, L2-normalised, in 32-bit numbers."""
    hidden = net(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state.float()
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
    return torch.nn.functional.normalize(mean, p=2, dim=1)


def autocast_dtype(device: torch.device, bf16: bool) -> torch.dtype | None:
    """bfloat16 on a GPU that has it; full precision elsewhere (the sentence model is small)."""
    return torch.bfloat16 if device.type == "cuda" and bf16 else None


def embed(net: Any, tokenizer: Any, encoded: Encoded, device: torch.device, bf16: bool,
          on_event: EventCallback = ignore_events, what: str = "Reading texts",
          batch_size: int = PREDICT_BATCH) -> np.ndarray:
    """The vector of every encoded text (rows in their order), in batches of similar length,
    longest first, reporting progress after each batch (which may raise ``Cancelled``)."""
    n = len(encoded.input_ids)
    dimensions = int(net.config.hidden_size)
    out = np.zeros((n, dimensions), dtype=np.float64)
    on_event(Progress(0.0 if n else 1.0, f"{what}: 0 of {n:,} texts", 0, n))
    if n == 0:
        return out
    dtype = autocast_dtype(device, bf16)
    padding, done = pad_id(tokenizer), 0
    net.eval()
    with CpuThreads(enabled=device.type == "cpu" and SpeedSwitches.from_environment().threads) as threads:
        for indices in sorted_batches(encoded.lengths, batch_size):
            batch = collate(encoded.input_ids, indices, padding, pin_memory=device.type == "cuda").to(device)
            with torch.inference_mode(), torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                out[indices] = pooled(net, batch.input_ids, batch.attention_mask).cpu().numpy()
            threads.tick()
            done += len(indices)
            on_event(Progress(done / n, f"{what}: {done:,} of {n:,} texts", done, n))
    return out


__all__ = ["DEFAULT_MODEL", "autocast_dtype", "embed", "encode", "load_body", "open_body", "pooled", "position_limit",
           "token_limit"]
