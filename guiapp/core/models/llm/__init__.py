"""Codebook language models: a generative language model codes texts with the researcher's
codebook (each category's name, definition and examples, plus an editable instruction), either
inside TextLab or on a language-model server on this computer, and answers with a probability for
each category, so that it is compared on the same held-out texts as every other model."""
