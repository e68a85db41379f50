"""What the Coding step does differently when a team codes (two or more named coders).

The page asks :class:`TeamCoding` for the record of codings its machinery works on: in team mode
the active coder's own record (``CodingLog.of_coder``), so that coding, undo, flags, counts,
progress and the codings to check are theirs alone and a coder never sees another coder's coding
of a text; else the study's whole record, as for one coder.

Which texts a team coder gets:

- with the team's draw, their assigned texts in the draw's order (``team.rows_to_code``: the ones
  they skipped last), each recorded as chosen by ``"assigned"`` with the probability the draw gave
  it (``team.assigned_probability``);
- without a draw, the texts no one has coded yet, chosen by the usual strategies
  (:meth:`TeamCoding.taken_by_others` leaves the others' texts out of the pool).
"""

from __future__ import annotations

from guiapp.core.coding.coding_record import ASSIGNED, SECOND_CODER, SOURCES
from guiapp.core.coding.team import assigned_probability, rows_to_code

TABLE, SECOND_FILE = SOURCES


class TeamCoding:
    """The team side of the Coding step, read from the session's record of codings each time."""

    def __init__(self, session) -> None:  # noqa: ANN001 — a StudySession
        self.session = session
        self._view: tuple | None = None  # (log, coder, the coder's view): one view while both stay the same

    # -- who codes -------------------------------------------------------------------------------------
    @property
    def team(self):  # noqa: ANN201 — a Team or None
        return self.session.codings.team

    @property
    def on(self) -> bool:
        """Whether two or more coders code, each on their own record."""
        return self.session.codings.team_mode

    def active(self) -> str | None:
        """The coder coding now (in team mode), else None."""
        return self.team.active if self.on else None

    def log(self):  # noqa: ANN201 — a CodingLog (the coder's own view in team mode)
        """The record the Coding step's machinery works on: the active coder's own in team mode."""
        log = self.session.codings
        if not self.on:
            return log
        coder = self.team.active
        if self._view is None or self._view[0] is not log or self._view[1] != coder:
            self._view = (log, coder, log.of_coder(coder))
        return self._view[2]

    def key(self) -> tuple:
        """What the queue of texts depends on: the queue is built again when it changes."""
        if not self.on:
            return (None,)
        team = self.team
        return (team.active, tuple(team.coders), id(team.assignment))

    # -- which texts ------------------------------------------------------------------------------------
    @property
    def drawn(self) -> bool:
        """Whether the active coder codes the texts the team's draw gave them."""
        return self.on and self.team.assignment is not None

    def taken_by_others(self, source: str) -> set:
        """Rows of ``source`` another coder has coded (skips left out): without a draw a team coder
        codes the texts no one has coded yet."""
        if not self.on or self.drawn:
            return set()
        active = self.team.active
        return {entry.row for entry in self.session.codings.entries_of()
                if entry.source == source and entry.coder != active and not entry.skipped}

    def queue(self, source: str) -> list:
        """The rows of ``source`` the active coder still has to code, in the draw's order."""
        log = self.session.codings
        return rows_to_code(log.entries_of(), self.team, self.team.active, source)

    def next_assigned(self, loop):  # noqa: ANN001, ANN201 — a CodingLoop; a Suggestion or None
        """The next of the active coder's drawn texts in the loop's source, with its probability."""
        from guiapp.core.coding.coding_loop import Suggestion
        from guiapp.core.coding.strategies import Choice

        coder = self.team.active
        skips = {entry.row: entry.time for entry in self.log().entries_of()
                 if entry.source == loop.source and entry.skipped}
        queue = self.queue(loop.source)
        waiting = [row for row in queue if row not in skips]
        skipped = sorted((row for row in queue if row in skips), key=skips.__getitem__)  # the longest ago first
        for row in [*waiting, *skipped]:
            position = loop.pool.position(row, loop.source)
            if position is None or position >= loop.pool.n_pool:  # coded in the file since the draw
                continue
            probability = assigned_probability(self.team, coder, row, loop.source)
            reason = (f"{coder}, you skipped this text before: code it now, or skip it again to see the others "
                      "you skipped." if row in skips else f"Drawn for {coder}: the team's draw gave this text to you.")
            return Suggestion(row, Choice(position, probability, ASSIGNED), reason, loop.source,
                              loop.pool.text(row, loop.source))
        return None

    def is_open(self, loop, row, source: str) -> bool:  # noqa: ANN001
        """Whether the drawn text may still be coded by the active coder."""
        return source == loop.source and row in self.queue(source)

    # -- how far -------------------------------------------------------------------------------------------
    def coded_by_active(self) -> int:
        """Texts the active coder has coded (both sources)."""
        view = self.log()
        return sum(len(view.latest(source)) for source in SOURCES)

    def progress_words(self) -> str:
        """"Ann: 34 of 120 assigned texts coded." — or, without a draw, how many they coded."""
        if not self.on:
            return ""
        team, view = self.team, self.log()
        coder = team.active
        if team.assignment is None:
            coded = self.coded_by_active()
            return f"{coder}: {coded:,} text{'s' if coded != 1 else ''} coded. Each coder codes texts no one has coded yet."
        mine = team.assignment.for_coder(coder)
        coded = {source: view.latest(source) for source in SOURCES}
        done = sum(1 for text in mine if text.row in coded[text.source])
        words = f"{coder}: {done:,} of {len(mine):,} assigned texts coded."
        second = sum(1 for text in mine if text.source == SECOND_FILE and text.row not in coded[SECOND_FILE])
        if second and done < len(mine):
            words += f" {second:,} of them come from the second file: choose its texts under “Texts”."
        return words


def coders_with_codings(log) -> dict[str, int]:  # noqa: ANN001 — a CodingLog
    """Coder → how many entries they made (a second coder's record left out)."""
    found: dict[str, int] = {}
    for entry in log.entries:
        if entry.chosen_by != SECOND_CODER:
            found[entry.coder] = found.get(entry.coder, 0) + 1
    return found
