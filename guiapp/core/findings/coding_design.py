"""The design of the Coding step, read from its record (:class:`CodingLog`) and the table's own
codings: which texts the file had coded (taken as a random sample of the table), and every text
TextLab showed, in order, with the probability it was drawn with.

A row's first entry in the record says how it was chosen (a strategy with a probability: drawn;
anything else — "in order", a review — chosen by hand); its latest coding says its category (a
review that changed it counts); a row shown and never coded was skipped. Rows of the file with a
category are the file's codings, even when a coding in TextLab changed their category. A second
coder's codings are a record apart and are not read.

**A coding team's draw.** With a team, the record holds several coders' entries per text and the
study's category of a text is the team's resolved one (``log.categories_by_row``: adjudicated,
else agreed or one coder, else the team's rule). The design is then the team's draw
(``log.team.assignment``, ``core/coding/team_assignment.py``), not each coder's entries:

- The draw is a simple random sample without replacement of the table's uncoded texts: each text
  of the pool gets a uniform key (a hash of the seed, the source and the row) and the texts with
  the smallest keys are drawn. Restricted to one source (the table, or a second file) the drawn
  texts are, given how many of them come from it, a simple random sample of that source's pool.
- The probability stored with a coder's entry (``m / N``) is the chance that *that coder* got
  the text; the study's coding of a text comes from all its coders, so the design needs the
  chance that the *text* was drawn, which is ``n / N`` for all of them alike — a simple random
  sample. It is written in the Coding step's sequential form (``sequential.py``): the drawn
  texts, in the order of their keys, are draws one at a time from the texts still open, the
  ``j``-th (from 0) with probability ``1 / (N_open − j)``, where ``N_open`` counts the corpus's
  texts neither coded in the file nor shown before the team's first drawn text (the pool the draw
  was made from). The texts at fixed places of a uniformly random order are a uniformly random
  sequence, so each of these draws is uniform among the texts still open given the ones before:
  exactly the condition the sequential estimator needs, and the recorded p is the true one.
- Only the drawn texts that a coder has reached (coded, skipped, or coded by some and left out)
  enter: which of the key-ordered places the coders have reached depends on how far each coder
  has come, not on what the texts say, so the reached texts are still a simple random sample of
  the pool. A drawn text no coder reached yet is not counted and the Findings say how many wait.
- A drawn text reached but without a study category — the coders disagreed and no one
  adjudicated (rule "left out", or an even split under "majority"), or every coder skipped it —
  is drawn-but-uncoded: like a skipped text it counts with the model's answer, a bias where the
  model is often wrong on such texts; the Findings say how many were left out and why.
- An entry imported from a coding sheet counts as drawn when the draw gave that text to that
  coder (the sheet holds their drawn texts), else as chosen by hand; an entry marked as drawn for
  a text the draw does not hold (a draw made again later) counts as chosen by hand.
- Texts a team coder coded outside the draw keep their own entry's meaning: drawn by a Coding-step
  strategy with its probability, or chosen by hand. Texts chosen before the team's first drawn
  text come first; the draw's texts follow as one block, then everything shown after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.coding.adjudication import LEFT_OUT, TIE
from guiapp.core.coding.coding_record import ASSIGNED, SHEET, row_label
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.strategies import STRATEGIES
from guiapp.core.errors import DataError
from guiapp.core.findings.designs import CodingStepDraws, Step


@dataclass(frozen=True)
class LoggedCodings:
    """The Coding step's design and the coded texts it gives (corpus positions and categories)."""

    design: CodingStepDraws
    positions: np.ndarray
    labels: tuple[str, ...]
    n_skipped: int  # drawn, shown and skipped (texts left out by a team's rule not included)
    n_by_hand: int
    n_team_drawn: int = 0  # texts of the team's draw that a coder has reached
    n_left_out: int = 0  # of those, left out: coders disagreed and no one adjudicated
    n_team_waiting: int = 0  # texts of the team's draw no coder has reached yet

    def team_notes(self) -> tuple[str, ...]:
        """What the Findings say about a team's draw, in words (empty without one); the texts left out
        by the team's rule are said by the design's weighting (``sequential.py``)."""
        notes = []
        if self.n_team_drawn:
            notes.append(f"{self.n_team_drawn:,} texts come from the coding team's random draw and are weighted as "
                         "a random sample of the texts that were still uncoded when it was drawn.")
        if self.n_team_waiting:
            notes.append(f"{self.n_team_waiting:,} texts drawn for the team are not coded yet and are not counted; "
                         "the coded ones still stand for the uncoded texts as a random sample.")
        return tuple(notes)


