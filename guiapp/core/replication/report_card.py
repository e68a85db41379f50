"""A report card for a study's recommended model: one self-contained web page (and a PDF printed
from it) that tells a social-science reader what the model was trained on, how well it does overall,
per category and per group, where it fails, how its agreement with the coding compares with the
coders' agreement with each other, what it should and should not be used for, and the words it
relies on — in the spirit of model cards (Mitchell et al. 2019).

The numbers come from :func:`.report_card_facts.report_card_facts` (read from the results, the
codings and the codebook); the page only formats them. ``write_report_card(project, folder,
pdf_printer)`` writes ``report-card.html``, ``report-card.json`` (the facts) and, with a printer
(the window's Qt printer), ``report-card.pdf``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guiapp.core.atomic import write_text_atomic
from guiapp.core.replication.report_card_facts import report_card_facts

if TYPE_CHECKING:
    from guiapp.core.project.format import Project

HTML_NAME, PDF_NAME, JSON_NAME = "report-card.html", "report-card.pdf", "report-card.json"
MITCHELL = ("Mitchell, M., Wu, S., Zaldivar, A., Barnes, P., Vasserman, L., Hutchinson, B., Spitzer, E., Raji, "
            "I. D., & Gebru, T. (2019). Model cards for model reporting. In Proceedings of the Conference on "
            "Fairness, Accountability, and Transparency (FAT* '19), 220–229. https://doi.org/10.1145/3287560.3287596")
STYLE = """
body { font-family: Helvetica, Arial, sans-serif; font-size: 10.5pt; color: #1d1d1f; max-width: 52em; margin: 2em auto; }
h1 { font-size: 18pt; margin-bottom: 0.2em; } h2 { font-size: 13pt; margin-top: 1.4em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.4em 0; } th, td { border: 1px solid #ccc; padding: 3px 7px; }
th { background: #f0f0f0; text-align: left; } td.n { text-align: right; } .note { color: #555; }
.flag { color: #a40000; font-weight: bold; } blockquote { color: #333; margin: 0.3em 1em; font-style: italic; }
"""


def _n(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(pair: Any, digits: int = 2) -> str:
    return "" if not pair else f"{pair[0]:.{digits}f} to {pair[1]:.{digits}f}"


def _when(iso: Any) -> str:
    """An ISO time as people read it: "2026-12-08 03:52 UTC" (as given when it does not read)."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(str(iso))
    except ValueError:
        return str(iso or "")
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M") + (" UTC" if moment.tzinfo is not None else "")


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value:.0%}"


def _table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """A table; cells are already escaped."""
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f'<td class="n">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
                                    for i, cell in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><tr>{header}</tr>{body}</table>"


def render_report_card(facts: dict[str, Any]) -> str:
    """The report card as one HTML page (no scripts, no outside files)."""
    model, level = facts["model"], facts["overall"].get("ci_level") or 0.95
    title = f"Report card: {model['name']}"
    study = facts.get("study_name") or "the study"
    parts = [f"<h1>{escape(title)}</h1>",
             f"<p class='note'>The model TextLab recommends for {escape(study)}, run "
             f"{escape(_when(facts.get('run_finished')))} with TextLab {escape(facts.get('textlab_version') or '')}."
             " Every number on this card is read from the study's results.</p>",
             _model_section(facts), _training_section(facts), _performance_section(facts, level),
             _groups_section(facts), _failures_section(facts), _agreement_section(facts), _use_section(facts),
             _words_section(facts), _settings_section(facts),
             "<h2>About this card</h2><p class='note'>A report card in the spirit of model cards: "
             f"{escape(MITCHELL)}</p>"]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            + "\n".join(part for part in parts if part) + "</body></html>\n")


def _model_section(facts: dict[str, Any]) -> str:
    model = facts["model"]
    others = ", ".join(f"{escape(o['name'])} ({_n(o['macro_f1'])})" for o in model["others"])
    compared = f" It was compared with {others} (test macro-F1 in brackets)." if others else ""
    cv = (f" Cross-validated macro-F1 on the training texts: {_n(model['cv_macro_f1'], 3)}."
          if model["cv_macro_f1"] is not None and "cross-validated" not in model["why"] else "")
    return f"<h2>The model</h2><p><b>{escape(model['name'])}</b>. {escape(model['why'])}{cv}{compared}</p>"


def _training_section(facts: dict[str, Any]) -> str:
    t = facts["training"]
    categories = ", ".join(escape(c) for c in t["categories"])
    split = (t["split"] or "").strip()
    split = (split[0].upper() + split[1:] + ("" if split.endswith(".") else ".")) if split else (
        f"{t['n_train']} training texts and {t['n_test']} test texts.")
    lines = [f"<h2>What it was trained on</h2><p>{escape(split)} Categories ({len(t['categories'])}): "
             f"{categories}.</p>"]
    source = escape(t.get("source_name") or "the study's table")
    sha = f" (SHA-256 {escape(t['source_sha256'])})" if t.get("source_sha256") else ""
    rows = f", {t['table_rows']:,} rows" if t.get("table_rows") else ""
    text_columns = t.get("text_columns") or []
    columns = ", ".join(f"“{escape(c)}”" for c in text_columns)
    where = f"column{'s' if len(text_columns) != 1 else ''} {columns}" if columns else "the text column"
    coding = f", the coding in column “{escape(str(t['category_column']))}”" if t.get("category_column") else ""
    lines.append(f"<p>Texts from {source}{sha}{rows}: the texts in {where}{coding}.</p>")
    coded = t.get("coded_in_textlab")
    if coded:
        names = [escape(c) for c in coded["coders"]]
        coders = (", ".join(names[:-1]) + " and " + names[-1]) if len(names) > 1 else (names[0] if names else
                                                                                      "one coder")
        version = (f" under codebook version {coded['codebook_version']} (of {coded['codebook_versions']})"
                   if coded.get("codebook_version") else "")
        defined = (f"; the codebook defines {coded['codebook_categories']} categories"
                   if coded.get("codebook_categories") else "")
        lines.append(f"<p>{coded['texts']:,} texts were coded in TextLab by {coders}{version}{defined}.</p>")
    return "".join(lines)


def _performance_section(facts: dict[str, Any], level: float) -> str:
    o = facts["overall"]
    head = (f"<h2>How well it does</h2><p>On the {o['test_texts']:,} test texts, set aside before any model was "
            f"trained: macro-F1 <b>{_n(o['macro_f1'])}</b> ({level:.0%} interval {_ci(o['macro_f1_ci'])}), "
            f"accuracy {_pct(o['accuracy'])}. Intervals resample the test texts ({o['samples']:,} resamples, "
            f"seed {o['seed']}).</p>")
    rows = [[escape(c["category"]), _n(c["f1"]), _ci(c["f1_ci"]), _n(c["precision"]), _n(c["recall"]),
             str(c["support"])] for c in facts["per_category"]]
    return head + _table(["Category", "F1", f"{level:.0%} interval", "Precision", "Recall", "Test texts"], rows,
                         {1, 2, 3, 4, 5})


def _groups_section(facts: dict[str, Any]) -> str:
    if not facts["groups"]:
        return ""
    parts = ["<h2>How well it does per group</h2>"]
    for column in facts["groups"]:
        rows = [[escape(g["label"]) + (" <span class='flag'>(worse)</span>" if g["flagged"] else ""),
                 str(g["n_texts"]), _n(g["macro_f1"]), _ci(g["macro_f1_ci"]), _pct(g["share_right"]),
                 _ci(g["share_right_ci"]), escape(g["verdict"])] for g in column["groups"]]
        parts.append(f"<p><b>By “{escape(column['column'])}”.</b> {escape(column['headline'])}</p>")
        parts.append(_table(["Group", "Test texts", "Macro-F1", "Interval", "Share right", "Interval", "Verdict"],
                            rows, {1, 2, 3, 4, 5}))
        parts.append(f"<p class='note'>{escape(column['describe'])} {escape(column['note'])}</p>")
    return "".join(parts)


def _failures_section(facts: dict[str, Any]) -> str:
    parts = ["<h2>Where it fails</h2>"]
    confusions = facts["confusions"]
    if not confusions:
        parts.append("<p>It confused no categories on the test texts.</p>")
    elif facts.get("multi_label"):
        parts.append(_table(["Category", "Missed", "Added wrongly"],
                            [[escape(c["coded"]), str(c["missed"]), str(c["added"])] for c in confusions], {1, 2}))
    else:
        parts.append("<p>The categories it confuses most (from the confusion matrix of the test texts):</p>")
        parts.append(_table(["Coded as", "Answered", "Test texts", "Share of those coded so"],
                            [[escape(c["coded"]), escape(c["predicted"]), str(c["count"]), _pct(c["share_of_coded"])]
                             for c in confusions], {2, 3}))
    if facts["mistakes"]:
        parts.append("<p>Its most confident mistakes among the test texts:</p>")
        for m in facts["mistakes"]:
            sure = f", with a probability of {m['confidence']:.2f}" if m["confidence"] is not None else ""
            row = f"Row {m['row']}: " if m["row"] is not None else ""
            parts.append(f"<p>{row}coded <b>{escape(m['coded'])}</b>, answered <b>{escape(m['predicted'])}</b>{sure}."
                         + (f"<blockquote>{escape(m['text'])}</blockquote>" if m["text"] else "") + "</p>")
    return "".join(parts)


def _agreement_section(facts: dict[str, Any]) -> str:
    mine, coders = facts["agreement"]["model"], facts["agreement"]["coders"]
    if mine is None:
        return ""
    level = mine.get("level") or 0.95
    rows = [["The model and the coding", str(mine["n_texts"]), _n(mine["alpha"]), _ci(mine["alpha_ci"]),
             f"{_n(mine['kappa'])} (Cohen's κ)", _ci(mine["kappa_ci"])]]
    note = "<p class='note'>Only one person coded these texts, so the coders' agreement is not known.</p>"
    if coders and coders.get("alpha") is not None:
        who = "The coding team" if coders["who"] == "team" else "The two coders (second coder's sample)"
        names = ", ".join(escape(c) for c in coders.get("coders") or [])
        rows.append([f"{who}{f' ({names})' if names else ''}", str(coders.get("n_texts") or "–"),
                     _n(coders["alpha"]), _ci(coders["alpha_ci"]),
                     f"{_n(coders.get('kappa'))} ({escape(coders.get('kappa_name') or 'κ')})", _ci(coders.get("kappa_ci"))])
        note = ("<p class='note'>A model that agrees with the coding about as well as the coders agree with each "
                "other codes about as reliably as another coder would.</p>")
    elif coders and coders.get("problem"):
        note = f"<p class='note'>The coders' agreement could not be measured: {escape(coders['problem'])}</p>"
    return ("<h2>Agreement with the coding</h2>"
            + _table(["Who", "Texts", "Krippendorff's α", f"{level:.0%} interval", "κ", f"{level:.0%} interval"],
                     rows, {1, 2, 3, 4, 5}) + note)


def _use_section(facts: dict[str, Any]) -> str:
    t = facts["training"]
    categories = ", ".join(f"“{escape(c)}”" for c in t["categories"])
    return ("<h2>What it should and should not be used for</h2><ul>"
            f"<li>Use it to sort texts like the training texts (from {escape(t.get('source_name') or 'the same source')}"
            f", written the same way, about the same topics) into {categories}.</li>"
            "<li>Report shares of categories only with the Findings step's correction for the model's mistakes: "
            "counting its answers directly carries its errors into the shares.</li>"
            "<li>Do not use it on texts of another kind, time or language without coding a sample of them and "
            "checking it again.</li>"
            "<li>Do not use it for decisions about individual people: its answers are right for groups of texts "
            "on average, not for each one.</li></ul>")


def _words_section(facts: dict[str, Any]) -> str:
    words = facts["words"]
    head = "<h2>The words it relies on</h2>"
    if not words["per_category"]:
        return head + ("<p class='note'>Not known for this model yet: explain some test texts on the Documents step "
                       "and write the card again.</p>")
    stems = " Words are shown cut to their stem, as the model reads them." if words.get("stemmed") else ""
    how = (f"The model's own weight of each word toward the category (largest first).{stems}"
           if words["source"] == "model weights"
           else f"The mean contribution of each word toward the category over {words['documents']} explained texts.")
    rows = [[escape(category), escape(", ".join(f"{w} ({s:+.2f})" for w, s in items))]
            for category, items in words["per_category"].items()]
    return head + f"<p class='note'>{how}</p>" + _table(["Category", "Words"], rows)


def _settings_section(facts: dict[str, Any]) -> str:
    s = facts["settings"]
    pairs = [("Seed", s["seed"]), ("Folds of cross-validation", s["folds"]), ("Repeats", s["cv_repeats"]),
             ("Share of texts held out for the test", s["test_share"]), ("Bootstrap resamples", s["bootstrap_samples"]),
             ("Oversampling", s["oversampling"]),
             ("Transformer tuning", s["transformer_tuning"] if facts["model"]["representation"] == "transformer" else None),
             *((f"Chosen: {name}", value) for name, value in s["chosen"].items()),
             ("Python", s["python"]), ("Run started", _when(s["started"])), ("Run finished", _when(s["finished"]))]
    rows = [[escape(name), escape(str(value))] for name, value in pairs if value not in (None, "")]
    return "<h2>Settings and seeds</h2>" + _table(["Setting", "Value"], rows)


def write_report_card(project: Project, folder: str | Path,
                      pdf_printer: Callable[[str, Path], Path] | None = None) -> list[Path]:
    """Write the report card of ``project``'s recommended model into ``folder``: the page, its facts as
    JSON and, with ``pdf_printer(html, path)``, a PDF. Returns the files written: when the printer fails
    (:class:`OSError`) the page and its facts stay and the PDF is simply not among them."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    facts = report_card_facts(project)
    html = render_report_card(facts)
    page, data = folder / HTML_NAME, folder / JSON_NAME
    write_text_atomic(page, html)
    write_text_atomic(data, json.dumps(facts, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    written = [page, data]
    if pdf_printer is not None:
        try:
            written.append(Path(pdf_printer(html, folder / PDF_NAME)))
        except OSError:  # the page holds everything the PDF would; the caller says the PDF is missing
            pass
    return written
