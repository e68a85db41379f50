"""How a Transformer is fine-tuned: settings, the training loop, batches, truncation of long texts."""
