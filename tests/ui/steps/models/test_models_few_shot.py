"""The Models step's "Few or no coded texts" group: zero-shot (similarity, NLI) and SetFit, the
categories' descriptions from the codebook and their editor, and the study file's round trip."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import DEFAULT_MODELS, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.ui.steps.models.models_page import ModelsPage
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.models.category_descriptions import merged_descriptions
from tests.ui.helpers import save_screenshot
from tests.ui.sample_reports import categories, ready_report

DATA = DataSpec("/data/speeches.xlsx", "Speeches", "", ColumnMapping(["Text"], "Topic"))
TOPICS = [("Economy", 120), ("Health", 90), ("Law, Crime, and Family Issues", 60), ("Defense", 30)]
CODEBOOK = Codebook([
    CodebookCategory("Health", "Hospitals, doctors, medicines and health insurance.", ["More nurses now."]),
    CodebookCategory("Economy", "Taxes, prices, jobs and the state budget."),
    CodebookCategory("Defense", ""),  # no definition: known by its name
])
SIMILARITY, NLI, SETFIT = ("zero_shot", "similarity"), ("zero_shot", "nli"), ("setfit", "setfit")


def topics_report():
    return ready_report(n_rows=300, n_coded=300, categories=categories(TOPICS))


@pytest.fixture
def session():
    session = StudySession()
    session.set_codebook(CODEBOOK)
    return session


@pytest.fixture
def page(qtbot, session):
    widget = ModelsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1100, 900)
    widget.show()
    widget.set_data(DATA, topics_report())
    return widget


def tick(page, pair):
    box = page.few_shot.checkbox(*pair)
    if not box.isChecked():
        box.click()


def spec_of(page, pair) -> ModelSpec:
    return next(m for m in page.build_spec().models if (m.representation, m.classifier) == pair)


def test_the_group_is_there_and_nothing_in_it_is_ticked(page):
    assert page.checked_models() == list(DEFAULT_MODELS)
    titles = {pair: page.few_shot.checkbox(*pair).text() for pair in (SIMILARITY, NLI, SETFIT)}
    assert titles[SIMILARITY] == "No coded texts needed (zero-shot): similarity to your category descriptions"
    assert titles[NLI] == "No coded texts needed (zero-shot): NLI model"
    assert titles[SETFIT] == "Few coded texts (SetFit)"
    assert not any(page.few_shot.checkbox(*pair).isChecked() for pair in titles)
    for pair in titles:  # every box says what it does when hovered
        assert len(page.few_shot.checkbox(*pair).toolTip()) > 60
    assert page.few_shot.template_edit.text() == "This text is about {}."
    assert "downloaded once" in page.few_shot.findChild(type(page.data_label), "nliNote").text()


def test_ticking_the_boxes_builds_their_models(page, qtbot, tmp_path):
    tick(page, SIMILARITY)
    tick(page, SETFIT)
    assert page.checked_models() == [*DEFAULT_MODELS, SIMILARITY, SETFIT]
    assert page.run_button.text() == "Run 5 models" and page.run_button.isEnabled()
    similarity = spec_of(page, SIMILARITY)
    # the codebook's definitions and example texts, for the categories that have them
    assert similarity.representation_options == {
        "descriptions": {"Health": "Hospitals, doctors, medicines and health insurance.",
                         "Economy": "Taxes, prices, jobs and the state budget."},
        "examples": {"Health": ["More nurses now."]}}
    assert similarity.grid == {}
    setfit = spec_of(page, SETFIT)
    assert setfit.representation_options == {} and setfit.grid == {}
    assert "zero-shot models learn nothing" in page.evaluation_label.plain_text()

    tick(page, NLI)  # an NLI model needs its name: Run says so until it is typed
    assert not page.run_button.isEnabled()
    assert "Type the name of the NLI model" in page.reason_label.text()
    folder = tmp_path / "bart-large-mnli"
    folder.mkdir()
    qtbot.keyClicks(page.few_shot.model_edit, str(folder))
    page.few_shot.template_edit.setText("Dieser Text handelt von {}.")
    assert page.run_button.isEnabled() and page.reason_label.text() == ""
    nli = spec_of(page, NLI)
    assert nli.representation_options == {
        **similarity.representation_options, "model": str(folder), "template": "Dieser Text handelt von {}."}
    for model in page.build_spec().models:
        model.check()  # what the window builds, the engine accepts

    page.few_shot.template_edit.setText("This text is about the category.")
    assert not page.run_button.isEnabled() and "{}" in page.reason_label.text()


def test_an_nli_model_that_is_not_on_this_computer_is_named_before_the_run(page, tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "empty cache"))
    tick(page, NLI)
    page.few_shot.model_edit.setText("someone/nli-model-never-downloaded")
    assert not page.run_button.isEnabled()
    assert "The NLI model someone/nli-model-never-downloaded is not on this computer." == page.reason_label.text()
    row = page.few_shot.nli_download  # the card offers the download instead of a second warning
    assert row.isVisibleTo(page) and row.button.isVisibleTo(page) and "not on this computer yet" in row.label.text()
    assert "Download it once" in page.few_shot.nli_problem.text() and not page.few_shot.nli_problem.isVisibleTo(page)
    page.few_shot.model_edit.setText(str(tmp_path / "no such folder"))
    assert f"There is no folder {tmp_path / 'no such folder'}" in page.reason_label.text()
    assert page.few_shot.nli_problem.isVisibleTo(page) and not row.isVisibleTo(page)  # a folder: nothing to download
    page.few_shot.checkbox(*NLI).click()  # unticked: its settings stop mattering
    assert page.run_button.isEnabled() and not page.few_shot.nli_problem.isVisible()


def test_a_named_nli_model_is_downloaded_with_consent_then_the_study_can_run(page, qtbot, monkeypatch):
    from guiapp.core.events import Progress
    from guiapp.core.models.transformers.sources import resolve as model_sources

    downloaded: list[str] = []
    name = "facebook/bart-large-mnli"
    monkeypatch.setattr(model_sources, "needs_download", lambda source, cache_dir=None: source == name
                        and source not in downloaded)

    def fake_download(source, on_event):
        on_event(Progress(0.5, "800 of 1,600 MB"))
        downloaded.append(source)
        return "/models/bart-large-mnli"

    monkeypatch.setattr(model_sources, "download_model", fake_download)
    tick(page, NLI)
    page.few_shot.model_edit.setText(name)
    assert not page.run_button.isEnabled()
    row = page.few_shot.nli_download
    row.button.click()
    qtbot.waitUntil(lambda: "downloaded and ready" in row.label.text(), timeout=30_000)
    qtbot.waitUntil(lambda: not row.is_busy())
    assert downloaded == [name] and not row.button.isVisibleTo(page)
    qtbot.waitUntil(lambda: page.run_button.isEnabled())
    assert page.reason_label.text() == "" and not page.few_shot.nli_problem.isVisibleTo(page)


def test_the_estimate_shows_for_the_new_models(page):
    before = page.estimate_label.text()
    for pair in (SIMILARITY, SETFIT):
        assert page.few_shot.estimate(pair).endswith("on this computer")  # shown before it is ticked, too
        tick(page, pair)
        label = page.few_shot.findChild(type(page.data_label), f"estimate_{pair[0]}_{pair[1]}")
        assert "Expected time" in label.toolTip()
    assert page.estimate_label.text().startswith("All 5 models:")
    assert page.estimate_label.text() != before  # SetFit's fine-tuning counts in the whole run


def test_the_descriptions_editor_starts_from_the_codebook_and_writes_into_the_study(page, qtbot):
    tick(page, SIMILARITY)
    summary = page.few_shot.descriptions_label.text()
    assert "2 of 4 categories described (from your codebook)" in summary
    assert "example texts of 1 category are read with the descriptions" in summary
    dialog = page.few_shot.open_descriptions()
    qtbot.waitUntil(dialog.isVisible)
    # codebook order first, then the other categories of the data
    assert list(dialog.fields) == ["Health", "Economy", "Defense", "Law, Crime, and Family Issues"]
    assert dialog.fields["Health"].text() == "Hospitals, doctors, medicines and health insurance."
    assert dialog.fields["Defense"].text() == ""
    assert "This text is about Defense." in dialog.fields["Defense"].placeholderText()
    assert dialog.codebook_button.isVisible()

    dialog.fields["Defense"].setText("The army, weapons and   military spending.")
    dialog.fields["Health"].clear()  # emptied on purpose: known by its name from now on
    dialog.accept()
    assert spec_of(page, SIMILARITY).representation_options["descriptions"] == {
        "Economy": "Taxes, prices, jobs and the state budget.",
        "Defense": "The army, weapons and military spending."}
    assert "2 of 4 categories described (1 from your codebook)" in page.few_shot.descriptions_label.text()

    dialog = page.few_shot.open_descriptions()  # the codebook's definitions can be had back
    assert dialog.fields["Health"].text() == ""
    dialog.codebook_button.click()
    assert dialog.fields["Health"].text().startswith("Hospitals")
    dialog.reject()  # Cancel keeps what was there
    assert "Health" not in spec_of(page, SIMILARITY).representation_options["descriptions"]


def test_a_codebook_edited_later_fills_the_descriptions_not_written_here(page, session):
    tick(page, SIMILARITY)
    page.few_shot.set_descriptions({"Economy": "Money."})
    session.edit_codebook(Codebook([*CODEBOOK.categories, CodebookCategory("Defense", "Armies.")]))
    assert spec_of(page, SIMILARITY).representation_options["descriptions"] == {
        "Health": "Hospitals, doctors, medicines and health insurance.", "Economy": "Money.", "Defense": "Armies."}


def test_the_study_round_trips_through_load_spec_and_the_study_file(page, qtbot, tmp_path):
    tick(page, SIMILARITY)
    tick(page, NLI)
    tick(page, SETFIT)
    page.few_shot.model_edit.setText(str(tmp_path / "nli-deberta"))
    page.few_shot.template_edit.setText("Es geht um {}.")
    page.few_shot.set_descriptions({"Law, Crime, and Family Issues": "Courts, police and families."})
    spec = page.build_spec()
    assert ExperimentSpec.from_toml(spec.to_toml()).to_dict() == spec.to_dict()

    other = ModelsPage()  # no codebook here: the study's sentences are all it knows
    qtbot.addWidget(other)
    other.set_data(DATA, topics_report())
    other.load_spec(ExperimentSpec.from_toml(spec.to_toml()))
    assert other.checked_models() == [*DEFAULT_MODELS, SIMILARITY, NLI, SETFIT]
    assert other.build_spec().to_dict() == spec.to_dict()
    assert other.few_shot.model_edit.text() == str(tmp_path / "nli-deberta")
    assert other.few_shot.template_edit.text() == "Es geht um {}."
    assert other.load_notes == ""


def test_a_hand_written_study_keeps_what_the_step_does_not_show(page):
    spec = ExperimentSpec(data=DATA, name="few", models=[
        ModelSpec("setfit", "setfit", {"max_length": 64}, {"epochs": [1, 2]}),
        ModelSpec("zero_shot", "similarity", {"temperature": 0.1, "descriptions": {"Health": "Doctors."},
                                              "examples": {"Health": ["Old."], "Defense": ["Tanks."]}}),
    ])
    page.load_spec(spec)
    assert page.checked_models() == [SIMILARITY, SETFIT]
    built = {(m.representation, m.classifier): m for m in page.build_spec().models}
    assert built[SETFIT].representation_options == {"max_length": 64} and built[SETFIT].grid == {"epochs": [1, 2]}
    # the study's sentence wins; the codebook describes the categories the study left out, and its
    # example texts replace the study's where it has some
    assert built[SIMILARITY].representation_options == {
        "temperature": 0.1,
        "descriptions": {"Health": "Doctors.", "Economy": "Taxes, prices, jobs and the state budget."},
        "examples": {"Health": ["More nurses now."], "Defense": ["Tanks."]}}


def test_merged_descriptions_keep_a_written_empty_sentence_empty():
    assert merged_descriptions(["a", "b", "c"], {"a": "", "b": " B  text "}, {"a": "A", "c": "C"}) == {
        "b": "B text", "c": "C"}
    assert merged_descriptions([], {"x": "X"}, {"y": "Y"}) == {"y": "Y", "x": "X"}


def test_screenshots_of_the_few_shot_group_and_the_descriptions_editor(page, qtbot):
    page.resize(1280, 1000)
    tick(page, SIMILARITY)
    tick(page, NLI)
    qtbot.keyClicks(page.few_shot.model_edit, "facebook/bart-large-mnli")
    page.scroll.ensureWidgetVisible(page.few_shot, 0, 0)
    page.scroll.verticalScrollBar().setValue(page.scroll.verticalScrollBar().maximum())
    qtbot.wait(30)
    save_screenshot(page, "17_models_few_or_no_coded_texts")
    dialog = page.few_shot.open_descriptions()
    qtbot.waitUntil(dialog.isVisible)
    qtbot.wait(30)
    save_screenshot(dialog, "18_category_descriptions")
    qtbot.mouseClick(dialog.codebook_button, Qt.MouseButton.LeftButton)
    dialog.reject()


def test_numeric_category_names_without_descriptions_are_said_to_need_them(qtbot):
    widget = ModelsPage(session=StudySession())
    qtbot.addWidget(widget)
    widget.resize(1100, 900)
    widget.show()
    widget.set_data(DATA, ready_report(n_rows=300, n_coded=300, categories=categories([("1", 150), ("12", 150)])))
    tick(widget, SIMILARITY)
    summary = widget.few_shot.descriptions_label.text()
    assert "“1” and “12” have no description" in summary
    assert "carry no meaning to a zero-shot model" in summary and "Describe each in a sentence" in summary
    widget.few_shot.set_descriptions({"1": "Macroeconomics.", "12": "Law and crime."})
    assert "no meaning" not in widget.few_shot.descriptions_label.text()
