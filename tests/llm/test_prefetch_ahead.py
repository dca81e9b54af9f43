"""The sources of the next window of cases are analysed in a background thread while this window's cases are
checked (citefix.verify.ahead); every score stays bit for bit what one thread gives."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_user_error, cli

from citefix.errors import ConfigError
from citefix.models import Case, Source, Unit
from citefix.verify.ahead import AHEAD_ENV, PrefetchAhead, mode
from citefix.verify.offline import PREFETCH_WINDOW, OfflineVerifier

pytestmark = pytest.mark.slow

TOWNS = ["Leeds", "Hull", "York", "Bath", "Derby", "Wells", "Ripon", "Ely", "Truro", "Exeter", "Durham"]


def _cases(n: int) -> list[Case]:
    """n cases; like XSumFaith, some share a document: with one in an earlier window (k = 16, 18, ...) or in the same
    one (k = 19 with 17), so the later window's batch leaves out what is cached already."""
    out = []
    for k in range(n):
        town = TOWNS[k % len(TOWNS)]
        d = k - PREFETCH_WINDOW if k >= PREFETCH_WINDOW and k % 2 == 0 else (k - 2 if k == PREFETCH_WINDOW + 3 else k)
        text = (f"The council in {TOWNS[d % len(TOWNS)]} approved a plan on Monday to turn the old depot into a park. "
                f"Work will begin in {2020 + d} and cost {d + 3} million pounds. Residents had campaigned for {d + 2} "
                "years.")
        summary = f"{town} will turn its depot into a park costing {k + 4} million pounds."
        out.append(Case(id=f"c{k}", sources=[Source(id="1", text=text)], text=summary, kind="summary"))
    return out


def _unit(case: Case) -> list[Unit]:
    return [Unit(id="u1", text=case.text, kind="sentence", decomposer="whole", start=0, end=len(case.text))]


class Counting(OfflineVerifier):
    """The real verifier, counting the texts it analyses (each source should be analysed once)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.analysed: list[str] = []

    def _analyse(self, texts):
        self.analysed.extend(texts)
        return super()._analyse(texts)


class Broken(OfflineVerifier):
    def _analyse(self, texts):
        if any("BROKEN" in t for t in texts):
            raise ConfigError("a source the verifier cannot analyse")
        return super()._analyse(texts)


@pytest.fixture(scope="module")
def models():
    v = OfflineVerifier()
    return {"encoder": v.encoder, "nlp": v.nlp}


def _check(verifier, cases, how: str):
    """The check command's loop: a window analysed before its cases, the next one ahead."""
    ahead = PrefetchAhead([verifier], ahead=how)
    scores = []
    for i, case in enumerate(cases):
        if i % PREFETCH_WINDOW == 0:
            ahead.window(cases[i : i + PREFETCH_WINDOW], cases[i + PREFETCH_WINDOW : i + 2 * PREFETCH_WINDOW])
        v = verifier.verify(_unit(case), case)[0]
        scores.append((v.score, v.label, v.details["alignment"], v.details["similarity"]))
    ahead.close()
    return scores, ahead


def test_windows_analysed_ahead_score_bit_for_bit_as_in_one_thread(models):
    cases = _cases(PREFETCH_WINDOW + 7)
    serial, one = _check(Counting(**models), cases, "never")
    ahead_v = Counting(**models)
    together, two = _check(ahead_v, cases, "always")
    assert one.started == 0 and two.started == 1  # the second window went to the background
    assert together == serial  # exact: the same batches through the encoder
    [tw] = two._twins.values()  # the background analysed through a twin: its own spaCy pipeline and tokenizer
    assert tw.nlp is not ahead_v.nlp and tw.encoder.tokenizer is not ahead_v.encoder.tokenizer
    assert tw.encoder.model is ahead_v.encoder.model
    texts = list(dict.fromkeys(c.sources[0].text for c in cases))
    assert sorted(ahead_v.analysed + tw.analysed) == sorted(texts)  # each distinct source analysed once
    assert len(tw.analysed) == 2 and not tw._cache  # the second window's new sources, moved into the verifier's cache
    assert len(ahead_v._cache) == len(texts)
    assert ahead_v._cached_bytes == sum(s.nbytes() for s in ahead_v._cache.values())


def test_a_failure_in_the_background_is_raised_where_its_window_is_needed(models):
    cases = _cases(PREFETCH_WINDOW + 2)
    cases[-1] = cases[-1].model_copy(update={"sources": [Source(id="1", text="BROKEN source text.")]})
    verifier = Broken(**models)
    ahead = PrefetchAhead([verifier], ahead="always")
    ahead.window(cases[:PREFETCH_WINDOW], cases[PREFETCH_WINDOW:])  # the first window is fine
    for case in cases[:PREFETCH_WINDOW]:
        assert verifier.verify(_unit(case), case)[0].score is not None
    with pytest.raises(ConfigError, match="cannot analyse"):
        ahead.window(cases[PREFETCH_WINDOW:])


def test_the_setting(monkeypatch):
    for raw, want in (("", "never"), ("auto", "auto"), ("1", "always"), ("0", "never"), ("off", "never")):
        monkeypatch.setenv(AHEAD_ENV, raw)
        assert mode() == want
    monkeypatch.setenv(AHEAD_ENV, "sometimes")
    with pytest.raises(ConfigError, match=AHEAD_ENV):
        mode()


def _stable(obj):
    """A check's JSON without what differs between two runs of it (run id, store path, timings)."""
    if isinstance(obj, dict):
        return {k: _stable(v) for k, v in obj.items() if k not in ("run_id", "store", "duration_s", "latency_ms")}
    if isinstance(obj, list):
        return [_stable(x) for x in obj]
    return obj


def test_check_prints_the_same_scores_with_and_without_the_background_window(tmp_path):
    cases = _cases(PREFETCH_WINDOW + 2)
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps({"id": c.id, "sources": [{"id": "1", "text": c.sources[0].text}],
                                          "text": c.text}) for c in cases) + "\n")
    out = {}
    for how in ("0", "1"):
        r = cli("check", str(path), "--json", "--db", str(tmp_path / f"{how}.db"), tmp_path=tmp_path,
                extra_env={AHEAD_ENV: how})
        assert r.returncode == 0, r.stderr
        out[how] = [_stable(json.loads(line)) for line in r.stdout.splitlines()]
    assert len(out["1"]) == len(cases) and out["1"] == out["0"]
    bad = cli("check", str(path), "--json", "--db", str(tmp_path / "x.db"), tmp_path=tmp_path,
              extra_env={AHEAD_ENV: "sometimes"})
    assert_user_error(bad, AHEAD_ENV)
