"""What an explanation of one decision is: a score per word of the document, and how it was made.

Plain data shared by every method (integrated gradients for Transformers, exact linear and tree
contributions, word occlusion), by the Documents step, the exports and the cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from guiapp.core.explain.words import WordSpan

# Method keys; the sentence is what the Documents step shows under the coloured text.
INTEGRATED_GRADIENTS = "integrated_gradients"
LINEAR_EXACT = "linear_exact"
TREE_SHAP = "tree_shap"
OCCLUSION = "occlusion"
COMBINED_PARTS = "combined_parts"

METHOD_NAMES = {
    INTEGRATED_GRADIENTS: "Integrated gradients",
    LINEAR_EXACT: "Exact word contributions",
    TREE_SHAP: "Exact tree contributions (SHAP)",
    OCCLUSION: "Leaving words out",
    COMBINED_PARTS: "Combining the parts' explanations",
}


def format_score(score: float) -> str:
    """+0.412, −0.031; tiny scores keep their digits (+3.1e-05) instead of becoming +0.000."""
    if score != 0 and abs(score) < 0.001:
        text = f"{score:+.2g}"
    else:
        text = f"{score:+.3f}"
    return text.replace("-", "−")


@dataclass
class Attribution:
    """How much each word of one document pushed one model toward (+) or away from (−) one category.

    ``scores[i]`` belongs to ``words[i]``. ``scale`` says in what the scores are counted, so that
    they add up to something the model computes: ``"logit"`` (Transformer, integrated gradients:
    the scores sum to f(text) − f(baseline) up to ``delta``), ``"margin"`` (linear models and
    XGBoost: the scores plus ``base_value`` give the model's raw score), ``"probability"``
    (occlusion: how much the probability drops without the word).
    """

    model: str
    method: str  # one of the method keys above
    method_sentence: str  # one plain sentence: which method made the colours and what they mean
    target: int  # category index
    target_name: str
    words: list[WordSpan]
    scores: list[float]
    probability: float  # the model's probability of the target category for the whole text
    scale: str  # "logit" | "margin" | "probability"
    base_value: float | None = None  # f(baseline) or the intercept, on ``scale``
    delta: float | None = None  # integrated gradients' convergence delta (|sum − (f(x) − f(b))|)
    unseen: list[tuple[int, int]] = field(default_factory=list)  # char ranges the model never saw
    details: dict[str, Any] = field(default_factory=dict)  # method settings (steps, …)

    def top_words(self, k: int = 5, toward: bool = True) -> list[int]:
        """Indices of the ``k`` words that pushed most toward (or away from) the target."""
        order = sorted(range(len(self.scores)), key=lambda i: self.scores[i], reverse=toward)
        return [i for i in order[:k] if (self.scores[i] > 0 if toward else self.scores[i] < 0)]

    def top_read_words(self, k: int = 5, toward: bool = True) -> list[int]:
        """Like :meth:`top_words`, leaving out words in the part the model never read."""
        def read(i: int) -> bool:
            return not any(start <= self.words[i].start < end for start, end in self.unseen)
        return [i for i in self.top_words(len(self.words), toward=toward) if read(i)][:k]

    def top_words_text(self, k: int = 5) -> str:
        """The words that pushed most toward the target, in one cell: "tax (+0.412), cut (+0.220)".

        A word written several times counts once, with the sum of its scores (its whole push)."""
        totals: dict[str, list] = {}
        for i in self.top_read_words(len(self.words)):
            entry = totals.setdefault(self.words[i].text.lower(), [self.words[i].text, 0.0])
            entry[1] += self.scores[i]
        ranked = sorted(totals.values(), key=lambda entry: entry[1], reverse=True)[:k]
        return ", ".join(f"{word} ({format_score(score)})" for word, score in ranked)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "method": self.method, "method_sentence": self.method_sentence,
            "target": self.target, "target_name": self.target_name,
            "words": [[w.start, w.end, w.text, w.kind] for w in self.words],
            "scores": [float(s) for s in self.scores], "probability": float(self.probability),
            "scale": self.scale, "base_value": self.base_value, "delta": self.delta,
            "unseen": [list(r) for r in self.unseen], "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Attribution:
        words = [WordSpan(int(a), int(b), str(t), int(k)) for a, b, t, k in data["words"]]
        return cls(
            model=str(data["model"]), method=str(data["method"]), method_sentence=str(data["method_sentence"]),
            target=int(data["target"]), target_name=str(data["target_name"]), words=words,
            scores=[float(s) for s in data["scores"]], probability=float(data["probability"]),
            scale=str(data["scale"]), base_value=data.get("base_value"), delta=data.get("delta"),
            unseen=[(int(a), int(b)) for a, b in data.get("unseen", [])], details=dict(data.get("details", {})),
        )


@dataclass
class Faithfulness:
    """How far an explanation is true to its model (ERASER: DeYoung et al., 2020).

    The ``k`` words with the largest scores toward the category are removed from the text
    (comprehensiveness: a large drop means the model did rely on them) or kept alone
    (sufficiency: a small drop means they are enough for the model's answer).
    """

    category: str
    k: int
    words: list[str]  # the top-k words, as written
    probability: float  # the model's probability of ``category`` for the whole text
    without_top: float  # … with the top-k words removed
    only_top: float  # … with only the top-k words

    @property
    def comprehensiveness(self) -> float:
        return self.probability - self.without_top

    @property
    def sufficiency(self) -> float:
        return self.probability - self.only_top

    def sentence(self) -> str:
        """The numbers in plain words, for the Documents step and the exports."""
        n = len(self.words)
        these = "this word" if n == 1 else f"these {n} words"
        return (
            f"Removing {these} changes the probability of “{self.category}” from "
            f"{self.probability:.2f} to {self.without_top:.2f}; keeping only {these} gives {self.only_top:.2f}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "k": self.k, "words": list(self.words),
                "probability": self.probability, "without_top": self.without_top, "only_top": self.only_top,
                "comprehensiveness": self.comprehensiveness, "sufficiency": self.sufficiency}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Faithfulness:
        return cls(str(data["category"]), int(data["k"]), [str(w) for w in data["words"]],
                   float(data["probability"]), float(data["without_top"]), float(data["only_top"]))
