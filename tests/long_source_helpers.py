"""A long, made-up news source of any length (the same text every time) and a short summary of it, for the tests of
long inputs (tests/ is on sys.path, so `from long_source_helpers import ...`)."""

from __future__ import annotations

import random

SENTENCES = [
    "The council voted on {d} to approve a new {t} near {p}, ending a debate that lasted {n} years.",
    "The {t} will cost {m} million pounds and should open in {y}, according to {who}.",
    "{who} said the {t} near {p} had been delayed by {n} months because of the weather.",
    "Engineers plan to build the {t} in {k} stages so that traffic near {p} is not interrupted.",
]
SUMMARY = "The council approved a new bridge near the river. Anna Lee said it would open in 2027."


def long_source(words: int) -> str:
    rng = random.Random(7)
    out, n = [], 0
    while n < words:
        s = rng.choice(SENTENCES).format(d=rng.choice(["Monday", "Friday"]), t=rng.choice(["bridge", "library", "clinic"]),
                                         p=rng.choice(["the river", "the harbour", "the school"]), n=rng.randint(2, 40),
                                         m=rng.randint(2, 300), y=rng.randint(1990, 2030), k=rng.randint(2, 5),
                                         who=rng.choice(["Anna Lee", "Tom Okafor", "Priya Shah"]))
        out.append(s)
        n += len(s.split())
    return " ".join(out)
