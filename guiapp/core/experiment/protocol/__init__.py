"""The shared protocol every model family follows: which texts are for testing, the cross-validation folds
and oversampling, the grid search and its fits (one classifier per category, SVM kernels shared across
settings), the units of work any process can run, out-of-fold probabilities and the one evaluation on
the test texts."""
