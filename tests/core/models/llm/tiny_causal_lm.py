"""A tiny randomly initialised causal language model and its tokenizer, built in the test and saved
to a folder, so the language-model code is tested offline in a second (nothing from the hub).

The tokenizer knows whole words (a word-level vocabulary made here, with an unknown-word token), so
a label such as "Economy" is one token and "public health" is two: the tests can raise one
label's first token in the output layer and know which category must win.
"""

from __future__ import annotations

from pathlib import Path

WORDS = (
    "Text", "text", "Answer", "answer", "Category", "category", ":", ".", ",", "?", "the", "a", "is", "about",
    "Economy", "Health", "Sport", "public", "health", "care", "Yes", "No", "Does", "this", "belong", "to",
    "taxes", "rose", "team", "won", "doctors", "hospital", "prices", "match", "goal", "policy",
)
SPECIAL = ("<unk>", "<pad>", "<eos>")


def tiny_tokenizer():
    """A word-level fast tokenizer over :data:`WORDS` (punctuation split off, unknown words → <unk>)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {token: index for index, token in enumerate(SPECIAL + WORDS)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    return PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")


def tiny_causal_lm(folder: str | Path, kind: str = "gpt2", seed: int = 0) -> Path:
    """Save a tiny random causal LM (``kind`` "gpt2" or "llama", a few thousand parameters) and its
    tokenizer to ``folder``; the folder."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    folder = Path(folder)
    tokenizer = tiny_tokenizer()
    size = len(tokenizer)
    torch.manual_seed(seed)
    if kind == "gpt2":
        config = GPT2Config(vocab_size=size, n_positions=64, n_embd=16, n_layer=2, n_head=2,
                            bos_token_id=2, eos_token_id=2, pad_token_id=1)
        model = GPT2LMHeadModel(config)
    elif kind == "llama":
        config = LlamaConfig(vocab_size=size, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                             num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                             bos_token_id=2, eos_token_id=2, pad_token_id=1, tie_word_embeddings=False)
        model = LlamaForCausalLM(config)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
