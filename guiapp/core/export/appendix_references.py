"""The works the methods appendix cites: the paper whose protocol TextLab's defaults follow, always
listed, and the works the prose names where it describes a method (combined models, the split of a
study where a text can have several categories, SetFit, zero-shot NLI, language models coding with
a codebook). Each entry holds its
in-text citation (``key``), the reference as one line of text and its parts (authors, year, title,
journal, note) for the HTML and Word appendices."""

from __future__ import annotations

from typing import Any


def title_stop(title: str) -> str:
    """The full stop after a title, left out where the title ends with its own question or exclamation mark."""
    return "" if title.endswith(("?", "!")) else "."


def _work(key: str, parts: dict[str, str]) -> dict[str, Any]:
    """A cited work: its in-text citation, its reference in one line, and its parts."""
    text = "{authors} ({year}). {title}{stop} {journal}. {note}".format(**parts, stop=title_stop(parts["title"])).strip()
    return {"key": key, "text": text, "parts": parts}


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
# language models that code with a codebook: their use, validation, and the risks of their labels
_GILARDI_PARTS = {
    "authors": "Gilardi, F., Alizadeh, M., & Kubli, M.",
    "year": "2023",
    "title": "ChatGPT outperforms crowd workers for text-annotation tasks",
    "journal": "Proceedings of the National Academy of Sciences",
    "note": "120(30), e2305016120.",
}
_ZIEMS_PARTS = {
    "authors": "Ziems, C., Held, W., Shaikh, O., Chen, J., Zhang, Z., & Yang, D.",
    "year": "2024",
    "title": "Can large language models transform computational social science?",
    "journal": "Computational Linguistics",
    "note": "50(1), 237–291.",
}
_TORNBERG_PARTS = {
    "authors": "Törnberg, P.",
    "year": "2024",
    "title": "Best practices for text annotation with large language models",
    "journal": "Sociologica",
    "note": "18(2), 67–85.",
}
_HALTERMAN_PARTS = {
    "authors": "Halterman, A., & Keith, K. A.",
    "year": "2025",
    "title": "Codebook LLMs: Evaluating LLMs as measurement tools for political science concepts",
    "journal": "Political Analysis",
    "note": "Published online by Cambridge University Press.",
}
_EGAMI_PARTS = {
    "authors": "Egami, N., Hinck, M., Stewart, B. M., & Wei, H.",
    "year": "2023",
    "title": ("Using imperfect surrogates for downstream inference: Design-based supervised learning for social "
              "science applications of large language models"),
    "journal": "Advances in Neural Information Processing Systems 36 (NeurIPS 2023)",
    "note": "",
}
_BAUMANN_PARTS = {
    "authors": "Baumann, J., Röttger, P., Urman, A., Wendsjö, A., Plaza-del-Arco, F. M., Gruber, J. B., & Hovy, D.",
    "year": "2025",
    "title": "Large language model hacking: Quantifying the hidden risks of using LLMs for text annotation",
    "journal": "arXiv preprint arXiv:2509.08825",
    "note": "",
}
_KRIPPENDORFF_PARTS = {
    "authors": "Krippendorff, K.",
    "year": "2004",
    "title": "Content analysis: An introduction to its methodology (2nd ed.)",
    "journal": "Thousand Oaks, CA: Sage",
    "note": "",
}
_FLEISS_PARTS = {
    "authors": "Fleiss, J. L.",
    "year": "1971",
    "title": "Measuring nominal scale agreement among many raters",
    "journal": "Psychological Bulletin, 76(5), 378–382",
    "note": "",
}
# Works the prose may cite, by the in-text citation it uses; the references list holds those cited.
CITED_WORKS = [
    _work("Caruana et al., 2004", _CARUANA_PARTS),
    _work("Sechidis et al., 2011", _SECHIDIS_PARTS),
    _work("Tunstall et al., 2022", _TUNSTALL_PARTS),
    _work("Yin et al., 2019", _YIN_PARTS),
    _work("Gilardi et al., 2023", _GILARDI_PARTS),
    _work("Ziems et al., 2024", _ZIEMS_PARTS),
    _work("Törnberg, 2024", _TORNBERG_PARTS),
    _work("Halterman & Keith, 2025", _HALTERMAN_PARTS),
    _work("Egami et al., 2023", _EGAMI_PARTS),
    _work("Baumann et al., 2025", _BAUMANN_PARTS),
    _work("Krippendorff (2004)", _KRIPPENDORFF_PARTS),
    _work("Fleiss, 1971", _FLEISS_PARTS),
]


def references(prose: str) -> list[dict[str, Any]]:
    """The works to list under References: the protocol followed, then every work ``prose`` cites."""
    return [REFERENCE, *(work for work in CITED_WORKS if work["key"] in prose)]
