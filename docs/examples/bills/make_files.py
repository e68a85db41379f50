"""Rebuilds train.csv and test.csv of this example from TextLab's bundled example workbook.

Four policy topics of US Congress bill titles (Comparative Agendas Project coding; see
resources/example/README.md for provenance; GPL-3.0 like the example). 600 training and 200
test titles, drawn at random with a fixed seed, each file with the columns text and label.
Run from the project root: ``python docs/examples/bills/make_files.py``.
"""

from pathlib import Path

from sklearn.model_selection import train_test_split

from guiapp.core.locations import example_path
from guiapp.core.tables.reader import read_table

TOPICS = ["Health", "Foreign trade", "Public lands and water management", "Defence"]

here = Path(__file__).parent
bills = read_table(example_path()).frame
bills = bills[bills["Topic"].isin(TOPICS)].rename(columns={"Title": "text", "Topic": "label"})[["text", "label"]]
train, test = train_test_split(bills, train_size=600, test_size=200, stratify=bills["label"], random_state=2021)
train.to_csv(here / "train.csv", index=False)
test.to_csv(here / "test.csv", index=False)
