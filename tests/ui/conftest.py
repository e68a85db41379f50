"""Fixtures for tests that drive the real main window."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import QSettings


@pytest.fixture(autouse=True)
def collected_after_the_test():
    """After each UI test (and after pytest-qt closed its windows): stop the jobs still running, let Qt
    delete what it was asked to, and collect the garbage now — on the main thread, with no background
    job running — rather than at an arbitrary moment of a later test, while that test's jobs run."""
    yield
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    from guiapp.workers import registry

    registry.cancel_all(wait_ms=5000)
    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture(scope="session")
def project(tmp_path_factory):
    """A project with a finished study of two trained models, trained once for every UI test that
    reads it (tests take copies of what they change)."""
    from tests.core.project.helpers import run_project

    return run_project(tmp_path_factory.mktemp("models"))


@pytest.fixture
def isolated_settings(tmp_path, monkeypatch):
    """Keep recent files and folders of tests away from the user's own settings."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    yield tmp_path / "settings"


@pytest.fixture
def window(qtbot, isolated_settings):
    from guiapp.ui.main_window import MainWindow

    win = MainWindow()
    win.files.ask_before_closing = False  # no modal "save the project?" when pytest-qt closes it
    win.run_page.ask_before_large_runs = False  # no modal "start anyway?" before a study with a huge grid
    qtbot.addWidget(win)
    win.resize(1280, 860)
    win.show()
    yield win
    win.data_page.cancel_jobs()
    win.close()


CPU_DEVICE = SimpleNamespace(kind="cpu", name="CPU, 2 threads", bf16=False)


@pytest.fixture(autouse=True)
def instant_device_check(monkeypatch):
    """The Models step looks for a GPU by importing PyTorch (seconds); UI tests get an instant
    answer ("no GPU") unless a test puts the real check back."""
    from guiapp.ui.steps.models import transformer_choice
    monkeypatch.setattr(transformer_choice, "detect_device", lambda on_event=None: CPU_DEVICE)
    yield


@pytest.fixture(autouse=True)
def no_speed_measurement(monkeypatch):
    """The Models step measures this computer's speed in the background; UI tests keep the
    built-in figures (a test that checks the measurement turns it back on)."""
    from guiapp.ui.steps.models.models_page import ModelsPage

    monkeypatch.setattr(ModelsPage, "measure_in_background", False)
    yield


@pytest.fixture(autouse=True)
def quick_model_on_bag_of_words(monkeypatch):
    """The Coding step starts its quick model on sentence embeddings where the bundled model is
    installed, which embeds every text of a table once opened (a minute on two cores); UI tests start
    on the bag of words unless a test puts the real default back."""
    from guiapp.core.coding.quick_model import BAG_OF_WORDS
    from guiapp.ui.steps.coding import coding_bar
    monkeypatch.setattr(coding_bar, "default_kind", lambda: BAG_OF_WORDS)
    yield
