"""Text representations: turn texts into numbers that a classifier can learn from.

Each representation is a scikit-learn transformer with a fast path for cross-validation
(``prepare`` once, then ``fit_prepared``/``transform_prepared`` per fold):

- :class:`BagOfWords` — the basic bag of words (``"bow"``);
- :class:`AveragedWordVectors` — mean GloVe/word2vec vectors (``"word_vectors"``);
- :class:`SentenceEmbeddings` — mean-pooled Transformer embeddings (``"sentence_embeddings"``).
"""

from guiapp.core.features.bow import BagOfWords, BowPrepared
from guiapp.core.features.registry import (
    DESCRIPTIONS,
    OPTION_CHOICES,
    OPTION_HELP,
    REPRESENTATIONS,
    default_options,
    make_representation,
    validate_options,
)
from guiapp.core.features.sentence_embeddings import (
    EmbeddingsPrepared,
    SentenceEmbeddings,
)
from guiapp.core.features.stemming import STEM_LANGUAGES
from guiapp.core.features.stop_words import STOP_WORD_LANGUAGES
from guiapp.core.features.word_vector_files import (
    BUNDLED_VECTORS,
    WordVectors,
    convert_word_vector_file,
    open_word_vectors,
)
from guiapp.core.features.word_vectors import AveragedWordVectors, VectorsPrepared

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
