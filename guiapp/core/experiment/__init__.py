"""Running a study: ``run_experiment`` (``runner``) and its units of work — the shared protocol
(test texts, cross-validation folds, oversampling), the grid search and its fits, fine-tuned
Transformers (setting choice, several seeds), combined models from out-of-fold probabilities, the
one evaluation on the test texts with its metrics — then the comparisons between models, the
agreement with several coders, the scores per group of texts, the learning curve, the results
(``ExperimentResult``) and their folder, the trained models' files, and the size and time of a
study before it runs. Where the work runs is :mod:`guiapp.core.compute`'s."""
