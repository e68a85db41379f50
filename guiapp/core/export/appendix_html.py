"""The methods appendix as one self-contained HTML page: ``render_appendix_html``.

Inline CSS only, no scripts, no external resources, and simple HTML4 (headings, paragraphs,
tables) that Qt's ``QTextDocument`` renders and prints. Every string that comes from the user or
the result is escaped. A study where a text can have several categories adds how they were coded
and decided, micro-F1, subset accuracy and Hamming loss to the comparison, each category's F1
interval and threshold, and a table of what each measure means.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from guiapp.core.export.appendix_references import references, title_stop
from guiapp.core.export.appendix_text import (
    appendix_paragraph,
    date,
    interval,
    percent,
    score,
)

STYLE = """
body { font-family: 'Times New Roman', Georgia, serif; font-size: 11pt; color: #111111; }
h1 { font-size: 17pt; margin-bottom: 2px; }
h2 { font-size: 13pt; margin-top: 22px; margin-bottom: 6px; color: #1f3a5f; }
h3 { font-size: 11pt; margin-top: 14px; margin-bottom: 4px; }
p { margin-top: 4px; margin-bottom: 8px; }
p.meta { color: #555555; font-size: 9pt; }
p.hint { color: #555555; font-size: 9pt; font-style: italic; }
table { border-collapse: collapse; margin-bottom: 6pt; }
th { background-color: #e8edf3; text-align: left; font-weight: bold; }
th, td { border: 1px solid #9aa5b1; padding: 3px 6px; vertical-align: top; font-size: 10pt; }
td.num, th.num { text-align: right; }
td.failed { color: #8a1c1c; }
tr.best td { font-weight: bold; }
"""
TABLE = '<table cellspacing="0" cellpadding="4" border="1" width="100%">'
# short headings stay on one line in a narrow column (Qt's printer and browsers honour it inline)
NOWRAP = 'style="white-space:nowrap"'
SECONDS_LABELS = {"features": "preparing the texts", "tuning": "tuning", "final_fit": "final fit",
                  "predict": "predicting the test texts", "total": "total"}


def render_appendix_html(appendix: dict[str, Any]) -> str:
    """The whole page; see the module docstring."""
    study = appendix.get("study", {})
    title = f"Methods appendix: {study['name']}" if study.get("name") else "Methods appendix"
    generated = " · ".join(x for x in (appendix.get("generated_by", ""), date(appendix.get("generated_at"))) if x)
    prose = appendix_paragraph(appendix)
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="meta">Written by {escape(generated)}.</p>' if generated else "",
        "<h2>Suggested text</h2>",
        '<p class="hint">A starting point for the methods section; adapt it to your paper.</p>',
        *(f"<p>{escape(paragraph)}</p>" for paragraph in prose.split("\n\n")),
        _data_section(appendix),
        _protocol_section(appendix),
        _comparison_section(appendix),
        _measures_section(appendix),
        _settings_section(appendix),
        _category_section(appendix),
        _threshold_section(appendix),
        _software_section(appendix),
        _notes_section(appendix),
        "<h2>References</h2>",
        *(_reference(work) for work in references(prose)),
        "</body></html>",
    ]
    return "\n".join(part for part in parts if part) + "\n"


def _reference(work: dict[str, Any]) -> str:
    parts = work["parts"]
    return (f"<p>{escape(parts['authors'])} ({escape(parts['year'])}). {escape(parts['title'])}"
            f"{title_stop(parts['title'])} "
            f"<i>{escape(parts['journal'])}</i>. {escape(parts['note'])}</p>")


def _rows(pairs: list[tuple[str, Any]]) -> str:
    """A two-column table of facts; rows whose value is unknown are left out."""
    body = "".join(
        f"<tr><th width=\"32%\">{escape(label)}</th><td>{escape(_text(value))}</td></tr>"
        for label, value in pairs
        if value not in (None, "", [], {})
    )
    return f"{TABLE}{body}</table>" if body else ""


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key} = {_text(item)}" for key, item in value.items())
    return str(value)


def _data_section(appendix: dict[str, Any]) -> str:
    data, split = appendix.get("data", {}), appendix.get("split", {})
    several = data.get("multi_label")
    facts = _rows([
        ("File of coded texts", data.get("file")),
        ("Sheet", data.get("sheet")),
        ("SHA-256 checksum", data.get("sha256")),
        ("Rows in the table", data.get("rows")),
        ("Text column(s)", data.get("text_columns")),
        ("Category column", data.get("category_column")),
        ("Several categories per text", "yes (multi-label coding)" if several is not None else None),
        ("Coding layout", (several or {}).get("layout")),
        ("Category columns (0/1)", (several or {}).get("category_columns")),
        ("Categories separated by", (several or {}).get("label_separator")),
        ("Categories per test text (mean)", f"{several['mean_categories_per_test_text']:.2f}"
         if several and "mean_categories_per_test_text" in several else None),
        ("Test texts without a category", (several or {}).get("test_texts_without_category")),
        ("Category fixes (file unchanged)", (data.get("category_fixes") or {}).get("summary")),
        ("Coded texts used", data.get("coded_texts")),
        ("Categories", data.get("n_categories")),
        ("Test texts from", split.get("how")),
        ("Split column", split.get("split_column")),
        ("Test file", split.get("test_file")),
        ("Share held out for the test", percent(split["test_share"]) if split.get("test_share") else None),
        ("Training texts", split.get("n_train")),
        ("Test texts", split.get("n_test")),
        ("Split in words", split.get("description")),
    ])
    categories = data.get("categories", [])
    table = ""
    if categories and any("test_texts" in c for c in categories):
        # several categories per text: the share of test texts coded with the category (they add up to more than 100%)
        total = (split.get("n_test") if several is not None else None) or sum(c.get("test_texts", 0) for c in categories) or 1
        rows = "".join(
            f"<tr><td>{escape(c['name'])}</td><td class=\"num\">{c.get('test_texts', 0):,}</td>"
            f"<td class=\"num\">{percent(c.get('test_texts', 0) / total)}</td></tr>"
            for c in categories
        )
        counted = ('<th class="num">Test texts coded with it</th><th class="num">Share of the test texts</th>'
                   if several is not None else '<th class="num">Test texts</th><th class="num">Share</th>')
        table = f'<h3>Categories in the test texts</h3>{TABLE}<tr><th>Category</th>{counted}</tr>{rows}</table>'

    return f"<h2>Data</h2>{facts}{table}"


def _protocol_section(appendix: dict[str, Any]) -> str:
    evaluation = appendix.get("evaluation", {})
    oversampling = evaluation.get("oversampling")
    if oversampling == "random" and evaluation.get("oversampling_ratio"):
        oversampling = f"random, smaller categories grown to {percent(evaluation['oversampling_ratio'])} of the largest"
    several = evaluation.get("multi_label") or {}
    stratified = "iterative stratification (Sechidis et al., 2011)" if several else "stratified"
    families = several.get("model_families", [])
    per_category = "; ".join(
        [*(["conventional models: one binary classifier per category (one-vs-rest)"] if "conventional" in families else []),
         *(["Transformers: one sigmoid output per category, binary cross-entropy"] if "transformer" in families else [])])
    facts = _rows([
        ("Cross-validation folds", (f"{evaluation['folds']}, drawn by {stratified} from the training texts" if several
                                    else f"{evaluation['folds']} ({stratified}, on the training texts)")
         if evaluation.get("folds") else None),
        ("Setting chosen by", f"highest mean {evaluation['selection_metric']}" if evaluation.get("selection_metric") else None),
        ("Several categories per text", per_category or ("yes" if several else None)),
        ("Test texts drawn by", several.get("stratification") if appendix.get("split", {}).get("stratification") else None),
        ("Decision thresholds", several.get("threshold_rule")),
        ("Transformer tuning", evaluation.get("transformer_tuning")),
        ("Oversampling", oversampling),
        ("Confidence level", percent(evaluation["ci_level"]) if evaluation.get("ci_level") else None),
        ("Bootstrap resamples", evaluation.get("bootstrap_samples")),
        ("Random seed", str(evaluation["seed"]) if "seed" in evaluation else None),
    ])
    return f"<h2>Protocol</h2>{facts}" if facts else ""


def _comparison_section(appendix: dict[str, Any]) -> str:
    models = sorted(appendix.get("models", []), key=lambda m: (m.get("rank") is None, m.get("rank") or 0))
    if not models:
        return ""
    level = appendix.get("evaluation", {}).get("ci_level")
    ci_head = f"{percent(level)} CI" if level else "CI"
    several = bool(appendix.get("evaluation", {}).get("multi_label"))
    scores_head = (f'<th class="num" {NOWRAP}>Micro-F1</th><th class="num">Subset accuracy</th>'
                   f'<th class="num">Hamming loss</th>') if several else f'<th class="num" {NOWRAP}>Accuracy</th>'
    head = (f'<tr><th width="6%" {NOWRAP}>Rank</th><th width="30%">Model</th><th class="num" {NOWRAP}>Macro-F1</th>'
            f'<th class="num" {NOWRAP}>{ci_head}</th>{scores_head}'
            f'<th class="num">Tuning macro-F1<br>mean ± sd</th><th class="num" {NOWRAP}>Time (s)</th></tr>')
    rows = []
    for model in models:
        seconds = model.get("seconds", {}).get("total")
        time = f"{seconds:,.1f}" if seconds is not None else ""
        if "test" not in model:
            reason = model.get("message") or model.get("status", "")
            rows.append(f'<tr><td></td><td>{escape(model["name"])}</td><td class="failed" colspan="{6 if several else 4}">'
                        f'{escape(model.get("status", ""))}: {escape(reason)}</td><td class="num">{time}</td></tr>')
            continue
        test = model["test"]
        css = ' class="best"' if model.get("rank") == 1 and len(models) > 1 else ""
        scores = "".join(f'<td class="num">{score(test.get(name), 3)}</td>'
                         for name in (("micro_f1", "accuracy", "hamming_loss") if several else ("accuracy",)))
        rows.append(
            f'<tr{css}><td>{model.get("rank", "")}</td><td>{escape(model["name"])}</td>'
            f'<td class="num">{score(test["macro_f1"], 3)}</td>'
            f'<td class="num">{interval(test.get("macro_f1_ci"), 3)}</td>'
            f'{scores}'
            f'<td class="num">{_cv(model)}</td><td class="num">{time}</td></tr>'
        )
    measured = "Macro-F1, micro-F1, subset accuracy and Hamming loss" if several else "Macro-F1 and accuracy"
    note = (f'<p class="hint">{measured} on the held-out test texts; the interval is a percentile '
            'bootstrap over the test texts. Tuning: the chosen setting\'s macro-F1 across the cross-validation folds (or the one validation split) '
            'of the training texts. Time: the whole model, from preparing the texts to predicting the test texts.</p>')
    return f"<h2>Model comparison</h2>{TABLE}{head}{''.join(rows)}</table>{note}"


def _cv(model: dict[str, Any]) -> str:
    if "cv_mean" not in model:
        return ""
    sd = f" ± {model['cv_sd']:.3f}" if "cv_sd" in model else ""
    return f"{model['cv_mean']:.3f}{sd}"


def _settings_section(appendix: dict[str, Any]) -> str:
    blocks = []
    for model in appendix.get("models", []):
        labels = model.get("grid_labels", {})
        grid = "; ".join(
            f"{labels.get(name, name)}: {', '.join(_text(v) for v in values)}" for name, values in model.get("grid", {}).items()
        )
        seconds = model.get("seconds", {})
        times = ", ".join(f"{SECONDS_LABELS.get(k, k)} {v:,.1f} s" for k, v in seconds.items() if isinstance(v, int | float))
        device = model.get("device", {})
        facts = _rows([
            ("Representation", model.get("representation_label")),
            ("Pre-trained model / vectors", model.get("pretrained")),
            ("Representation options", _options(model.get("options", {}))),
            ("Classifier", model.get("classifier_label")),
            ("Grid searched", grid),
            ("Settings tried", model.get("n_settings")),
            ("Chosen by", model.get("tuning")),
            ("Chosen setting", model.get("chosen_text")),
            ("Chosen setting's macro-F1 per tuning split", [f"{s:.3f}" for s in model.get("cv_scores", [])]),
            ("Model inputs (features / weights)", model.get("n_features")),
            ("Device", device.get("name") if isinstance(device, dict) else None),
            ("Notes", model.get("model_notes")),
            ("Time", times),
            ("Why it failed", model.get("message")),
        ])
        blocks.append(f"<h3>{escape(model['name'])}</h3>{facts}{_codebook_block(model.get('codebook'))}")
    return "<h2>Settings per model</h2>" + "".join(blocks) if blocks else ""


def _codebook_block(facts: dict[str, Any] | None) -> str:
    """A language model with the codebook: its record, the prompt sensitivity and the full prompt template(s)."""
    if not facts:
        return ""
    sensitivity = facts.get("sensitivity") or {}
    outside = facts.get("outside_answers") or {}
    table = _rows([
        ("Language model", facts.get("language_model")),
        ("SHA-256 of the weights", facts.get("weights_sha256")),
        ("Server's model digest", facts.get("server_model_digest")),
        ("Server", " ".join(x for x in (facts.get("runtime", "") if facts.get("where") == "server" else "",
                                        facts.get("server_address", "")) if x)),
        ("Quantisation", facts.get("quantisation")),
        ("Runtime", facts.get("runtime") if facts.get("where") != "server" else None),
        ("Number format", facts.get("number_format")),
        ("Examples per category (k)", facts.get("k")),
        ("Seed of the examples", facts.get("seed")),
        ("Temperature", facts.get("temperature")),
        ("Answers per question", facts.get("samples")),
        ("How answers became probabilities", facts.get("scoring")),
        ("Examples", facts.get("examples_note")),
        ("Prompt template's SHA-256", facts.get("prompt_sha256")),
        ("Prompt sensitivity", sensitivity.get("sentence")),
        *((f"Wording {i}: {p.get('wording', '')}", f"macro-F1 {score(p.get('macro_f1'), 3)}; prompt SHA-256 "
           f"{p.get('prompt_sha256', '')}") for i, p in enumerate(sensitivity.get("prompts") or [], 1)),
        ("Answers outside the categories", f"{outside['outside']:,} of {outside['asked']:,}" if outside else None),
        ("Texts left this computer", facts.get("texts_left_computer")),
    ])
    templates = facts.get("prompt_templates") or []
    shown = "".join(f"<p><b>{'Prompt template' if len(templates) == 1 else f'Prompt template {i}'}</b> "
                    "(“{text}” stands for each text)</p>"
                    f"<pre style=\"white-space:pre-wrap; font-size:9pt;\">{escape(template)}</pre>"
                    for i, template in enumerate(templates, 1))
    return table + shown


def _options(options: dict[str, Any]) -> str:
    shown = {key: value for key, value in options.items() if key not in {"model", "vectors"}}
    return "; ".join(f"{key} = {'none' if value is None else json.dumps(value) if isinstance(value, str) else _text(value)}"
                     for key, value in shown.items())


def _category_section(appendix: dict[str, Any]) -> str:
    models = sorted((m for m in appendix.get("models", []) if m.get("per_category")), key=lambda m: m.get("rank", 0))
    if not models:
        return ""
    categories = [c["category"] for c in models[0]["per_category"]]
    support = {c["category"]: c.get("support") for c in models[0]["per_category"]}
    coded = "Coded test texts" if appendix.get("evaluation", {}).get("multi_label") else "Test texts"
    head = f"<tr><th>Category</th><th class=\"num\">{coded}</th>" + "".join(
        f'<th class="num">{escape(m["name"])}</th>' for m in models) + "</tr>"
    scores = [{c["category"]: c for c in m["per_category"]} for m in models]
    rows = "".join(
        f"<tr><td>{escape(category)}</td><td class=\"num\">{_text(support.get(category, ''))}</td>"
        + "".join(f'<td class="num">{_f1_cell(s.get(category, {}))}</td>' for s in scores) + "</tr>"
        for category in categories
    )
    intervals = any("f1_ci" in c for m in models for c in m["per_category"])
    note = ('<p class="hint">In brackets: the F1\'s percentile bootstrap interval over the test texts.</p>'
            if intervals else "")
    return f"<h2>F1 per category (test texts)</h2>{TABLE}{head}{rows}</table>{note}"


def _f1_cell(scores: dict[str, Any]) -> str:
    """A category's F1, with its interval where one was computed (several categories per text)."""
    f1 = score(scores.get("f1"), 3)
    return f"{f1} ({interval(scores['f1_ci'], 2)})" if scores.get("f1_ci") and scores.get("f1") is not None else f1


def _measures_section(appendix: dict[str, Any]) -> str:
    """Several categories per text: what each reported measure means, one line each."""
    measures = (appendix.get("evaluation", {}).get("multi_label") or {}).get("measures") or {}
    if not measures:
        return ""
    rows = "".join(f'<tr><th width="32%">{escape(name)}</th><td>{escape(meaning)}</td></tr>'
                   for name, meaning in measures.items())
    return f"<h3>What the measures mean</h3>{TABLE}{rows}</table>"


def _threshold_section(appendix: dict[str, Any]) -> str:
    """Several categories per text with tuned thresholds: each model's threshold per category."""
    protocol = appendix.get("evaluation", {}).get("multi_label") or {}
    models = [m for m in appendix.get("models", []) if m.get("thresholds") and m.get("per_category")]
    if protocol.get("thresholds") != "tuned" or not models:
        return ""
    categories = [c["category"] for c in models[0]["per_category"]]
    head = "<tr><th>Category</th>" + "".join(f'<th class="num">{escape(m["name"])}</th>' for m in models) + "</tr>"
    rows = "".join(
        f"<tr><td>{escape(category)}</td>"
        + "".join(f'<td class="num">{m["thresholds"][i]:.2f}</td>' if i < len(m["thresholds"]) else "<td></td>"
                  for m in models) + "</tr>"
        for i, category in enumerate(categories)
    )
    return (f"<h2>Decision thresholds per category</h2>{TABLE}{head}{rows}</table>"
            '<p class="hint">Tuned per category on the out-of-fold probabilities of the training texts; '
            "the test texts played no part.</p>")


def _software_section(appendix: dict[str, Any]) -> str:
    software, hardware, study = appendix.get("software", {}), appendix.get("hardware", {}), appendix.get("study", {})
    facts = [
        ("TextLab version", software.get("textlab")),
        ("Python", software.get("python")),
        *((name, version) for name, version in software.get("packages", {}).items() if version),
        ("Operating system", software.get("platform")),
        ("Processor", hardware.get("processor")),
        ("CPU cores", hardware.get("cpu_count")),
        ("Worker processes", hardware.get("worker_processes")),
        ("GPU", hardware.get("gpu")),
        ("Transformer device", hardware.get("transformer_devices")),
        ("Started", study.get("started_at")),
        ("Finished", study.get("finished_at")),
    ]
    table = _rows(facts)
    return f"<h2>Software and hardware</h2>{table}" if table else ""


def _notes_section(appendix: dict[str, Any]) -> str:
    notes = appendix.get("notes", [])
    if not notes:
        return ""
    return "<h2>Notes from the run</h2>" + "".join(f"<p>{escape(note)}</p>" for note in notes)