def design_from_log(log: CodingLog, file_categories: Mapping, corpus_rows: Sequence, *,
                    source: str = "table", sets: bool = False) -> LoggedCodings:
    """The design of texts coded in the file and in TextLab's Coding step. ``corpus_rows``: the row
    (the table's index label) of each corpus text, in corpus order; ``file_categories``: row → the
    category the file gives it (rows without one left out or None). ``source="second file"``: the
    corpus is the second file the Coding step drew from (it has no codings of its own).
    ``sets``: a text can have several categories: ``file_categories`` gives each coded row its
    tuple of categories (``()``: coded with none of them) and the labels given back are such tuples."""
    place: dict = {}
    for position, row in enumerate(corpus_rows):
        key = row_label(row)
        if key in place:
            raise DataError(f"The row {key!r} appears twice in the corpus.", "Give each row of the table once.")
        place[key] = position
    initial: dict = {}
    if source == "table":
        for row, category in file_categories.items():
            if category is None or (isinstance(category, float) and category != category) or category == "":
                continue
            key = row_label(row)
            if key not in place:
                raise DataError(f"The file's coding of row {key!r} is for a text that is not in the corpus.",
                                "Measure the shares in the table the texts were coded in.")
            initial[key] = tuple(str(c) for c in category) if sets else str(category)
    if sets:
        from guiapp.core.coding.codings import coded_sets

        latest = coded_sets(log, source)
    else:
        latest = log.categories_by_row(source)
    team_rows = [row for row in _team_drawn(log, source) if row not in initial]
    team_set = set(team_rows)
    steps: list[Step] = []
    shown: dict = {}
    for entry in log.entries_of():
        if entry.source != source or entry.row in initial or entry.row in shown:
            continue
        if entry.row not in place:
            raise DataError(f"Row {entry.row!r}, coded in TextLab, is not in the corpus.",
                            "Measure the shares in the table the texts were coded in.")
        if entry.row in team_set:  # the team's draw, as one block of draws at random from the open texts
            open_texts = len(place) - len(initial) - len(shown)
            for j, row in enumerate(team_rows):
                if row not in place:
                    raise DataError(f"Row {row!r}, coded in TextLab, is not in the corpus.",
                                    "Measure the shares in the table the texts were coded in.")
                shown[row] = True
                steps.append(Step(place[row], 1.0 / max(open_texts - j, 1)))
            team_set = set()
            continue
        drawn = entry.chosen_by in STRATEGIES and entry.probability is not None
        shown[entry.row] = True
        steps.append(Step(place[entry.row], float(entry.probability) if drawn else None))  # type: ignore[arg-type]
    labels = dict(initial)
    for row, category in latest.items():
        if row in initial or row in shown:
            labels[row] = category
    positions = np.array([place[row] for row in labels], dtype=np.intp)
    coded = set(positions.tolist())
    left_out = _left_out(log, source, team_rows)
    left_out_positions = tuple(place[row] for row in team_rows if row in left_out and place[row] not in coded)
    n_skipped = sum(1 for step in steps if step.probability is not None and step.position not in coded)
    n_skipped -= len(left_out_positions)
    n_by_hand = sum(1 for step in steps if step.probability is None)
    design = CodingStepDraws(tuple(place[row] for row in initial), tuple(steps), left_out=left_out_positions)
    waiting = _team_waiting(log, source, set(initial), shown, place)
    return LoggedCodings(design, positions, tuple(labels.values()), n_skipped, n_by_hand,
                         len(team_rows), len(left_out_positions), waiting)


def _draw_of(log: CodingLog, source: str) -> dict:
    """Row → the coders the team's draw gave it to, for ``source``, rows in the order of the draw's keys."""
    team = getattr(log, "team", None)
    assignment = getattr(team, "assignment", None)
    if assignment is None:
        return {}
    from guiapp.core.coding.team_assignment import _key

    seed = assignment.plan.seed
    given: dict = {}
    for text in assignment.texts:
        if text.source == source:
            given.setdefault(text.row, set()).add(text.coder)
    return {row: given[row] for row in sorted(given, key=lambda row: _key(seed, "text", (source, row)))}


def _team_drawn(log: CodingLog, source: str) -> list:
    """The rows of the team's draw that a coder reached as drawn (an entry marked as drawn, or from a
    coding sheet of a coder the draw gave the text to), in the order of the draw's keys."""
    draw = _draw_of(log, source)
    if not draw:
        return []
    reached = set()
    for entry in log.entries_of():
        if entry.source != source or entry.row not in draw:
            continue
        if entry.chosen_by == ASSIGNED or (entry.chosen_by == SHEET and entry.coder in draw[entry.row]):
            reached.add(entry.row)
    return [row for row in draw if row in reached]


def _left_out(log: CodingLog, source: str, rows: Sequence) -> set:
    """Of ``rows``, those the team's rule leaves out because the coders disagreed and no one adjudicated."""
    if not rows or not log.team_mode:
        return set()
    wanted = set(rows)
    return {text.row for text in log.study_codings(source).texts
            if text.row in wanted and text.rule in (LEFT_OUT, TIE)}


def _team_waiting(log: CodingLog, source: str, initial: set, shown: dict, place: dict) -> int:
    """Texts of the team's draw (those measured) that no coder has reached yet."""
    return sum(1 for row in _draw_of(log, source) if row in place and row not in initial and row not in shown)
