"""Combined models: a weighted vote and stacking built from the compared models' out-of-fold
probabilities, the evidence that they help, and the model a study recommends."""
