"""A tiny language model in llama.cpp's GGUF format, written in the test with the ``gguf`` package,
so a real llama.cpp server (llama-cpp-python's ``llama_cpp.server``) can be started on it offline.

The model is a Llama-architecture transformer (two layers, 16 dimensions) with a SentencePiece
("llama") vocabulary: the control tokens of a small chat template, the 256 byte tokens (so any text
can be read), a word piece for each answer (" economy", " health", " sport") and some punctuation.
Its weights are random except where they decide what it answers, so that it behaves like a model
that follows the codebook's answer format: after the chat template's assistant marker it writes one
of the answers (``favourite`` most likely), then it ends its answer. Its top log-probabilities at
the answer hold exactly the answers and the punctuation (which begins no answer), so a test knows
which answers the server can report. It is a few hundred kilobytes and is written in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

CHAT_TEMPLATE = ("{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}<|end|>"
                 "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
CONTROL = ("<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>")
# Pieces whose log-probabilities come just below the answers' after the assistant marker: none
# begins an answer, so the server reports exactly the answers' probabilities among its top 20.
FILLERS = (".", ",", ":", ";", "!", "?", "-", "(", ")", "'", "*", "/", "#", "&", "%", "+", "=")
MODEL_NAME = "tiny-llama-gguf"


def vocabulary(answers: Sequence[str]) -> tuple[list[str], list[int]]:
    """The tokens and their types (gguf's TokenType numbers): unknown, control, bytes, then the
    space piece, each answer as a word piece, the punctuation."""
    from gguf import TokenType

    tokens = ["<unk>", *CONTROL]
    types = [TokenType.UNKNOWN] + [TokenType.CONTROL] * len(CONTROL)
    tokens += [f"<0x{value:02X}>" for value in range(256)]
    types += [TokenType.BYTE] * 256
    pieces = ["\u2581", *(f"\u2581{answer}" for answer in answers), *FILLERS]
    tokens += pieces
    types += [TokenType.NORMAL] * len(pieces)
    return tokens, [int(kind) for kind in types]


def tiny_gguf(path: str | Path, answers: Sequence[str] = ("economy", "health", "sport"),
              favourite: str | None = None, seed: int = 0) -> Path:
    """Write the tiny model to ``path`` (a ``.gguf`` file) and return it. After the assistant marker
    it answers ``favourite`` (default: the last answer) most likely, the other answers less, then
    ends; ``seed`` draws the random weights."""
    import numpy as np
    from gguf import GGUFWriter

    answers = [str(answer) for answer in answers]
    favourite = answers[-1] if favourite is None else favourite
    if favourite not in answers:
        raise ValueError(f"the favourite answer {favourite!r} is not among {answers!r}")
    tokens, types = vocabulary(answers)
    index = {token: number for number, token in enumerate(tokens)}
    size, dim, hidden, layers, heads, kv_heads = len(tokens), 16, 32, 2, 2, 1
    head_dim = dim // heads
    rng = np.random.default_rng(seed)

    def random(*shape: int, scale: float = 0.1) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    # Dimension 0 is on for every token, dimension 1 only for the assistant marker; the others are
    # random. The output layer reads them: after the marker the answers are likely, after any other
    # token the end of the answer is.
    embedding = random(size, dim, scale=0.3)
    embedding[:, 0] = 3.0
    embedding[:, 1] = 0.0
    embedding[index["<|assistant|>"], 1] = 3.0
    output = np.zeros((size, dim), dtype=np.float32)
    output[index["</s>"], :2] = (2.0, -4.0)
    for answer in answers:
        row = index[f"\u2581{answer}"]
        output[row, 1] = 3.5 if answer == favourite else 3.0
        output[row, 2:] = random(dim - 2, scale=0.3)
    for filler in FILLERS:
        output[index[filler], 1] = 1.5

    writer = GGUFWriter(str(path), "llama")
    writer.add_name(MODEL_NAME)
    writer.add_context_length(2048)
    writer.add_embedding_length(dim)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(hidden)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(head_dim)
    writer.add_vocab_size(size)
    writer.add_file_type(0)  # all weights in 32-bit floats
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * size)
    writer.add_token_types(types)
    writer.add_unk_token_id(index["<unk>"])
    writer.add_bos_token_id(index["<s>"])
    writer.add_eos_token_id(index["</s>"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    writer.add_tensor("token_embd.weight", embedding)
    for layer in range(layers):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(dim, dtype=np.float32))
        writer.add_tensor(f"{block}.attn_q.weight", random(dim, dim))
        writer.add_tensor(f"{block}.attn_k.weight", random(kv_heads * head_dim, dim))
        writer.add_tensor(f"{block}.attn_v.weight", random(kv_heads * head_dim, dim))
        writer.add_tensor(f"{block}.attn_output.weight", random(dim, dim))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(dim, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", random(hidden, dim))
        writer.add_tensor(f"{block}.ffn_up.weight", random(hidden, dim))
        writer.add_tensor(f"{block}.ffn_down.weight", random(dim, hidden))
    writer.add_tensor("output_norm.weight", np.ones(dim, dtype=np.float32))
    writer.add_tensor("output.weight", output)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(path)
