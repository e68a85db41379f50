"""Plain-word explanations of technical terms, and a label that attaches them as tooltips.

Every technical term on screen (macro-F1, fold, epoch, learning rate, …) gets one plain sentence,
in the words of a researcher who codes texts, not a programmer's.
:class:`GlossaryLabel` shows ordinary text; the known terms in it are underlined and the label's
tooltip lists their explanations, so hovering anywhere over the sentence explains its jargon.
"""

from __future__ import annotations

import html
import re
from typing import ClassVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from guiapp.core.experiment.scores.multilabel_metrics import MULTI_LABEL_MEASURES
from guiapp.ui.theme import TERM_LINK


def _measure(name: str) -> str:
    """The engine's one-line meaning of a multi-label measure, as a sentence."""
    meaning = MULTI_LABEL_MEASURES[name][1]
    return meaning[:1].upper() + meaning[1:] + "."

# term -> one plain sentence. Keys are matched case-insensitively, longest first; the plural
# forms are matched too ("folds", "subword tokens", "Transformers").
TERMS: dict[str, str] = {
    "cross-validation": (
        "A fair way to test a model: the coded texts are split into equal parts (folds); the model "
        "is trained on all parts but one and checked on the one left out, in turn for every part."
    ),
    "fold": (
        "One of the equal parts the coded texts are split into for cross-validation; each part is "
        "used once to check a model trained on the others."
    ),
    "subword token": (
        "The pieces a Transformer cuts text into: common words are one piece, rarer words are "
        "split into several pieces, so a text has more tokens than words."
    ),
    "tokenizer": "The part of a Transformer model that cuts text into subword tokens.",
    "Transformer": (
        "A modern kind of language model (like BERT) that reads a text as a whole; it can only "
        "read a limited number of subword tokens at once, and cuts off the rest."
    ),
    "fine-tuning": (
        "Training a pre-trained language model a little further on your coded texts, so that it "
        "learns your categories; all its weights are adjusted, not just a final layer."
    ),
    "learning rate": (
        "How big each learning step of a fine-tuned model is: too small and it learns little, "
        "too large and it forgets what it knew; small models need larger steps."
    ),
    "epoch": "One pass of the model over all its training texts; fine-tuning usually takes 2 to 6.",
    "loss": (
        "How wrong the model still is on the texts it is learning from, after each training step; "
        "it should fall and then level off. Lower is better."
    ),
    "validation split": (
        "A share of the training texts (e.g. 20 %) set aside once to compare a model's settings, "
        "instead of cross-validation; much faster, a little less certain."
    ),
    "GPU": (
        "A graphics card that computes many numbers at once; it fine-tunes a Transformer about "
        "10 to 100 times faster than the computer's processor (CPU)."
    ),
    "weight": (
        "One of the numbers inside a model that training adjusts; a Transformer has millions "
        "(e.g. 22.7 M for MiniLM)."
    ),
    "duplicate": "A text that appears in more than one row, word for word.",
    "category": "One of the codes you gave the texts, such as a topic or a sentiment.",
    "macro-F1": (
        "How well a model agrees with your coding, from 0 (never) to 1 (always): the F1 score of "
        "every category, averaged so that small categories count as much as large ones."
    ),
    "F1": (
        "A score from 0 to 1 for one category that is high only when the model finds most of its "
        "texts (recall) and is rarely wrong when it chooses it (precision)."
    ),
    "precision": "Of the texts the model put in a category, the share that you coded that way too.",
    "recall": "Of the texts you coded in a category, the share that the model put there too.",
    "support": "How many of the test texts you coded in the category.",
    "accuracy": (
        "The share of test texts where the model chose the category you coded; it can look good "
        "even when small categories are missed, so macro-F1 is the main score."
    ),
    "confusion matrix": (
        "A table that counts, for each category you coded (rows), which category the model "
        "chose (columns); the diagonal holds the texts where both agree."
    ),
    "confidence interval": (
        "The range the score would most likely fall in with another sample of test texts; a "
        "95 % interval covers the true score in 95 of 100 such samples. Wide means uncertain."
    ),
    "test text": (
        "A coded text kept aside and never used for training or tuning, so that the final score "
        "is a fair check of how the model does on texts it has not seen."
    ),
    "grid": (
        "The list of settings TextLab tries for a model; every combination is checked with "
        "cross-validation and the best one is chosen."
    ),
    "setting": (
        "One combination of values for a model's tuning knobs (such as C = 10 with a linear "
        "kernel); TextLab tries several and keeps the one that did best in cross-validation."
    ),
    "standard deviation": (
        "How much the scores differ between the folds; a small value means the setting did about "
        "equally well on every part of the training texts."
    ),
    "oversampling": (
        "Repeating randomly chosen texts of the smaller categories while a model learns, so that "
        "it does not simply ignore rare categories; the test texts are never repeated."
    ),
    "stemming": "Cutting words down to their stem, so that 'taxes', 'taxed' and 'taxing' count as one word.",
    "stop word": "A very common word such as 'the' or 'and' that says little about a text's category.",
    "combined model": (
        "A model that asks several of the compared models and combines their answers; it is "
        "tested on the same test texts as every other model."
    ),
    "weighted vote": (
        "Averaging the models' probabilities for each category, the better models counting more; "
        "the weights are learnt on the training texts, never on the test texts."
    ),
    "stacking": (
        "A small extra model (a logistic regression) that reads the models' probabilities and "
        "learns which model to trust for which category."
    ),
    "out-of-fold": (
        "For each training text, a model's answer from a version of the model trained without "
        "that text (in cross-validation), so a combination learns from honest answers."
    ),
    "McNemar's test": (
        "A test for two models scored on the same test texts: it looks only at the texts where exactly one "
        "of them agrees with your coding and asks whether that split could be chance."
    ),
    "p-value": (
        "How likely a difference at least this large would be if the two models were in truth equally good; "
        "small values (below 0.05) mean the difference is hard to explain by chance."
    ),
    "Holm correction": (
        "When many pairs are compared, some look different by chance alone; the Holm correction raises the "
        "p-values so that, over all pairs together, the risk of one false alarm stays at 5 %."
    ),
    "Cohen's kappa": (
        "How often two codings of the same texts agree, beyond what chance would give: 1 means always, "
        "0 means no better than chance."
    ),
    "Krippendorff's alpha": (
        "A measure of agreement between coders, corrected for chance (1 = perfect, 0 = chance); values of "
        "0.80 or more are usually taken as reliable coding, 0.67 to 0.80 as enough for tentative conclusions."
    ),
    "corrected resampled t-test": (
        "A test that compares two models' scores fold by fold in cross-validation, corrected for the folds "
        "sharing training texts (which otherwise makes differences look far too certain)."
    ),
    "learning curve": (
        "A chart of how well a model does as it learns from more and more of your coded texts; if it "
        "still climbs at the right end, coding more texts will likely help."
    ),
    "draw": (
        "One random choice of which coded training texts a model learns from at a given size; several "
        "draws show how much the score depends on that choice."
    ),
    "per doubling": (
        "How much the score rises each time the number of coded training texts is doubled, for example "
        "from 1,000 to 2,000."
    ),
    "share wrong": "The share of texts where the model chose a different category than you coded.",
    # studies where a text can have several categories
    "micro-F1": _measure("micro_f1"),
    "subset accuracy": _measure("accuracy") + " Strict: one category too many or too few counts as wrong.",
    "Hamming loss": _measure("hamming_loss") + " 0 is perfect; lower is better.",
    "threshold": (
        "How sure a model must be before it puts a text in a category: the text goes in when the model's "
        "probability for that category reaches the threshold (0.5, unless it was tuned on the training texts)."
    ),
    "per-category table": (
        "For one category, four counts of test texts: coded with it and put there by the model, coded but missed, "
        "not coded but added by the model, and neither."
    ),
    "random seed": (
        "A number that fixes every random choice (the test texts, the folds, oversampling), so "
        "the same study gives the same result when it is run again."
    ),
    "zero-shot": (
        "A model that sorts texts into categories it has never seen coded examples of, only from their "
        "names and descriptions; your coded texts are used only to test it."
    ),
    "NLI": (
        "Natural language inference: a language model trained to judge whether one sentence follows from "
        "another, used here to check whether “This text is about …” is true of a text."
    ),
    "SetFit": (
        "A way to learn categories from few coded texts: a small language model is first fine-tuned on pairs "
        "of coded texts (same category or not), then a simple classifier learns the categories from it."
    ),
    # a language model with your codebook
    "prompt sensitivity": (
        "How much a language model's answers depend on how its instruction is worded: the same test texts are "
        "answered under other wordings that say the same, and Krippendorff's alpha measures how well the answers "
        "agree (1: the wording does not matter; below 0.67: it matters a lot)."
    ),
    "few-shot examples": (
        "A few of your coded training texts shown to a language model with their categories, as examples of "
        "your coding; they are drawn only from the texts it is not scored on."
    ),
}
# other words for the same thing: word -> term in TERMS
ALIASES: dict[str, str] = {
    "token": "subword token",
    "interval": "confidence interval",
    "95 % interval": "confidence interval",
    "std": "standard deviation",
    "oversampled": "oversampling",
    "fine-tuned": "fine-tuning",
    "fine-tune": "fine-tuning",
    "graphics card": "GPU",
    "exact match": "subset accuracy",
    "Krippendorff's α": "Krippendorff's alpha",
    "few-shot example": "few-shot examples",
}


