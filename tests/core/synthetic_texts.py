"""Small synthetic coded corpora for engine tests: category-specific words plus shared noise."""

from __future__ import annotations

import numpy as np
import pandas as pd

TOPIC_WORDS = {
    "health": ["hospital", "doctors", "patients", "medicine", "insurance", "care", "nurses", "clinic", "vaccine", "disease"],
    "defence": ["army", "soldiers", "weapons", "navy", "military", "veterans", "troops", "war", "missile", "base"],
    "energy": ["oil", "gas", "solar", "power", "electricity", "coal", "wind", "fuel", "pipeline", "nuclear"],
    "education": ["schools", "teachers", "students", "college", "learning", "classroom", "tuition", "exams", "books", "reading"],
}
SHARED = ["the", "act", "bill", "state", "federal", "program", "funding", "amend", "provide", "national", "public", "new", "law", "support"]


def coded_texts(n: int = 300, shares=(0.6, 0.25, 0.15), seed: int = 0, noise: float = 0.35) -> pd.DataFrame:
    """``n`` texts with columns text / label; category shares as given (imbalanced by default)."""
    rng = np.random.default_rng(seed)
    topics = list(TOPIC_WORDS)[: len(shares)]
    labels = rng.choice(topics, size=n, p=np.asarray(shares) / sum(shares))
    texts = []
    for label in labels:
        length = int(rng.integers(6, 16))
        words = []
        for _ in range(length):
            if rng.random() < noise:
                words.append(str(rng.choice(TOPIC_WORDS[str(rng.choice(topics))])))
            elif rng.random() < 0.5:
                words.append(str(rng.choice(TOPIC_WORDS[label])))
            else:
                words.append(str(rng.choice(SHARED)))
        texts.append(" ".join(words).capitalize() + ".")
    return pd.DataFrame({"text": texts, "label": labels})
