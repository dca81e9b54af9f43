"""A unit read in the context of the whole text it was cut from: the judge's context share, on real parses and
encodings, and through the verdict cache (a reused verdict meets the same context as a fresh one)."""

import json
import math

import numpy as np
import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source, Unit
from citefix.verify.judge import Judge, in_context, load_judge

SOURCE = ("The report showed that recorded crime in Scotland fell by 8% last year. Opposition parties had dismissed "
          "the earlier figures. The fall has not reached the areas with the highest crime rates, the report said.")
# the relative clause cut out on its own reads more doubt than the sentence it belongs to
TEXT = ("The report showed that the fall in crime in Scotland, which opposition parties had dismissed as too good to "
        "be true, has not reached the areas with the highest crime rates.")


def _case(text, source=SOURCE):
    return Case(id="c", sources=[Source(id="1", text=source)], text=text, kind="summary")


def _logit(p):
    return math.log(p / (1 - p))


def test_in_context_draws_only_a_more_suspect_unit_toward_its_text():
    assert in_context(3.0, 1.0, 0.25) == pytest.approx(2.5)
    assert in_context(3.0, 1.0, 0.0) == 3.0
    assert in_context(3.0, 1.0, 1.0) == pytest.approx(1.0)
    assert in_context(-1.0, 1.0, 0.5) == -1.0  # less suspect than the whole text: as it is
    out = in_context(np.array([3.0, -1.0, 1.0]), 1.0, 0.5)
    assert out.tolist() == pytest.approx([2.0, -1.0, 1.0])


def test_the_context_share_is_read_from_the_judge_file_and_checked():
    spec = json.loads(json.dumps(load_judge().spec))
    assert 0 < load_judge().context_shrink <= 1
    spec["context"] = {"shrink": 1.5}
    with pytest.raises(ValueError, match="context shrink"):
        Judge(spec)
    spec.pop("context")
    assert Judge(spec).context_shrink == 0.0  # a judge file without it: every unit judged alone


def test_a_fragment_is_read_in_the_context_of_its_text(offline_verifier):
    j = offline_verifier.judge
    case = _case(TEXT)
    units = ClauseDecomposer().units(case)
    verdicts = offline_verifier.verify(units, case)
    ctx = None
    for u, v in zip(units, verdicts):
        d = v.details
        assert {"p_alone", "context_p", "judge_logit"} <= set(d), d
        ctx = _logit(d["context_p"]) if ctx is None else ctx
        # only ever toward supported, and by the judge's share of the difference to the whole text
        assert d["p_unsupported"] <= d["p_alone"] + 1e-4
        whole = (ctx - j.cal_b) / j.cal_a
        assert d["p_unsupported"] == pytest.approx(j.calibrated(in_context(d["judge_logit"], whole, j.context_shrink)),
                                                   abs=2e-3)
        want = ("unsupported" if d["p_unsupported"] >= j.unsupported_at else
                "partial" if d["p_unsupported"] >= j.partial_at else "supported")
        assert v.label == want and v.score == pytest.approx(1 - d["p_unsupported"], abs=1e-3)
        if v.label == "supported":
            assert not v.unsupported_spans and "why" not in d
    fragment = next(v for u, v in zip(units, verdicts) if "too good to be true" in u.text)
    assert fragment.details["p_unsupported"] < fragment.details["p_alone"] - 0.05
    assert fragment.label != "supported" and "why" in fragment.details  # still shown for a look


def test_a_unit_that_is_the_whole_text_is_judged_alone(offline_verifier):
    text = "The fall in crime has not reached the areas with the highest crime rates."
    unit = Unit(id="u1", text=text, kind="sentence", decomposer="sentence", start=0, end=len(text))
    v = offline_verifier.verify([unit], _case(text))[0]
    assert "context_p" not in v.details and "p_unsupported" in v.details


def test_a_reused_verdict_meets_the_same_context_as_a_fresh_one():
    """The verdict cache keeps each unit's verdict judged alone; the context is read afresh on every call, so a unit
    kept from an earlier round gets exactly what a fresh check of the new text gives it."""
    from citefix.revision.incremental import CachingVerifier
    from citefix.verify.offline import OfflineVerifier

    first = TEXT + " Police numbers rose by 400 over the same period."
    second = TEXT + " The report was welcomed by the justice secretary."
    cached = CachingVerifier(OfflineVerifier())
    dec = ClauseDecomposer()
    cached.verify(dec.units(_case(first)), _case(first))
    units = dec.units(_case(second))
    kept = cached.verify(units, _case(second))
    assert 0 < cached.last.reused < len(units)
    fresh = OfflineVerifier().verify(units, _case(second))
    reused = [(k, f) for k, f in zip(kept, fresh) if k.details.get("reused")]
    assert reused
    ctx_first = OfflineVerifier().verify(dec.units(_case(first)), _case(first))[0].details["context_p"]
    assert reused[0][0].details["context_p"] != ctx_first  # the context did change between the two texts
    for k, f in zip(kept, fresh):  # (a fresh check encodes the whole text with the units, in one batch)
        assert k.label == f.label
        assert k.details["p_unsupported"] == pytest.approx(f.details["p_unsupported"], abs=2e-4)
        assert k.details["context_p"] == pytest.approx(f.details["context_p"], abs=2e-4)


def test_the_judge_file_is_part_of_the_verdict_cache_key():
    """Verdicts made by another judge file (weights, calibration, decision points, context share) are not reused,
    though the verifier's parameters are the same."""
    from citefix.revision.incremental import verifier_fingerprint
    from citefix.verify.offline import OfflineVerifier

    spec = json.loads(json.dumps(load_judge().spec))
    spec["context"] = {"shrink": 0.0}
    other = OfflineVerifier()
    other._judge = Judge(spec)
    assert other.params == OfflineVerifier().params
    assert verifier_fingerprint(other) != verifier_fingerprint(OfflineVerifier())
    assert verifier_fingerprint(OfflineVerifier()) == verifier_fingerprint(OfflineVerifier())


def test_a_claim_judged_against_its_citations_alone_is_left_as_it_is(offline_verifier):
    """Whether passage [2] supports a claim is its own question: a unit judged against some of the sources is not
    read against the whole text judged against all of them; one judged against all of them is."""
    case = Case(id="c", sources=[Source(id="1", text=SOURCE), Source(id="2", text="Police numbers rose by 400.")],
                text=TEXT, kind="summary")
    units = ClauseDecomposer().units(case)
    cited = offline_verifier.verify(units, case, targets=[["1"]] * len(units))
    assert all("context_p" not in v.details for v in cited)
    alone = offline_verifier.verify_alone(units, case, targets=[["1"]] * len(units))
    assert [v.details["p_unsupported"] for v in cited] == [v.details["p_unsupported"] for v in alone]
    every = offline_verifier.verify(units, case, targets=[["1", "2"]] * len(units))
    assert all("context_p" in v.details for v in every)
