"""A verdict kept from an earlier round is the verdict a fresh check gives: the offline verifier's verdict of a unit
reads the sentence that holds it (whether that sentence stands in a source) and the words the decomposer marked as
its own, so the verdict cache keys a verdict by both, on real parses and encodings."""

import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source, Unit
from citefix.revision.incremental import CachingVerifier
from citefix.verify.offline import OfflineVerifier

SOURCE = ("Dayna Dobias was born with cerebral palsy. She hopes to inspire others with her enthusiastic videos. "
          "The teenager says her motivation was to counteract stereotypes about disabilities.")
# the sentence split joins a quote that opens with a backtick to the sentence before it: with the middle sentence
# gone, "Dayna Dobias was born with cerebral palsy" is cut from another sentence of the text, no longer a copy of one
# source sentence
FIRST = ("Dayna Dobias was born with cerebral palsy. She hopes to inspire others with her enthusiastic videos. "
         "`I've gotten bullied because of it,' she said.")
SECOND = "Dayna Dobias was born with cerebral palsy. `I've gotten bullied because of it,' she said."


def _case(text):
    return Case(id="c", sources=[Source(id="doc", text=SOURCE)], text=text, kind="summary")


def test_a_unit_whose_sentence_changed_is_judged_again(offline_verifier):
    dec = ClauseDecomposer()
    cached = CachingVerifier(OfflineVerifier())
    first = cached.verify(dec.units(_case(FIRST)), _case(FIRST))
    born = next(v for u, v in zip(dec.units(_case(FIRST)), first) if u.text == "Dayna Dobias was born with cerebral palsy")
    assert born.details["stands_in_source"] is True  # a copy of a source sentence, in the first text

    units = dec.units(_case(SECOND))
    kept = cached.verify(units, _case(SECOND))
    fresh = offline_verifier.verify(units, _case(SECOND))
    assert "Dayna Dobias was born with cerebral palsy" in [u.text for u in units]
    assert [v.details["stands_in_source"] for v in fresh] == [False] * len(units)
    for u, k, f in zip(units, kept, fresh):
        assert not k.details.get("reused"), u.text  # its sentence is another one now
        assert k.label == f.label
        assert k.details["p_unsupported"] == pytest.approx(f.details["p_unsupported"], abs=2e-4)


def test_a_unit_in_an_unchanged_sentence_is_still_reused(offline_verifier):
    dec = ClauseDecomposer()
    cached = CachingVerifier(OfflineVerifier())
    cached.verify(dec.units(_case(FIRST)), _case(FIRST))
    edited = FIRST.replace("enthusiastic videos", "cheerful videos")
    units = dec.units(_case(edited))
    kept = cached.verify(units, _case(edited))
    fresh = offline_verifier.verify(units, _case(edited))
    reused = [u.text for u, k in zip(units, kept) if k.details.get("reused")]
    assert "Dayna Dobias was born with cerebral palsy" in reused
    assert not any("cheerful" in t for t in reused)
    for k, f in zip(kept, fresh):
        assert k.label == f.label
        assert k.details["p_unsupported"] == pytest.approx(f.details["p_unsupported"], abs=2e-4)


def test_the_same_words_scored_on_other_words_of_their_own_are_another_key():
    """A detail's unit carries its clause as context and is scored on the detail's words alone; the same text cut as
    a whole clause is scored on all of it."""
    cached = CachingVerifier(OfflineVerifier())
    case = _case("Dayna Dobias was born with cerebral palsy in 2004.")
    text = "Dayna Dobias was born with cerebral palsy in 2004"
    whole = Unit(id="u1", text=text, kind="clause", decomposer="spacy-clauses", start=0, end=len(text),
                 meta={"role": "clause"})
    detail = whole.model_copy(update={"meta": {"role": "modifier", "focus": [[42, len(text)]]}})
    assert cached.key(whole, case, []) != cached.key(detail, case, [])
    assert cached.key(whole, case, []) == cached.key(whole.model_copy(update={"id": "u7"}), case, [])


def test_a_stores_verdicts_from_another_release_are_judged_again(tmp_path, monkeypatch):
    """A verdict also reads the verifier's code, so a store written by another citefix release keeps its verdicts
    but does not hand them to this one (a real SQLite store)."""
    import citefix.version
    from store import Store

    dec = ClauseDecomposer()
    units = dec.units(_case(FIRST))
    store = Store(tmp_path / "s.db")
    try:
        CachingVerifier(OfflineVerifier(), store=store, memory=False).verify(units, _case(FIRST))
        again = CachingVerifier(OfflineVerifier(), store=store, memory=False)
        assert all(v.details.get("reused") for v in again.verify(units, _case(FIRST)))
        monkeypatch.setattr(citefix.version, "__version__", "0.0.0-older")
        other = CachingVerifier(OfflineVerifier(), store=store, memory=False)
        assert not any(v.details.get("reused") for v in other.verify(units, _case(FIRST)))
    finally:
        store.close()
