"""The offline verifier's analysed-source cache: bounded by bytes, filled for many cases in one batched pass."""

from __future__ import annotations

import pytest

from citefix.errors import ConfigError
from citefix.models import Case, Source, Unit
from citefix.verify.offline import OfflineVerifier, _cache_budget, prefetch
from citefix.verify.offline_sources import CACHE_ENV

ARTICLES = [
    "The council approved a plan on Monday to turn the old depot into a park. Work will begin next spring.",
    "Sale Sharks have signed the South Africa number eight from Cardiff Blues. He joins at the end of the season.",
    "The museum reopened after a two-year refit. Visitor numbers rose by a third in the first month.",
    "Police said the road was closed for six hours after the crash. Nobody was seriously hurt.",
]


def _cases() -> list[Case]:
    return [Case(id=f"c{k}", sources=[Source(id="1", text=t)], text=t.split(". ")[0] + ".", kind="summary")
            for k, t in enumerate(ARTICLES)]


def _unit(case: Case) -> list[Unit]:
    return [Unit(id="u1", text=case.text, kind="sentence", decomposer="whole", start=0, end=len(case.text))]


@pytest.fixture(scope="module")
def verifier():
    return OfflineVerifier()


def test_prefetched_cases_score_as_when_checked_one_by_one(verifier):
    cases = _cases()
    alone = [verifier.verify(_unit(c), c)[0].score for c in cases]
    fresh = OfflineVerifier(encoder=verifier.encoder, nlp=verifier.nlp)
    assert prefetch([fresh], cases) == [0]
    assert len(fresh._cache) == len(cases)  # every source analysed in the one pass
    together = [fresh.verify(_unit(c), c)[0].score for c in cases]
    assert len(fresh._cache) == len(cases)  # and none analysed again
    assert together == pytest.approx(alone, abs=1e-5)


def test_cache_stays_within_its_byte_budget(verifier):
    cases = _cases()
    one = OfflineVerifier(encoder=verifier.encoder, nlp=verifier.nlp, cache_bytes=10**9)
    one.verify(_unit(cases[0]), cases[0])
    size = one._cached_bytes
    assert size > 0
    small = OfflineVerifier(encoder=verifier.encoder, nlp=verifier.nlp, cache_bytes=int(size * 1.5))
    for c in cases:
        small.verify(_unit(c), c)
        assert small._cached_bytes <= int(size * 1.5) * 1.6  # the entry in use is kept even when it alone is large
    assert len(small._cache) < len(cases)  # older entries went
    assert small._cached_bytes == sum(s.nbytes() for s in small._cache.values())


def test_cache_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv(CACHE_ENV, "64")
    assert _cache_budget() == 64 * 2**20
    monkeypatch.setenv(CACHE_ENV, "lots")
    with pytest.raises(ConfigError, match=CACHE_ENV):
        _cache_budget()
