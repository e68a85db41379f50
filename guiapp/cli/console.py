"""What the command line's commands share: a progress line on stderr, stopping with a message,
and text that reaches the terminal with its control characters escaped (``safe``): a NUL or an
escape sequence in a file, sheet or column name is shown, never sent to the terminal raw."""

from __future__ import annotations

import sys


def safe(text: str) -> str:
    """``text`` for the terminal: line breaks and tabs kept, other control characters escaped."""
    from guiapp.core.study.printable import printable

    return printable(text, keep="\n\t")


def log_printer(progress: "ProgressPrinter", quiet: bool = False):  # noqa: ANN201 — an event callback
    """The callback a long command gives the engine: log lines on stderr (unless ``quiet``, which
    keeps only warnings and errors), everything else to the progress line."""
    from guiapp.core.events import Log

    def on_event(event) -> None:  # noqa: ANN001 — an engine event
        if isinstance(event, Log) and event.level == "info" and not quiet:
            progress.clear()
            print(safe(event.message), file=sys.stderr)
        else:
            progress(event)

    return on_event


def stopped(progress: "ProgressPrinter", message: str, status: int) -> int:
    """Clear the progress line, say why on stderr, and give the exit status."""
    progress.clear()
    print(safe(message.strip()), file=sys.stderr)
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
            print(safe(event.message), file=sys.stderr)
        elif isinstance(event, Progress) and self.active:
            percent = f"{event.fraction:4.0%} " if event.fraction is not None else ""
            line = f"\r{percent}{safe(event.message)}"[:100]
            if line != self._last:
                sys.stderr.write(line.ljust(len(self._last)))
                sys.stderr.flush()
                self._last = line

    def clear(self) -> None:
        if self.active and self._last:
            sys.stderr.write("\r" + " " * len(self._last) + "\r")
            sys.stderr.flush()
            self._last = ""
