"""The command line's one table of commands: every command is offered, and what they share is done
once (a problem with the input becomes its message and hint with exit status 2, no traceback)."""

from __future__ import annotations

import pytest

from guiapp.cli import entry
from guiapp.core.errors import UserError


def test_every_command_of_the_table_is_offered(capsys) -> None:
    with pytest.raises(SystemExit):
        entry.main(["--help"])
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("gui", *entry.COMMANDS))


def test_a_commands_user_error_is_its_message_and_status_2(monkeypatch, capsys) -> None:
    def fails(args, progress) -> int:  # noqa: ANN001
        raise UserError("These results do not name the study's table.", "Name it with --table FILE.")

    monkeypatch.setitem(entry.COMMANDS, "agreement", entry.COMMANDS["agreement"]._replace(run=fails))
    assert entry.main(["agreement", "results"]) == 2
    assert capsys.readouterr().err.splitlines() == ["These results do not name the study's table.",
                                                    "Name it with --table FILE."]
