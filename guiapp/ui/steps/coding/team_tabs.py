"""The Coding step's tabs for a coding team: "Disagreements" (the adjudicator settles the texts the
coders coded differently) and "Team agreement" (how far the coders agree)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QTabWidget

from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.coding.disagreements_view import DisagreementsView
from guiapp.ui.steps.coding.team_agreement_view import TeamAgreementView

TIPS = {
    "Disagreements": "The texts a team's coders coded differently: decide each one's category, and choose what "
                     "counts for the texts no one settled.",
    "Team agreement": "How far a team's coders agree: alpha, each pair's kappa, each coder against the adjudicated "
                      "coding.",
}


def add_team_tabs(tabs: QTabWidget, session: StudySession,
                  say: Callable[[str], None]) -> tuple[DisagreementsView, TeamAgreementView]:
    """Add both tabs to ``tabs``; ``say`` shows their status messages. "Settle them…" on the
    agreement tab opens the Disagreements tab."""
    disagreements = DisagreementsView(session)
    disagreements.statusMessage.connect(say)
    agreement = TeamAgreementView(session)
    agreement.disagreementsWanted.connect(lambda: tabs.setCurrentWidget(disagreements))
    for view, name in ((disagreements, "Disagreements"), (agreement, "Team agreement")):
        tabs.setTabToolTip(tabs.addTab(view, name), TIPS[name])
    return disagreements, agreement
