"""The learning curve: how a study's models do with more or fewer coded texts, its nested training subsets,
its fits per family, its files and its reading in plain words."""
