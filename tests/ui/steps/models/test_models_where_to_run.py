"""Where to run, chosen on the Models step before the first run: the line "Runs on: …" beside the Run
button, its "Change…" unfolds the same choice as the Run step's (one choice, two views), the
choice reaches the spec handed to the engine, and a wrong address is explained there and starts
nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt

from guiapp.core.study.sections import ClusterSpec
from guiapp.ui.main_window import MODELS_STEP, RUN_STEP
from tests.ui.helpers import save_screenshot, wait_for_report
from tests.ui.steps.run.test_cluster_ui import Capture


def ready(qtbot, window):
    window.open_example()
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    window.steps.setCurrentRow(MODELS_STEP)
    return window.models_page


def test_the_choice_made_on_the_models_step_reaches_the_engine(qtbot, window) -> None:
    page = ready(qtbot, window)
    line = page.where_line
    assert not window.steps.is_step_enabled(RUN_STEP)  # no run yet: the Run step is closed
    assert line.isVisible() and line.label.text() == "this computer"
    assert not line.panel.isVisible()

    qtbot.mouseClick(line.change_button, Qt.MouseButton.LeftButton)
    assert line.panel.isVisible() and line.change_button.text() == "Done"
    line.panel.dask.click()
    line.panel.address.setText("tcp://login1.cluster.example.edu:8786")
    assert line.label.text() == "the Dask scheduler at tcp://login1.cluster.example.edu:8786"
    where = window.run_page.where  # the Run step shows the same choice
    assert where.dask.isChecked() and where.address.text() == "tcp://login1.cluster.example.edu:8786"
    page.resize(1180, 760)
    # the bar's layout follows the longer line (on a busy machine it may take more than one pass)
    qtbot.waitUntil(lambda: line.label.width() >= line.label.sizeHint().width(), timeout=5000)
    save_screenshot(page, "models_where_to_run")
    qtbot.mouseClick(line.change_button, Qt.MouseButton.LeftButton)
    assert not line.panel.isVisible() and line.change_button.text() == "Change…"

    engine = Capture()
    window.run_page.run_fn = engine
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(engine.specs) == 1, timeout=10_000)
    assert engine.specs[0].cluster.scheduler == "tcp://login1.cluster.example.edu:8786"
    assert window.study_spec().cluster.scheduler == ""  # the study itself is not changed
    qtbot.waitUntil(lambda: not window.run_page.is_busy(), timeout=20_000)


def test_a_wrong_address_is_explained_on_the_models_step_and_nothing_starts(qtbot, window) -> None:
    page = ready(qtbot, window)
    engine = Capture()
    window.run_page.run_fn = engine
    line = page.where_line
    line.toggle_panel(True)
    line.panel.dask.click()
    line.panel.address.setText("login1 8786")
    line.toggle_panel(False)
    messages = []
    page.statusMessage.connect(messages.append)
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    assert line.panel.isVisible() and line.panel.problem_label.isVisible()  # unfolded again, with the reason
    assert "is not a Dask scheduler address" in line.panel.problem_label.text()
    assert "is not a Dask scheduler address" in messages[-1]
    assert engine.specs == [] and not window.steps.is_step_enabled(RUN_STEP)
    page.resize(1180, 760)
    qtbot.wait(50)
    save_screenshot(page, "models_where_to_run_problem")
    line.panel.address.setText("tcp://login1:8786")
    assert not line.panel.problem_label.isVisible()  # gone once the address is right


def test_a_study_files_scheduler_and_the_run_step_show_on_the_line(qtbot, window) -> None:
    line = window.models_page.where_line
    window.run_page.where.set_cluster(ClusterSpec(scheduler="tcp://head:8786"))
    assert "the Dask scheduler at tcp://head:8786" in line.label.text() and line.panel.dask.isChecked()
    window.run_page.where.here.click()
    assert line.label.text() == "this computer" and line.panel.here.isChecked()
