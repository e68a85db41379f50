"""Sentence embeddings are kept on disk one text at a time: a later session (a reopened project)
embeds only the texts it has never seen, whatever lists the texts came in before."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.quick_model import EMBEDDINGS, FeatureCache, pool_features
from guiapp.core.events import Log, Progress
from guiapp.core.features import embedding_store
from guiapp.core.features.embedding_store import KEYS_SUFFIX, EmbeddingStore
from guiapp.core.features.sentence_embeddings import SentenceEmbeddings


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))


class StoredLetters:
    """Embeddings that count what they embed, with a key for the store as the real ones have."""

    def __init__(self, key: str = "letters") -> None:
        self.key, self.embedded = key, []

    def prepare_settings(self) -> tuple:
        return ("letters",)

    def text_store_key(self) -> str:
        return self.key

    def prepare(self, texts, on_event, *, cache=True):
        assert not cache  # the store keeps them; the whole-list cache would keep them twice
        self.embedded += texts

        class Prepared:
            matrix = np.array([[text.count(c) for c in "aeiou"] for text in texts], dtype=np.float32)

        return Prepared()


def test_the_store_gives_back_what_it_was_given_and_nothing_else(tmp_path):
    store = EmbeddingStore("model-a", tmp_path)
    store.write(["one text", "another text"], np.array([[1, 2], [3, 4]], dtype=np.float32))
    found = store.read(["another text", "never seen", "one text"])
    assert set(found) == {"one text", "another text"}
    np.testing.assert_array_equal(found["another text"], [3, 4])
    assert EmbeddingStore("model-b", tmp_path).read(["one text"]) == {}  # another model: nothing
    assert len(store) == 2


def test_many_parts_are_joined_and_a_damaged_part_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setattr(embedding_store, "MAX_PARTS", 3)
    store = EmbeddingStore("m", tmp_path)
    for i in range(3):
        store.write([f"text {i}", "shared"], np.array([[i, i], [9, 9]], dtype=np.float32))
    store.write(["text 3"], np.array([[3, 3]], dtype=np.float32))  # joins the three parts into one
    assert len(list(store.folder.glob(f"*{KEYS_SUFFIX}"))) == 1
    assert len(store) == 5  # "shared" once
    (store.folder / f"broken{KEYS_SUFFIX}").write_bytes(b"not numpy")
    found = store.read([f"text {i}" for i in range(4)] + ["shared"])
    assert {text: list(vector) for text, vector in found.items()} == {
        "text 0": [0, 0], "text 1": [1, 1], "text 2": [2, 2], "text 3": [3, 3], "shared": [9, 9]}


def test_a_new_session_embeds_only_the_texts_it_never_saw():
    texts = [f"text number {i} about {'oil' if i % 2 else 'health'}" for i in range(40)]
    first = StoredLetters()
    pool_features(EMBEDDINGS, texts[:10], FeatureCache(), representation=first)  # the Coding step's pool
    pool_features(EMBEDDINGS, texts[5:25], FeatureCache(), representation=first)  # another list later
    assert first.embedded == texts[:25]

    reopened, events = StoredLetters(), []  # the project reopened: a new program, an empty memory
    vectors = pool_features(EMBEDDINGS, texts, FeatureCache(), representation=reopened, on_event=events.append)
    assert reopened.embedded == texts[25:]
    assert vectors.shape == (40, 5)
    np.testing.assert_array_equal(vectors[3], [t.count(c) for t in [texts[3]] for c in "aeiou"])
    assert any(isinstance(e, Log) and "25 texts from the cache" in e.message for e in events)

    again, events = StoredLetters(), []
    pool_features(EMBEDDINGS, texts, FeatureCache(), representation=again, on_event=events.append)
    assert again.embedded == []  # every text known: nothing to embed, the progress done at once
    assert [e.fraction for e in events if isinstance(e, Progress)] == [1.0]


def test_the_bundled_model_keeps_each_text_across_sessions():
    embedded = []

    class Counting(SentenceEmbeddings):
        def _embed(self, texts, tokenizer, model, on_event):
            embedded.append(list(texts))
            return super()._embed(texts, tokenizer, model, on_event)

    texts = ["Parliament passed the budget.", "The team won the final.", "Hospitals need more nurses."]
    once = pool_features(EMBEDDINGS, texts[:2], FeatureCache(), representation=Counting())
    both = pool_features(EMBEDDINGS, texts, FeatureCache(), representation=Counting())
    assert embedded == [texts[:2], texts[2:]]
    np.testing.assert_allclose(both[:2], once, atol=1e-6)
    assert Counting().text_store_key() == SentenceEmbeddings().text_store_key()
    assert Counting(max_length=64).text_store_key() != SentenceEmbeddings().text_store_key()
