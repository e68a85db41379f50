"""What the data-health report is made of: findings (issues), category counts, text lengths,
duplicate groups, and the report itself with its verdict. Plain frozen dataclasses, shared by the
report (``report.py``) and its checks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Literal

from guiapp.core.study.category_fixes import CategoryFixes

if TYPE_CHECKING:
    from guiapp.core.health.label_sets import LabelHealth

Severity = Literal["error", "warning", "info"]


Verdict = Literal["ready", "warnings", "not_ready"]


@dataclass(frozen=True)
class FixAction:
    """A one-click fix a finding offers: the button's words and the category fixes it adds to the
    study (recorded in ``[data] category_fixes``, never written into the table)."""

    label: str  # "Merge “Democratic␣” into “Democratic”", "Leave out these 2 categories", "Trim spaces"
    fixes: CategoryFixes


@dataclass(frozen=True)
class HealthIssue:
    """One finding, in plain words. ``error`` blocks model comparison; ``warning`` deserves a
    look; ``info`` is good to know."""

    severity: Severity
    code: str  # stable identifier, e.g. "empty_texts", "small_categories", "conflicting_duplicates"
    title: str  # one line: "12 texts are empty"
    explanation: str  # what it means and why it matters
    fix: str  # what to do about it
    rows: tuple[int, ...] = ()  # table positions the user can jump to (may be capped, see count)
    count: int = 0  # how many rows/items are affected in total
    actions: tuple[FixAction, ...] = ()  # one-click fixes of the categories (see FixAction)


@dataclass(frozen=True)
class CategoryCount:
    label: str
    count: int
    share: float  # of coded rows, 0..1
    too_small: bool  # fewer examples than needed for k-fold cross-validation


@dataclass(frozen=True)
class LengthStats:
    """Distribution of text lengths (in words or in subword tokens)."""

    unit: Literal["words", "tokens"]
    n: int  # texts measured
    mean: float
    median: float
    p90: float
    max: int
    histogram_edges: tuple[float, ...]  # len(counts) + 1 bin edges
    histogram_counts: tuple[int, ...]
    limit: int | None = None  # e.g. 512 tokens for the default Transformer
    share_over_limit: float | None = None  # 0..1, of measured texts
    n_over_limit: int | None = None
    sampled: bool = False  # True when measured on a random sample (very large tables)

    @property
    def over_limit_count(self) -> int | None:
        """Measured texts longer than the limit (from their share when the count was not recorded)."""
        if self.n_over_limit is not None:
            return self.n_over_limit
        return None if self.share_over_limit is None else round(self.share_over_limit * self.n)


@dataclass(frozen=True)
class DuplicateGroup:
    """Rows whose texts are the same once spaces and capitals are ignored (see ``duplicates.py``)."""

    text_preview: str  # the first ~120 characters
    rows: tuple[int, ...]
    categories: tuple[str, ...]  # distinct labels among the coded rows of the group
    conflicting: bool  # coded with more than one category


@dataclass(frozen=True)
class HealthReport:
    n_rows: int
    n_coded: int
    n_uncoded: int
    n_empty_texts: int
    n_folds: int
    categories: tuple[CategoryCount, ...]  # largest first
    duplicate_groups: tuple[DuplicateGroup, ...]  # conflicting groups first
    words: LengthStats | None
    tokens: LengthStats | None
    tokenizer_name: str | None
    issues: tuple[HealthIssue, ...] = field(default_factory=tuple)  # errors, then warnings, then info
    # rows that repeat the text of an earlier row (the extra copies: a text in 3 rows counts 2);
    # the one count of duplicates the key figure, the finding and the table's caption all show
    n_repeated_texts: int = 0
    n_left_out: int = 0  # coded rows of categories the study leaves out (category_fixes)
    category_fixes: CategoryFixes = field(default_factory=CategoryFixes)  # the fixes this report applied
    first_row: int = 2  # the spreadsheet row of the table's first row of data (rows in issues are positions)
    # several categories per text: per category counts, combinations and co-occurrence (None otherwise)
    label_health: LabelHealth | None = None

    def spreadsheet_row(self, position: int) -> int:
        """The row a user sees in their spreadsheet for the table's row at ``position``."""
        return int(position) + self.first_row

    @property
    def verdict(self) -> Verdict:
        severities = {issue.severity for issue in self.issues}
        if "error" in severities:
            return "not_ready"
        if "warning" in severities:
            return "warnings"
        return "ready"

    @property
    def verdict_text(self) -> str:
        """One plain sentence that answers "can I compare models on this?"."""
        if self.verdict == "not_ready":
            return "Not ready yet: fix the problems marked in red before comparing models."
        if self.verdict == "warnings":
            return "Ready, with points worth a look: models can be compared, but check the warnings."
        return "Ready: your coded texts can be used to compare models."

    def to_dict(self) -> dict:
        data = asdict(self)
        data["verdict"] = self.verdict
        data["verdict_text"] = self.verdict_text
        return data