def _pattern(terms: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    # optional plural "s"; not inside a longer word
    return re.compile(rf"(?<![\w-])({alternatives})(s?)(?![\w])", re.IGNORECASE)


def terms_in(text: str, terms: list[str] | None = None) -> list[str]:
    """The glossary terms a text uses, in order of first appearance (each once)."""
    pattern = _pattern(terms or [*TERMS, *ALIASES])
    found: list[str] = []
    for match in pattern.finditer(text):
        key = _key(match.group(1))
        if key and key not in found:
            found.append(key)
    return found


def _key(word: str) -> str | None:
    """The glossary term a matched word stands for (aliases resolved)."""
    for alias, term in ALIASES.items():
        if alias.lower() == word.lower():
            return term
    for term in TERMS:
        if term.lower() == word.lower():
            return term
    return None


def explain(terms: list[str]) -> str:
    """A tooltip that explains the given terms, one line each."""
    lines = []
    for term in dict.fromkeys(ALIASES.get(t, t) for t in terms):
        lines.append(f"{term[0].upper()}{term[1:]}: {TERMS[term]}")
    return "\n".join(lines)


class GlossaryLabel(QLabel):
    """A word-wrapped label whose technical terms are underlined and explained in its tooltip.

    ``terms`` restricts which glossary entries are marked (default: the technical ones, not
    everyday words like "category"). The shown text is available as :meth:`plain_text`.
    """

    TECHNICAL: ClassVar[list[str]] = ["cross-validation", "fold", "subword token", "token", "tokenizer", "Transformer"]

    def __init__(self, text: str = "", parent=None, *, terms: list[str] | None = None, **properties) -> None:
        super().__init__(parent, **properties)  # Qt properties by name, such as objectName
        self._terms = list(terms) if terms is not None else list(self.TECHNICAL)
        self._plain = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.set_plain_text(text)

    def plain_text(self) -> str:
        """The text as the user reads it (without markup)."""
        return self._plain

    def set_terms(self, terms: list[str]) -> None:
        """Which glossary entries to mark from the next :meth:`set_plain_text` on."""
        self._terms = list(terms)

    def explained_terms(self) -> list[str]:
        return terms_in(self._plain, self._terms) if self._plain else []

    def set_plain_text(self, text: str, *, bold_prefix: str = "") -> None:
        """Show ``text``; ``bold_prefix`` (e.g. "What to do:") is shown bold before it."""
        self._plain = f"{bold_prefix} {text}".strip() if bold_prefix else text
        escaped = html.escape(text, quote=False)  # keep apostrophes: "Cohen's kappa" must match
        marked: set[str] = set()

        def mark(match: re.Match[str]) -> str:
            key = _key(match.group(1))
            if key is None or key in marked:
                return match.group(0)
            marked.add(key)
            return f'<span style="color:{TERM_LINK}; text-decoration: underline;">{match.group(0)}</span>'

        if self._terms and text:
            escaped = _pattern(self._terms).sub(mark, escaped)
        prefix = f"<b>{html.escape(bold_prefix)}</b> " if bold_prefix else ""
        self.setText(prefix + escaped.replace("\n", "<br>"))
        found = self.explained_terms()
        self.setToolTip(explain(found) if found else "")
        self.setCursor(Qt.CursorShape.WhatsThisCursor if found else Qt.CursorShape.ArrowCursor)
