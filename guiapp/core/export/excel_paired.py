"""The *Is the best really better?* sheet: every pair of models on the same test texts (McNemar's
test, Holm-corrected), the pairs compared across the folds (corrected resampled t-test), and each
model's agreement with the human coding (Cohen's kappa, Krippendorff's alpha, with intervals) —
the numbers of the Results step's tab of the same name (``experiment/scores/comparisons.py``), in the
study's order of rank. Written top to bottom (``constant_memory`` safe)."""

from __future__ import annotations

from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.export.excel_cells import write_cells
from guiapp.core.export.excel_style import Styles

SHEET = "Is the best really better"
PAIR_HEADERS = ("Model A", "Model B", "Test texts only A got right", "Only B got right", "p", "p (Holm)", "In words")
FOLD_HEADERS = ("Model A", "Model B", "Mean difference in macro-F1 (A − B)", "95 % interval from", "to", "p",
                "p (Holm)", "In words")
AGREEMENT_HEADERS = ("Model", "Agrees on (share of test texts)", "Cohen's kappa", "from", "to",
                     "Krippendorff's alpha", "from", "to")
# a study where a text can have several categories
BOOTSTRAP_TITLE = ("Every pair of models on the same test texts (paired bootstrap of the difference in macro-F1, "
                   "Holm-corrected)")
BOOTSTRAP_HEADERS = ("Model A", "Model B", "Difference in macro-F1 (A − B)", "95 % interval from", "to", "p",
                     "p (Holm)", "In words")
MULTI_LABEL_AGREEMENT_HEADERS = ("Model", "All categories of a text right (share of test texts)",
                                 "Cohen's kappa (mean over the categories)", "from", "to",
                                 "Krippendorff's alpha (mean over the categories)", "from", "to")


def write_paired_sheet(workbook: Workbook, styles: Styles, result: ExperimentResult, comparisons=None) -> Worksheet:
    """``comparisons``: what :func:`compare_models` found (computed here when not given)."""
    from guiapp.core.experiment.scores.comparisons import compare_models

    found = comparisons if comparisons is not None else compare_models(result)
    sheet = workbook.add_worksheet(SHEET)
    sheet.set_column(0, 1, 34)
    sheet.set_column(2, 5, 14)
    sheet.set_column(6, 7, 60, styles.wrap)
    pair_formats = [None, None, styles.count, styles.count, styles.p_value, styles.p_value]
    fold_formats = [None, None, *[styles.signed_score] * 3, styles.p_value, styles.p_value]
    agreement_formats = [None, styles.percent, *[styles.score] * 6]
    row = 0
    for sentence in found.headline:
        sheet.write_string(row, 0, sentence)
        row += 1
    row += 1
    multi = result.multi_label  # several categories per text: the paired bootstrap of the difference in macro-F1
    sheet.write_string(row, 0, BOOTSTRAP_TITLE if multi else
                       "Every pair of models on the same test texts (McNemar's test, Holm-corrected)", styles.title)
    row += 1
    row = _headers(sheet, styles, row, BOOTSTRAP_HEADERS if multi else PAIR_HEADERS)
    for pair, sentence in zip(found.test_set, found.test_set_sentences, strict=True):
        if multi:
            _cells(sheet, styles, row, [pair.model_a, pair.model_b, pair.mean_difference, pair.ci_low, pair.ci_high,
                                        pair.p_value, pair.p_holm, sentence], fold_formats)
        else:
            _cells(sheet, styles, row, [pair.model_a, pair.model_b, pair.n_only_a_right, pair.n_only_b_right,
                                        pair.p_value, pair.p_holm, sentence], pair_formats)
        row += 1
    for note in found.notes if multi else []:
        sheet.write_string(row, 0, note, styles.muted)
        row += 1
    if found.folds:
        row += 1
        sheet.write_string(row, 0, "Pairs compared across the folds (corrected resampled t-test, Holm-corrected)",
                           styles.title)
        row = _headers(sheet, styles, row + 1, FOLD_HEADERS)
        for pair, sentence in zip(found.folds, found.fold_sentences, strict=True):
            _cells(sheet, styles, row, [pair.model_a, pair.model_b, pair.mean_difference, pair.ci_low, pair.ci_high,
                                        pair.p_value, pair.p_holm, sentence], fold_formats)
            row += 1
    for skipped in found.skipped_fold_pairs:
        sheet.write_string(row, 0, f"{skipped.model_a} and {skipped.model_b}: {skipped.reason}", styles.muted)
        row += 1
    row += 1
    sheet.write_string(row, 0, "Agreement of each model with your coding of the test texts", styles.title)
    row = _headers(sheet, styles, row + 1, MULTI_LABEL_AGREEMENT_HEADERS if multi else AGREEMENT_HEADERS)
    for agreement in found.agreement:
        _cells(sheet, styles, row, [agreement.model, agreement.share_agreeing, agreement.kappa,
                                    *agreement.kappa_interval, agreement.alpha, *agreement.alpha_interval],
               agreement_formats)
        row += 1
    return sheet


def _headers(sheet: Worksheet, styles: Styles, row: int, headers: tuple[str, ...]) -> int:
    sheet.set_row(row, 30)
    for col, header in enumerate(headers):
        sheet.write_string(row, col, header, styles.header)
    return row + 1


def _cells(sheet: Worksheet, styles: Styles, row: int, values: list, formats: list[Format | None]) -> None:
    write_cells(sheet, row, values, formats, styles.wrap)
