"""A study: its file (ExperimentSpec and sections), the column mapping and its suggestion, the study's texts and test split."""
