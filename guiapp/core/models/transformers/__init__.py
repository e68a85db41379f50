"""Fine-tuned Transformers: where a model comes from (sources/) and how it is trained (training/)."""
