"""Model families: conventional classifiers (SVM, XGBoost, logistic regression, naive Bayes) and
fine-tuned Transformers (``transformers``)."""
