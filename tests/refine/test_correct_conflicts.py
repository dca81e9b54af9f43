"""The offline reviser on a name or number the verifier reads as a value conflict (the evidence sentence has another
value on the same word, while the value itself stands elsewhere in the region): it puts the evidence's value back
instead of deleting the phrase (real spaCy parses, the packaged MiniLM, a real store)."""

from __future__ import annotations

import citefix

SOURCE = ("England beat Wales 2-0 in Cardiff on Saturday. Henderson and Liverpool goalkeeper Simon Mignolet both "
          "played their 47th game of the season in the win over Newcastle United on Monday night. The club said "
          "both would rest this week.")
SWAPPED = ("Henderson and England goalkeeper Simon Mignolet both played their 47th game of the season in the win over "
           "Newcastle United on Monday night.")


def test_a_conflicting_name_is_put_back_not_deleted(tmp_path):
    db = tmp_path / "s.db"
    result = citefix.check(SWAPPED, sources=[SOURCE], db=db)
    structure = [s for u in result.units for s in result.verdict_for(u.id).details["structure"]]
    assert any(s in ("conflict: England", "substitution: England") for s in structure), structure
    report = citefix.refine(SWAPPED, sources=[SOURCE], db=db, rounds=2)
    assert report.best_text == SWAPPED.replace("England", "Liverpool")


def test_a_faithful_text_is_left_as_it_is(tmp_path):
    text = SWAPPED.replace("England", "Liverpool")
    report = citefix.refine(text, sources=[SOURCE], db=tmp_path / "s.db", rounds=2)
    assert report.best_text == text
