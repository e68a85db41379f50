"""What to say when every coded text belongs to a category the study leaves out: the data step, the
health report and ``textlab run`` give the same sentence and the same way back."""

from __future__ import annotations

from collections.abc import Sequence

from guiapp.core.study.category_fixes import visible

BRING_BACK = ("Bring at least two categories back: on the Data step, press Undo next to “Applied fixes” until they "
              "are back (in a study file, remove them from leave_out under [data.category_fixes]).")


def every_category_left_out(names: Sequence[object], n_texts: int, where: str = "the table") -> str:
    """"Every coded text in the table (60) belongs to a category the study leaves out (“a”, “b”), …"."""
    shown = ", ".join(f"“{visible(name)}”" for name in list(names)[:10])
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    listed = f" ({shown}{more})" if shown else ""
    return (f"Every coded text in {where} ({n_texts:,}) belongs to a category the study leaves out{listed}, so no "
            "coded text is left to learn from.")
