"""Where a Transformer comes from: the short list, the bundled model, MPNet parts, hub downloads, model folders, weight files."""
