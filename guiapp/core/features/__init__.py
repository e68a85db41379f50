"""Text representations: turn texts into numbers that a classifier can learn from.

Each representation is a scikit-learn transformer with a fast path for cross-validation
(``prepare`` once, then ``fit_prepared``/``transform_prepared`` per fold):

- :class:`BagOfWords` — the basic bag of words (``"bow"``);
- :class:`AveragedWordVectors` — mean GloVe/word2vec vectors (``"word_vectors"``);
- :class:`SentenceEmbeddings` — mean-pooled Transformer embeddings (``"sentence_embeddings"``).
"""

# Where each name lives: imported on first use (PEP 562), so that reading a light module of this
# package (tokens, stop words) does not load scikit-learn, which the representations build on.
_HOMES = {
    "BagOfWords": "bow",
    "BowPrepared": "bow",
    "DESCRIPTIONS": "registry",
    "OPTION_CHOICES": "registry",
    "OPTION_HELP": "registry",
    "REPRESENTATIONS": "registry",
    "default_options": "registry",
    "make_representation": "registry",
    "validate_options": "registry",
    "EmbeddingsPrepared": "sentence_embeddings",
    "SentenceEmbeddings": "sentence_embeddings",
    "STEM_LANGUAGES": "stemming",
    "STOP_WORD_LANGUAGES": "stop_words",
    "BUNDLED_VECTORS": "word_vector_files",
    "WordVectors": "word_vector_files",
    "convert_word_vector_file": "word_vector_files",
    "open_word_vectors": "word_vector_files",
    "AveragedWordVectors": "word_vectors",
    "VectorsPrepared": "word_vectors",
}


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "BUNDLED_VECTORS",
    "DESCRIPTIONS",
    "OPTION_CHOICES",
    "OPTION_HELP",
    "REPRESENTATIONS",
    "STEM_LANGUAGES",
    "STOP_WORD_LANGUAGES",
    "AveragedWordVectors",
    "BagOfWords",
    "BowPrepared",
    "EmbeddingsPrepared",
    "SentenceEmbeddings",
    "VectorsPrepared",
    "WordVectors",
    "convert_word_vector_file",
    "default_options",
    "make_representation",
    "open_word_vectors",
    "validate_options",
]
