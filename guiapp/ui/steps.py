"""The steps of a study, in the order the window lists them."""

from __future__ import annotations

# (title, what the step is for), one per step
STEPS = (
    ("Data", "Open your coded texts, tell TextLab which column is which, and check the data."),
    ("Models", "Choose the models to compare and how they are tested."),
    ("Run", "Watch the models being tuned and tested."),
    ("Results", "See which model agrees best with your coding, and why."),
    ("Documents", "Read the test texts with every model's answer, find the mistakes, and see which words "
                  "pushed each decision."),
    ("Predict", "Apply a trained model to texts nobody has coded yet and save its answers."),
)
DATA_STEP, MODELS_STEP, RUN_STEP, RESULTS_STEP, DOCUMENTS_STEP, PREDICT_STEP = range(len(STEPS))
