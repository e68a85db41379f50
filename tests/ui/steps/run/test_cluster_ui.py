"""Running elsewhere from the app: the Run step's "Where to run" choice puts a Dask scheduler's
address in the spec handed to the engine (never in the user's study), a malformed address is
explained and nothing starts; File → Prepare for a cluster… writes the cluster folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from guiapp.core.errors import UserError
from guiapp.core.events import ignore_events
from guiapp.core.study.sections import ClusterSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui.steps.run.run_page import RunPage
from guiapp.ui.common.cluster_folder_dialog import ClusterFolderDialog
from guiapp.workers import ErrorSink
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import sample_result, sample_spec

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "bills"


class Capture:
    """A fake engine: keeps the spec it was handed and returns a finished result."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.specs: list[ExperimentSpec] = []
        self.error = error

    def __call__(self, spec, on_event=ignore_events, **_kwargs):
        self.specs.append(spec)
        if self.error is not None:
            raise self.error
        return sample_result()


def run_page(qtbot, engine) -> RunPage:
    page = RunPage(ErrorSink(None), run_fn=engine)
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    return page


def test_the_chosen_scheduler_goes_into_a_copy_of_the_spec(qtbot) -> None:
    engine = Capture()
    page = run_page(qtbot, engine)
    where = page.where
    assert where.here.isChecked() and not where.address.isEnabled()
    assert "cluster extra" in where.note.text() and where.address.placeholderText() == "tcp://host:8786"

    spec = sample_spec()
    with qtbot.waitSignal(page.resultReady, timeout=20_000):
        assert page.start(spec)
    assert engine.specs[-1].cluster.local  # this computer
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)

    where.dask.click()
    assert where.address.isEnabled()
    where.address.setText("  tcp://login1:8786 ")
    with qtbot.waitSignal(page.resultReady, timeout=20_000):
        assert page.start(spec)
    handed = engine.specs[-1]
    assert handed.cluster.scheduler == "tcp://login1:8786" and handed is not spec
    assert spec.cluster.scheduler == ""  # the user's study is unchanged
    assert handed.models == spec.models and handed.data == spec.data
    assert "on the Dask scheduler at tcp://login1:8786" in page.details_label.plain_text()
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)


def test_a_malformed_address_is_explained_and_nothing_starts(qtbot) -> None:
    engine = Capture()
    page = run_page(qtbot, engine)
    page.where.dask.click()
    messages = []
    page.statusMessage.connect(messages.append)
    for address, words in (("", "Type the Dask scheduler's address"), ("http://x:8786", "is not a Dask scheduler"),
                           ("tcp://host:port", "no valid port"), ("login1 8786", "is not a Dask scheduler")):
        page.where.address.setText(address)
        assert page.start(sample_spec()) is False
        assert words in page.where.problem_label.text() and page.where.problem_label.isVisible()
        assert words in messages[-1]
    assert engine.specs == [] and page.state() == "idle" and not page.is_busy()
    page.where.address.setText("tcp://10.0.0.5:8786")
    assert not page.where.problem_label.isVisible()  # the message goes once the address is right
    page.where.here.click()
    assert not page.where.address.isEnabled()


def test_an_unreachable_scheduler_is_reported_like_other_errors(qtbot) -> None:
    engine = Capture(UserError("Nothing answered at tcp://nowhere:8786.", "Check the address."))
    page = run_page(qtbot, engine)
    page.where.dask.click()
    page.where.address.setText("tcp://nowhere:8786")
    page.start(sample_spec())
    qtbot.waitUntil(lambda: page.state() == "failed", timeout=10_000)
    assert "Nothing answered at tcp://nowhere:8786." in page.banner_text()
    assert page.errors.history[-1].message == "Nothing answered at tcp://nowhere:8786."
    assert page.where.isEnabled()


def test_a_study_files_scheduler_is_preselected(qtbot) -> None:
    page = run_page(qtbot, Capture())
    page.where.set_cluster(ClusterSpec(scheduler="tcp://head:8786"))
    assert page.where.dask.isChecked() and page.where.address.text() == "tcp://head:8786"
    page.where.set_cluster(ClusterSpec())
    assert page.where.here.isChecked()


def test_the_run_step_screenshot(qtbot) -> None:
    page = run_page(qtbot, Capture())
    page.resize(1090, 520)
    page.where.dask.click()
    page.where.address.setText("tcp://login1.cluster.example.edu:8786")
    save_screenshot(page, "cluster_run_step")


def test_the_dialog_writes_the_cluster_folder(qtbot, tmp_path) -> None:
    folder = tmp_path / "bills"
    shutil.copytree(EXAMPLE, folder)
    spec = ExperimentSpec.load(folder / "study.toml")
    spec.data.source = str(folder / spec.data.source)
    spec.data.test_source = str(folder / spec.data.test_source)
    dialog = ClusterFolderDialog(spec, start_folder=tmp_path / "for the cluster")
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.setup.toPlainText() == "source ~/textlab/bin/activate"  # what README's install step makes
    dialog.workers.setValue(5)
    dialog.gpus.setValue(1)
    dialog.queue.setText("gpu")
    dialog.walltime.setText("4 hours")
    dialog.write_button.click()
    assert "is not a time limit SLURM understands" in dialog.status.text() and dialog.worker is None
    save_screenshot(dialog, "cluster_dialog_problem")  # a plain message, nothing written
    dialog.walltime.setText("12:00:00")
    dialog.status.setText("")
    save_screenshot(dialog, "cluster_dialog")
    dialog.write_button.click()
    qtbot.waitUntil(lambda: dialog.written is not None or "color: #c62828" in dialog.status.styleSheet(),
                    timeout=30_000)
    assert dialog.written == (tmp_path / "for the cluster").absolute(), dialog.status.text()
    assert "sbatch run-on-cluster.sbatch" in dialog.status.text()
    written = ExperimentSpec.load(dialog.written / "study.toml")
    assert written.cluster.workers == 5 and written.cluster.gpus_per_worker == 1 and written.cluster.queue == "gpu"
    assert written.cluster.walltime == "12:00:00" and written.cluster.setup == ["source ~/textlab/bin/activate"]
    assert (dialog.written / "test-data.parquet").is_file()
    save_screenshot(dialog, "cluster_dialog_written")
    dialog.worker.wait()


def test_the_file_menu_offers_it_once_a_study_is_ready(qtbot, window) -> None:
    action = window.cluster_folder_action
    assert action in window.menuBar().actions()[0].menu().actions()
    assert not action.isEnabled() and "first" in action.toolTip()
