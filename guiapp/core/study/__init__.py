"""A study: its file (ExperimentSpec, its sections and their schema, a printable form), the column
mapping and its suggestion, category fixes and their preview, what changed when the table is read
again, the study's texts and test split, and test texts that are also training texts."""
