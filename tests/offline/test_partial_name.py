"""A name some of whose words the sources hold and some not (the judge's `partial_name`): a first name the source
does not give for the surname it names is read as doubt, on real parses and encodings; a name the source gives in full,
or by its surname alone, is not."""

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source
from citefix.verify.judge import vector

# the surname is said far from the sentence the statements align to, so no value in the same slot contradicts them
SOURCE = (
    "The fight was stopped in the second round after the referee saw a cut above the challenger's eye. The state "
    "athletic commission said it would review the decision. The challenger was taken to hospital as a precaution and "
    "later released. Tickets for the rematch go on sale next month, and the arena expects a full house. The promoter "
    "said both camps had agreed to the new date. Commission chairman Bob Bennett declined to comment."
)


def _named(verifier, text):
    case = Case(id="c", sources=[Source(id="1", text=SOURCE)], text=text, kind="summary")
    units = ClauseDecomposer().units(case)
    feats = verifier.features(units, case)
    verdicts = verifier.verify(units, case)
    out = []
    for u, f, v in zip(units, feats, verdicts):
        assert "error" not in f, f
        x = vector(verifier._local_score(f, verifier.params), verifier.findings(f), f)
        if "Bennett" in u.text:
            out.append((u.text, x, v))
    assert out, [u.text for u in units]
    return out


def test_a_first_name_the_source_does_not_give_is_flagged(offline_verifier):
    named = _named(offline_verifier, "Chairman Liam Bennett said the commission would review the decision.")
    # the whole name is not missing (the surname is the source's) and no value contradicts it: the partly found
    # name alone takes the unit to unsupported, said in its reason
    assert all(x["partial_name"] == 1.0 and x["missing_entities"] == 0.0 and x["value_conflict"] == 0.0
               for _, x, _ in named), named
    assert all(v.label == "unsupported" for _, _, v in named), [(t, v.label, v.score) for t, _, v in named]
    assert all("only part of the name 'Liam Bennett'" in v.details["why"] for _, _, v in named), \
        [v.details["why"] for _, _, v in named]


def test_a_name_the_source_gives_in_full_or_by_its_surname_is_not(offline_verifier):
    for text in ("Chairman Bob Bennett said the commission would review the decision.",
                 "Bennett said the commission would review the decision."):
        named = _named(offline_verifier, text)
        assert all(x["partial_name"] == 0.0 for _, x, _ in named), (text, named)
        assert all(v.label != "unsupported" for _, _, v in named), [(t, v.label, v.score) for t, _, v in named]
