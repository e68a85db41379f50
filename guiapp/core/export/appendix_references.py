"""The works the methods appendix cites: the paper whose protocol TextLab's defaults follow, always
listed, and the works the prose names where it describes a method (combined models, the split of a
study where a text can have several categories, SetFit, zero-shot NLI). Each entry holds its
in-text citation (``key``), the reference as one line of text and its parts (authors, year, title,
journal, note) for the HTML and Word appendices."""

from __future__ import annotations

from typing import Any


def _work(key: str, parts: dict[str, str]) -> dict[str, Any]:
    """A cited work: its in-text citation, its reference in one line, and its parts."""
    return {"key": key, "text": "{authors} ({year}). {title}. {journal}. {note}".format(**parts), "parts": parts}


# The paper whose protocol TextLab's defaults follow (its applications section: 5-fold cross-validated
# grid search, refit, one evaluation on the test texts, macro-F1); it is cited without a DOI.
_REFERENCE_PARTS = {
    "authors": "Wankmüller, S.",
    "year": "2022",
    "title": "Neural transfer learning with transformers for social science text analysis",
    "journal": "Sociological Methods & Research",
    "note": "Preprint: arXiv, 2021.",
}
REFERENCE = _work("Wankmüller (2022)", _REFERENCE_PARTS)
_CARUANA_PARTS = {
    "authors": "Caruana, R., Niculescu-Mizil, A., Crew, G., & Ksikes, A.",
    "year": "2004",
    "title": "Ensemble selection from libraries of models",
    "journal": "Proceedings of the 21st International Conference on Machine Learning (ICML 2004)",
    "note": "Banff, Canada.",
}
_SECHIDIS_PARTS = {
    "authors": "Sechidis, K., Tsoumakas, G., & Vlahavas, I.",
    "year": "2011",
    "title": "On the stratification of multi-label data",
    "journal": ("Machine Learning and Knowledge Discovery in Databases (ECML PKDD 2011), Lecture Notes in Computer "
                "Science, vol. 6913"),
    "note": "Springer, pp. 145–158.",
}
_TUNSTALL_PARTS = {
    "authors": "Tunstall, L., Reimers, N., Jo, U. E. S., Bates, L., Korat, D., Wasserblat, M., & Pereg, O.",
    "year": "2022",
    "title": "Efficient few-shot learning without prompts",
    "journal": "arXiv preprint arXiv:2209.11055",
    "note": "(SetFit).",
}
_YIN_PARTS = {
    "authors": "Yin, W., Hay, J., & Roth, D.",
    "year": "2019",
    "title": "Benchmarking zero-shot text classification: Datasets, evaluation and entailment approach",
    "journal": ("Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th "
                "International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)"),
    "note": "pp. 3914–3923.",
}
# Works the prose may cite, by the in-text citation it uses; the references list holds those cited.
CITED_WORKS = [
    _work("Caruana et al., 2004", _CARUANA_PARTS),
    _work("Sechidis et al., 2011", _SECHIDIS_PARTS),
    _work("Tunstall et al., 2022", _TUNSTALL_PARTS),
    _work("Yin et al., 2019", _YIN_PARTS),
]


def references(prose: str) -> list[dict[str, Any]]:
    """The works to list under References: the protocol followed, then every work ``prose`` cites."""
    return [REFERENCE, *(work for work in CITED_WORKS if work["key"] in prose)]
