"""Coding texts inside TextLab: the codebook and the record of every coding (who, when, how the text
was chosen and with what probability), which text to code next (random, uncertainty, diversity),
the quick model retrained while the researcher codes, the signal that coding more will change little,
the codings the models doubt, and the agreement of two coders. Plain Python, no Qt."""
