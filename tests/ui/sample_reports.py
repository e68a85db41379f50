"""Hand-made data-health reports for widget tests and screenshots (no core computation)."""

from __future__ import annotations

import numpy as np

from guiapp.core.health.findings import CategoryCount, DuplicateGroup, HealthIssue, HealthReport, LengthStats

POLICY_TOPICS = [
    ("Health", 617), ("Government Operations", 540), ("Defense", 401), ("Domestic Commerce", 352),
    ("Public Lands and Water Management", 330), ("Law, Crime, and Family Issues", 301),
    ("Transportation", 270), ("Banking, Finance, and Domestic Commerce", 236),
    ("Labor, Employment, and Immigration", 214), ("Environment", 205), ("Education", 190),
    ("International Affairs and Foreign Aid", 178), ("Agriculture", 161), ("Energy", 150),
    ("Macroeconomics", 122), ("Civil Rights, Minority Issues, and Civil Liberties", 91),
    ("Social Welfare", 55), ("Space, Science, Technology and Communications", 23),
    ("Community Development and Housing", 4), ("Foreign Trade", 2),
]


def categories(pairs, n_folds=5) -> tuple[CategoryCount, ...]:
    total = sum(count for _, count in pairs)
    return tuple(CategoryCount(label, count, count / total, count < n_folds) for label, count in pairs)


def lengths(unit, values, *, limit=None, bins=30, sampled=False) -> LengthStats:
    values = np.asarray(values)
    counts, edges = np.histogram(values, bins=bins)
    over = int((values > limit).sum()) if limit is not None else None
    return LengthStats(
        unit=unit, n=len(values), mean=float(values.mean()), median=float(np.median(values)),
        p90=float(np.percentile(values, 90)), max=int(values.max()),
        histogram_edges=tuple(float(e) for e in edges), histogram_counts=tuple(int(c) for c in counts),
        limit=limit, share_over_limit=(over / len(values)) if limit is not None else None,
        n_over_limit=over, sampled=sampled,
    )


def ready_report(**changes) -> HealthReport:
    """A clean data set: three categories, no issues."""
    rng = np.random.default_rng(1)
    words = rng.integers(5, 60, size=600)
    base = dict(
        n_rows=600, n_coded=600, n_uncoded=0, n_empty_texts=0, n_folds=5,
        categories=categories([("positive", 300), ("negative", 200), ("neutral", 100)]),
        duplicate_groups=(),
        words=lengths("words", words),
        tokens=lengths("tokens", words * 1.4 + 2, limit=512),
        tokenizer_name="all-MiniLM-L6-v2",
        issues=(),
    )
    base.update(changes)
    return HealthReport(**base)


def warnings_report(**changes) -> HealthReport:
    issues = (
        HealthIssue("warning", "small_categories", "2 categories have fewer than 5 coded texts",
                    "Cross-validation with 5 folds needs at least one example of each category per fold.",
                    "Code more texts of these categories, or merge them with a related category.",
                    rows=(10, 11, 12, 13, 14, 15), count=6),
        HealthIssue("info", "uncoded_rows", "40 texts are not yet coded",
                    "Rows without a category are left out of the comparison.",
                    "Nothing to do now; the chosen model can code them later.",
                    rows=tuple(range(560, 600)), count=40),
    )
    base = dict(
        n_rows=600, n_coded=560, n_uncoded=40, issues=issues,
        categories=categories([("positive", 300), ("negative", 253), ("neutral", 4), ("mixed", 3)]),
    )
    base.update(changes)
    return ready_report(**base)


