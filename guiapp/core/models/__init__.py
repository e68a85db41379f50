"""Model families: conventional classifiers (this issue) and, later, fine-tuned Transformers."""
