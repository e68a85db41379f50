"""Codebook versions: a version only on change, what changed per category, the re-check list, and
the round trip through a project's dict."""

from __future__ import annotations

import json

import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codebook_versions import CodebookHistory
from guiapp.core.coding.coding_record import UnreadableCodings
from guiapp.core.errors import UserError


def book(**definitions: str) -> Codebook:
    return Codebook([CodebookCategory(name, definition, [f"an example of {name}"])
                     for name, definition in definitions.items()])


FIRST = book(support="backs the policy", oppose="rejects the policy", neutral="neither", other="off topic")


def history() -> CodebookHistory:
    return CodebookHistory(FIRST, "Pilot codebook", date="2026-03-01")


def test_a_version_is_added_only_when_a_category_changed() -> None:
    h = history()
    assert h.revise(book(support="backs the policy", oppose="rejects the policy", neutral="neither",
                         other="off topic"), "nothing") is None
    reordered = Codebook(list(reversed(FIRST.categories)))
    assert h.revise(reordered, "order only") is None
    assert len(h.versions) == 1
    edited = book(support="backs the policy, also in part", oppose="rejects the policy", neutral="neither",
                  other="off topic")
    version = h.revise(edited, "support includes partial backing", date="2026-03-08")
    assert version.number == 2 and h.current is version and version.date == "2026-03-08"
    assert [(c.category, c.kind) for c in version.changes] == [("support", "definition edited")]
    assert version.summary() == ("Version 2 (2026-03-08): support includes partial backing — "
                                 "“support”: definition edited.")
    edited.categories[0].definition = "changed after the revision"
    assert h.current.codebook.categories[0].definition == "backs the policy, also in part"  # copied


def test_added_removed_merged_and_split_categories_are_named() -> None:
    h = history()
    new = book(support="backs the policy", oppose="rejects the policy", neutral="neither",
               sarcasm="mocks", irony="says the opposite")
    new.categories[0].examples.append("a second example")
    version = h.revise(new, "irony split off", split={"other": ["sarcasm", "irony"]})
    kinds = {(c.category, c.kind, c.others) for c in version.changes}
    assert kinds == {("support", "examples edited", ()), ("other", "split into", ("sarcasm", "irony")),
                     ("sarcasm", "split from", ("other",)), ("irony", "split from", ("other",))}
    merged = h.revise(book(support="backs the policy", against="rejects it", neutral="neither",
                           sarcasm="mocks", irony="says the opposite", local="about the town"),
                      "oppose renamed", merged={"oppose": "against"})
    assert {(c.category, c.kind, c.others) for c in merged.changes} == {
        ("oppose", "merged into", ("against",)), ("against", "added", ()), ("local", "added", ()),
        ("support", "examples edited", ())}  # its second example is gone again
    dropped = h.revise(book(support="backs the policy", against="rejects it", neutral="neither",
                            sarcasm="mocks", irony="says the opposite"), "local dropped")
    assert [(c.category, c.kind) for c in dropped.changes] == [("local", "removed")]


def test_changed_since_and_the_codings_to_recheck() -> None:
    h = history()
    h.revise(book(support="backs the policy, also in part", oppose="rejects the policy", neutral="neither",
                  other="off topic"), "v2")
    h.revise(book(support="backs the policy, also in part", oppose="rejects the policy", neutral="neither",
                  sarcasm="mocks", irony="says the opposite"), "v3", split={"other": ["sarcasm", "irony"]})
    assert [c.version for c in h.changed_since(1, "support")] == [2]
    assert h.changed_since(2, "support") == ()
    assert h.changed_since(1, "oppose") == ()
    codings = [(10, "support", 1), (11, "support", 2), (12, "oppose", 1), (13, "other", 2),
               (14, None, 1), (15, "sarcasm", 3), (16, "other", 1)]
    recheck = h.to_recheck(codings)
    assert [(r.row, r.version) for r in recheck] == [(10, 1), (13, 2), (16, 1)]
    assert [c.kind for c in recheck[1].changes] == ["split into"]
    examples_only = book(support="backs the policy, also in part", oppose="rejects the policy", neutral="neither",
                         sarcasm="mocks", irony="says the opposite")
    examples_only.categories[1].examples = ["a new example"]
    assert h.revise(examples_only, "new example") is not None
    assert h.to_recheck([(12, "oppose", 3)]) == []  # new examples alone ask for no re-check
    with pytest.raises(UserError, match="no version 9"):
        h.to_recheck([(1, "support", 9)])


def test_a_category_split_that_keeps_its_name_is_rechecked() -> None:
    h = history()
    version = h.revise(book(support="backs the policy", oppose="rejects the policy", neutral="neither",
                            other="off topic", irony="says the opposite"), "irony", split={"other": ["other", "irony"]})
    assert {(c.category, c.kind, c.others) for c in version.changes} == {
        ("other", "split into", ("irony",)), ("irony", "split from", ("other",))}
    assert [r.row for r in h.to_recheck([(1, "other", 1), (2, "other", 2), (3, "neutral", 1)])] == [1]


def test_merges_and_splits_that_do_not_fit_are_refused_in_words() -> None:
    h = history()
    same = book(support="backs the policy", oppose="rejects the policy", neutral="neither")
    with pytest.raises(UserError, match="“nonsense” cannot be merged: the codebook had no such category"):
        h.revise(same, "x", merged={"nonsense": "support"})
    with pytest.raises(UserError, match="merged into “gone”, which is not in the codebook"):
        h.revise(same, "x", merged={"other": "gone"})
    with pytest.raises(UserError, match="still in the codebook"):
        h.revise(same, "x", merged={"neutral": "support"})
    with pytest.raises(UserError, match="two or more different categories"):
        h.revise(same, "x", split={"other": ["support"]})
    with pytest.raises(UserError, match="split from “other” but was in the codebook before"):
        h.revise(same, "x", split={"other": ["support", "oppose"]})
    assert len(h.versions) == 1  # nothing was added by the refused revisions


def test_round_trip_and_damaged_dicts_refused_in_words() -> None:
    h = history()
    h.revise(book(support="backs it", oppose="rejects the policy", neutral="neither", sarcasm="mocks"),
             "sarcasm", merged={"other": "sarcasm"}, date="2026-03-09")
    data = json.loads(json.dumps(h.to_dict()))
    back = CodebookHistory.from_dict(data)
    assert back.to_dict() == h.to_dict() and back.versions == h.versions

    def damaged(change) -> dict:
        copy = json.loads(json.dumps(h.to_dict()))
        change(copy)
        return copy

    for change, words in (
        (lambda d: d["versions"][1].update(number=5), "not numbered 1, 2, 3"),
        (lambda d: d["versions"][0].update(date="last week"), "version 1 has no date"),
        (lambda d: d["versions"][1]["changes"][0].update(kind="renamed"), "unknown kind"),
        (lambda d: d["versions"][1]["codebook"]["categories"].append({"name": "support"}),
         "codebook of version 2 cannot be read .*twice"),
        (lambda d: d.update(versions=[]), "no version"),
        (lambda d: d["versions"][0].update(note=7), "note of version 1 is not a text"),
    ):
        with pytest.raises(UnreadableCodings, match=words) as error:
            CodebookHistory.from_dict(damaged(change))
        assert error.value.message.startswith("The codebook's versions cannot be read")
    with pytest.raises(UserError, match="newer TextLab"):
        CodebookHistory.from_dict(damaged(lambda d: d.update(version=99)))
