"""How each model family is run in a study beyond the conventional grid search: fine-tuned Transformers
(setting choice, seeds, decisions, fine-tuning here or on a cluster), the models that need few or no coded
texts, one classifier per category, the conventional models' files, SVM kernels and decision thresholds."""
