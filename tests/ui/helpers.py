"""Helpers for tests that drive the real main window."""

from __future__ import annotations


def wait_for_report(qtbot, window, timeout=60_000):
    """Wait until the Data page shows a health report for the current table."""
    page = window.data_page
    qtbot.waitUntil(lambda: page.report is not None and not page.is_busy(), timeout=timeout)
    return page.report
