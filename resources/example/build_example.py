"""Rebuilds resources/example/us_congress_bills.xlsx from the RTextTools copy of the data.

Run from the project root:  python resources/example/build_example.py ../shared/data/cap_uscongress_bills/USCongress.csv.gz
Kept for provenance: it shows exactly how the shipped example was derived (nothing but readable
column names, the chamber spelled out and the topic code's name added from the codebook).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

# Major topic codes of the Congressional Bills Project / Policy Agendas Project codebook
# (the pre-2014 version used for the 107th Congress; 9 and 11 were not in use).
MAJOR_TOPICS = {
    1: "Macroeconomics",
    2: "Civil rights, minority issues and civil liberties",
    3: "Health",
    4: "Agriculture",
    5: "Labour, employment and immigration",
    6: "Education",
    7: "Environment",
    8: "Energy",
    10: "Transportation",
    12: "Law, crime and family issues",
    13: "Social welfare",
    14: "Community development and housing",
    15: "Banking, finance and domestic commerce",
    16: "Defence",
    17: "Space, science, technology and communications",
    18: "Foreign trade",
    19: "International affairs and foreign aid",
    20: "Government operations",
    21: "Public lands and water management",
    99: "Other, miscellaneous",
}

ABOUT = [
    ("What", "Titles of bills introduced in the 107th US Congress (2001–2002), each coded by hand with its major policy topic."),
    ("Rows", "4,449 bills; column 'Topic' is the human coding, 'Title' the text."),
    ("Source", "Congressional Bills Project, E. Scott Adler and John D. Wilkerson (www.congressionalbills.org), as distributed in the R package RTextTools (data set USCongress), GPL-3."),
    ("Cite", "Adler, E. Scott and John Wilkerson. Congressional Bills Project: 2001-2002. NSF 00880066 and 00880061."),
    ("Changes", "Columns renamed, chamber spelled out, topic names added from the Policy Agendas codebook; texts and codes unchanged."),
]


def build(source: Path, target: Path) -> None:
    raw = pd.read_csv(source, sep=";", dtype={"text": str})
    bills = pd.DataFrame(
        {
            "Bill ID": raw["ID"],
            "Congress": raw["cong"],
            "Bill number": raw["h_or_sen"] + " " + raw["billnum"].astype(str),
            "Chamber": raw["h_or_sen"].map({"HR": "House", "S": "Senate"}),
            "Topic code": raw["major"],
            "Topic": raw["major"].map(MAJOR_TOPICS),
            "Title": raw["text"],
        }
    )
    assert bills["Topic"].notna().all(), "a topic code is missing from MAJOR_TOPICS"
    codebook = pd.DataFrame({"Topic code": list(MAJOR_TOPICS), "Topic": list(MAJOR_TOPICS.values())})
    about = pd.DataFrame(ABOUT, columns=["Field", "Value"])
    with pd.ExcelWriter(target, engine="xlsxwriter") as writer:
        bills.to_excel(writer, sheet_name="Bills", index=False)
        codebook.to_excel(writer, sheet_name="Topic codebook", index=False)
        about.to_excel(writer, sheet_name="About", index=False)
        writer.sheets["Bills"].set_column("G:G", 90)
        writer.sheets["Bills"].set_column("F:F", 40)
        writer.sheets["About"].set_column("B:B", 120)


if __name__ == "__main__":
    build(Path(sys.argv[1]), Path(__file__).with_name("us_congress_bills.xlsx"))
