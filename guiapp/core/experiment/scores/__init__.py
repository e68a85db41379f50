"""How well models agree with the human coding: metrics (one or several categories per text), comparisons
between models with intervals and tests, scores per group of texts and agreement with several coders."""
