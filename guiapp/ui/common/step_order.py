"""The steps of a study, in the order the window lists them."""

from __future__ import annotations

# (title, what the step is for), one per step
STEPS = (
    ("Data", "Open your coded texts, tell TextLab which column is which, and check the data."),
    ("Coding", "Code more texts, TextLab suggesting which, and check the codings the models doubt."),
    ("Models", "Choose the models to compare and how they are tested."),
    ("Run", "Watch the models being tuned and tested."),
    ("Results", "See which model agrees best with your coding, and why."),
    ("Documents", "Read the test texts with every model's answer, find the mistakes, and see which words "
                  "pushed each decision."),
    ("Predict", "Apply a trained model to texts nobody has coded yet and save its answers."),
    ("Findings", "How often each category occurs in the texts a model predicted, or in your whole table, overall "
                 "and per group, with intervals that carry the model's mistakes."),
)
DATA_STEP, CODING_STEP, MODELS_STEP, RUN_STEP, RESULTS_STEP, DOCUMENTS_STEP, PREDICT_STEP, FINDINGS_STEP = \
    range(len(STEPS))


def step_of(ui_state: dict) -> int | None:
    """The step a project was saved on: by its name (projects that recorded only a number were saved
    before the Coding step existed, and are read with the steps of that time)."""
    name = ui_state.get("step_name")
    titles = [title for title, _tip in STEPS]
    if isinstance(name, str) and name in titles:
        return titles.index(name)
    step = ui_state.get("step")
    earlier = ("Data", "Models", "Run", "Results", "Documents", "Predict")
    if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(earlier):
        return titles.index(earlier[step])
    return None
