"""What a text says of an entity (an apposition, a relative clause) stands where the source speaks of that entity:
its words that the source holds only about someone else count as invented (offline `cap.attribute_misplaced`; real
spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import json

import pytest
from helpers import rules_verifier, units_verdicts

from citefix.decompose.clauses import ClauseDecomposer

# bench/probes/heldout_probes_3.jsonl, article 11 (written for citefix); "teacher" is said of the strikers, never of
# Rosa Delgado, and "maths" nowhere
SOURCE = ("Teachers at 14 secondary schools in the Fenwick district will strike next Wednesday in a dispute over class "
          "sizes, their union said. The Fenwick Teachers' Union said average class sizes had grown from 27 to 31 pupils "
          "over the past five years. Union secretary Rosa Delgado said members had voted 78 percent in favour of action "
          "on a turnout of 64 percent. The district's education board said it could not afford to hire more staff "
          "without cuts elsewhere, blaming a 6 percent fall in funding from the national government. Board chair Michael "
          "Oyelaran said he was 'disappointed' by the decision to strike and urged the union to return to talks.")
INVENTED = "Union secretary Rosa Delgado, a former maths teacher, said 78 percent of members had voted for action."


@pytest.fixture(scope="module")
def decomposer():
    return ClauseDecomposer()


def _attribute(decomposer, verifier, text: str, name: str):
    out = units_verdicts((decomposer, verifier), SOURCE, text)
    return next(v for u, v in out.items() if u.startswith(name) and " was " in u)


def test_an_attribute_taken_from_another_persons_sentence_is_unsupported(decomposer):
    v = _attribute(decomposer, rules_verifier(), INVENTED, "Union secretary Rosa Delgado")
    assert v.label == "unsupported", v.details
    assert "teacher" in v.details["misplaced"] and "maths" in v.details["invented"]


def test_the_attribute_where_the_source_gives_it_is_supported(decomposer):
    v = _attribute(decomposer, rules_verifier(),
                   "Board chair Michael Oyelaran, who was disappointed by the decision to strike, urged the union to "
                   "return to talks.", "Board chair Michael Oyelaran")
    assert v.label == "supported", v.details


def test_without_the_switch_misplaced_words_do_not_cap(decomposer, monkeypatch, tmp_path):
    overlay = tmp_path / "p.json"
    overlay.write_text(json.dumps({"cap": {"attribute_misplaced": False}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(overlay))
    v = _attribute(decomposer, rules_verifier(), INVENTED, "Union secretary Rosa Delgado")
    assert v.label == "supported", v.details  # one invented word of three: a paraphrase, by the cap's own rule