def not_ready_report(**changes) -> HealthReport:
    issues = (
        HealthIssue("error", "empty_texts", "12 texts are empty",
                    "These rows have a category but no text, so no model can learn from them.",
                    "Fill in the texts or delete these rows in your spreadsheet.",
                    rows=tuple(range(100, 112)), count=12),
        HealthIssue("error", "conflicting_duplicates", "25,000 identical texts were coded differently",
                    "The same text has different categories in different rows.",
                    "Decide on one category for each of these texts.",
                    rows=tuple(range(10_000)), count=25_000),
        HealthIssue("warning", "long_texts", "3.4 % of texts are longer than 512 subword tokens",
                    "A Transformer reads at most 512 subword tokens; the rest of the text is cut off.",
                    "Consider splitting long texts into paragraphs.", rows=(3, 4), count=2),
    )
    groups = (
        DuplicateGroup("Stop the war now", (5, 17, 40), ("pro", "contra"), True),
        DuplicateGroup("I agree", (7, 8), ("pro",), False),
    )
    base = dict(n_empty_texts=12, issues=issues, duplicate_groups=groups,
                n_repeated_texts=sum(len(group.rows) - 1 for group in groups))  # the extra copies
    base.update(changes)
    return ready_report(**base)


def policy_report() -> HealthReport:
    """A realistic report for screenshots: 20 policy topics, issues of each severity."""
    rng = np.random.default_rng(7)
    words = np.clip(rng.lognormal(mean=2.4, sigma=0.45, size=4449), 3, 120).astype(int)
    tokens = np.clip((words * rng.normal(1.45, 0.15, size=words.size) + 2).astype(int), 4, None)
    tokens[:152] += 520  # a handful of long bill titles
    cats = categories(POLICY_TOPICS)
    n_coded = sum(c.count for c in cats)
    issues = (
        HealthIssue("error", "conflicting_duplicates", "3 identical texts were coded with different topics",
                    "The same text appears in several rows with different categories, so a model is "
                    "told two different answers for it.",
                    "Decide on one topic for each of these texts and correct the other rows.",
                    rows=(17, 402, 1880, 77, 2301, 911, 3012), count=7),
        HealthIssue("warning", "small_categories", "2 categories have fewer than 5 coded texts",
                    "5-fold cross-validation splits the coded texts into 5 folds; a category with fewer "
                    "than 5 examples cannot appear in every fold, so its results are unreliable.",
                    "Code more texts of “Community Development and Housing” and “Foreign Trade”, or "
                    "merge them with a related topic.",
                    rows=(96, 1210, 2044, 3120, 4001, 4410), count=6),
        HealthIssue("warning", "long_texts", "3.4 % of texts are longer than 512 subword tokens",
                    "A standard Transformer reads at most 512 subword tokens; the rest of a longer text "
                    "is cut off and cannot influence its prediction.",
                    "Usually fine for titles and short documents. For long texts, consider splitting them "
                    "into paragraphs and coding those.",
                    rows=tuple(range(152)), count=152),
        HealthIssue("info", "uncoded_rows", "7 texts are not yet coded",
                    "Rows without a category are left out of the comparison.",
                    "Nothing to do now: once you have chosen a model, it can code these texts for you.",
                    rows=tuple(range(4442, 4449)), count=7),
    )
    groups = (
        DuplicateGroup("A bill to amend the Internal Revenue Code of 1986 to extend the credit for "
                       "renewable electricity production", (17, 402, 1880),
                       ("Energy", "Macroeconomics"), True),
        DuplicateGroup("To designate the facility of the United States Postal Service located at 100 Main "
                       "Street as the Post Office Building", (77, 2301), ("Government Operations", "Public Lands and Water Management"), True),
        DuplicateGroup("National Defense Authorization Act for Fiscal Year 2004", (911, 3012),
                       ("Defense",), False),
        DuplicateGroup("A bill to provide for the conveyance of certain Federal lands", tuple(range(1000, 1014)),
                       ("Public Lands and Water Management",), False),
    )
    return HealthReport(
        n_rows=4449, n_coded=n_coded, n_uncoded=4449 - n_coded, n_empty_texts=0, n_folds=5,
        categories=cats, duplicate_groups=groups, n_repeated_texts=sum(len(group.rows) - 1 for group in groups),
        words=lengths("words", words, bins=40),
        tokens=lengths("tokens", tokens, limit=512, bins=40),
        tokenizer_name="all-MiniLM-L6-v2", issues=issues,
    )
