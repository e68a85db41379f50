"""What the command line's commands share: a progress line on stderr, and stopping with a message."""

from __future__ import annotations

import sys


def stopped(progress: "ProgressPrinter", message: str, status: int) -> int:
    """Clear the progress line, say why on stderr, and give the exit status."""
    progress.clear()
    print(message.strip(), file=sys.stderr)
    return status


class ProgressPrinter:
    """Writes a one-line progress indicator to stderr when it is a terminal."""

    def __init__(self) -> None:
        self.active = sys.stderr.isatty()
        self._last = ""

    def __call__(self, event) -> None:
        from guiapp.core.events import Log, Progress

        if isinstance(event, Log) and event.level != "info":
            self.clear()
            print(event.message, file=sys.stderr)
        elif isinstance(event, Progress) and self.active:
            percent = f"{event.fraction:4.0%} " if event.fraction is not None else ""
            line = f"\r{percent}{event.message}"[:100]
            if line != self._last:
                sys.stderr.write(line.ljust(len(self._last)))
                sys.stderr.flush()
                self._last = line

    def clear(self) -> None:
        if self.active and self._last:
            sys.stderr.write("\r" + " " * len(self._last) + "\r")
            sys.stderr.flush()
            self._last = ""
