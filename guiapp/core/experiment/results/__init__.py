"""What a study found, as plain data: ``ExperimentResult`` and its parts, the files of a results folder and
their manifest, where trained models are kept, and a model's setting in words."""
