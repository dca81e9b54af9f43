"""The offline verifier's learned judge: the packaged model, its verdicts on real parses and encodings, and its file."""

import json

import pytest

from citefix.models import Case, Source
from citefix.verify.judge import CHECKS, FEATURES, REGISTRY, SIGNS, Judge, load_judge, vector

EXAMPLE_SOURCE = (
    "The town council of Harwick approved a plan on Monday to turn the disused Millbrook railway depot into a public "
    "park and a community workshop.\n\nThe depot closed in 1987 and has stood empty since. Councillors voted 9 to 4 in "
    "favour of the plan, which will cost £2.4 million. Most of the money will come from a regional regeneration fund, "
    "with the rest raised through the sale of a council-owned car park on Station Road.\n\nCouncil leader Priya "
    "Natarajan said the park would give families in the east of the town their first large green space. \"People have "
    "been asking for this for twenty years,\" she said. \"We finally have the funding to do it properly.\"\n\nWork is "
    "expected to begin next spring and to take about eighteen months. The old engine shed will be kept and restored as "
    "a workshop where local groups can repair bicycles, furniture and electrical goods.\n\nOpposition councillor Tom "
    "Leary voted against the plan. He said the council should have used the land for affordable housing, and warned "
    "that the running costs of the workshop had not been worked out.\n\nA public consultation last year drew more than "
    "1,200 responses, three quarters of which supported a park on the site."
)

# A faithful summary of the bundled article, written as a paraphrase (other words, other order, other voice).
PARAPHRASE = (
    "Harwick's councillors have backed a £2.4 million scheme to convert the old Millbrook railway depot, shut since "
    "1987, into a public park with a community workshop. The decision passed by nine votes to four. Most of the cost "
    "will be met by a regional regeneration fund. Council leader Priya Natarajan said families in the east of the town "
    "would get their first big green space. Tom Leary, an opposition councillor, opposed the scheme and argued that the "
    "site should have gone to affordable housing."
)


def _check(verifier, text, source=EXAMPLE_SOURCE):
    from citefix.decompose.clauses import ClauseDecomposer

    case = Case(id="c", sources=[Source(id="1", text=source)], text=text, kind="summary")
    units = ClauseDecomposer().units(case)
    return units, verifier.verify(units, case)


def test_packaged_judge_loads_and_is_consistent():
    j = load_judge()
    assert j.features and set(j.features) <= set(FEATURES)
    assert len(j.coef) == len(j.mean) == len(j.scale) == len(j.features)
    # each weight keeps its sign: a finding only raises the probability, support only lowers it
    for k, w in zip(j.features, j.coef):
        assert w * SIGNS[FEATURES.index(k)] >= 0, (k, w)
    assert 0 < j.partial_at <= j.unsupported_at < 1
    assert 0 < j.cited_at <= j.unsupported_at
    assert "_provenance" in j.spec and j.spec["trained_on"]


def test_a_cited_claim_is_judged_by_the_claims_model_at_its_points(offline_verifier):
    """A cited answer's claim is scored by the judge file's own model for claims, and is supported by its citations
    below that model's cited point; a summary's unit is supported below the summaries' partial point."""
    j = offline_verifier.judge
    c = j.for_profile("cited_answer")
    assert c is not j and j.for_profile("default") is j and j.for_profile(None) is j
    assert offline_verifier.supported_at("cited_answer") == pytest.approx(1 - c.cited_at)
    assert offline_verifier.supported_at("default") == pytest.approx(1 - j.partial_at)
    assert offline_verifier.thresholds("cited_answer")["partial"] == pytest.approx(1 - c.unsupported_at)
    # what a cited answer's metrics count as supported is what the verifier labels supported
    from citefix.cited.evaluate import verifier_threshold

    assert verifier_threshold(offline_verifier) == pytest.approx(1 - c.cited_at)


def test_the_packaged_claims_model_is_consistent():
    """Fitted on whole claims: the geometric mean on a linear scale, the hard checks, no graded words-found-nowhere
    finding, no context share; every weight keeps its sign."""
    c = load_judge().for_profile("cited_answer")
    assert c.linear and c.context_shrink == 0 and not c.profiles
    assert set(c.features) <= {"local_log", "stands_in_source", *CHECKS}
    for k, w in zip(c.features, c.coef):
        assert w * SIGNS[FEATURES.index(k)] >= 0, (k, w)
    assert 0 < c.cited_at <= c.unsupported_at < 1
    # the linear scale: the geometric mean less 1 (log for the summaries' model)
    assert vector(0.5, {}, None, linear=True)["local_log"] == pytest.approx(-0.5)
    assert vector(0.5, {}, None)["local_log"] == pytest.approx(-0.6931, abs=1e-4)


def test_a_cited_claims_verdict_comes_from_the_claims_model(offline_verifier):
    """The probability a cited claim's verdict carries is the claims model's; a claim whose figure its cited passage
    gives otherwise is not supported by it, the faithful one is."""
    from citefix.decompose.claims import ClaimDecomposer

    src = ["The new bridge over the River Aln cost £6.3 million.", "It opened to traffic in May after two years of work."]
    c = offline_verifier.judge.for_profile("cited_answer")
    for text, supported in (("The bridge over the Aln cost £6.3 million [1].", True),
                            ("The bridge over the Aln cost £9.8 million [1].", False)):
        case = Case(id="q", kind="cited_answer", text=text,
                    sources=[Source(id=str(i + 1), text=t) for i, t in enumerate(src)])
        units = ClaimDecomposer().units(case)
        targets = [list(u.cited) for u in units]
        feats = offline_verifier.features(units, case, targets=targets)
        verdicts = offline_verifier.verify(units, case, targets=targets)
        for f, v in zip(feats, verdicts):
            p = c.probability(offline_verifier._local_score(f, offline_verifier.profile_params("cited_answer")),
                              offline_verifier.findings(f), f)
            assert v.details["p_unsupported"] == pytest.approx(p, abs=1e-3)
            assert (v.label == "supported") is supported, (text, v.label, p)


def test_a_judge_file_without_a_claims_model_judges_claims_with_its_own():
    spec = json.loads(json.dumps(load_judge().spec))
    spec.pop("profiles", None)
    j = Judge(spec)
    assert j.for_profile("cited_answer") is j
    spec["local_scale"] = "cubic"
    with pytest.raises(ValueError, match="local_scale"):
        Judge(spec)


def test_a_judge_file_without_a_cited_point_uses_the_partial_one():
    spec = json.loads(json.dumps(load_judge().spec))
    spec["thresholds"].pop("cited", None)
    j = Judge(spec)
    assert j.cited_at == j.partial_at


def test_judge_rejects_a_file_it_cannot_read(tmp_path):
    spec = json.loads(json.dumps(load_judge().spec))
    spec["features"] = spec["features"][:-1] + ["no_such_feature"]
    with pytest.raises(ValueError, match="no_such_feature"):
        Judge(spec)
    spec = json.loads(json.dumps(load_judge().spec))
    spec["thresholds"] = {"unsupported": 0.3, "partial": 0.6}
    with pytest.raises(ValueError, match="partial <= unsupported"):
        Judge(spec)
    spec["thresholds"] = {"unsupported": 0.6, "partial": 0.3, "cited": 0.7}
    with pytest.raises(ValueError, match="cited <= unsupported"):
        Judge(spec)


def test_vector_reads_missing_and_non_finite_features_as_zero():
    x = vector(float("nan"), {"role_swap": True}, {"n_words": "x", "misplaced_word_frac": float("inf")})
    assert set(x) == set(FEATURES)
    assert all(v == v and abs(v) < 10 for v in x.values())  # no NaN, no infinity
    assert x["role_swap"] == 1.0 and sum(x[k] for k in CHECKS) == 1.0


def test_a_finding_raises_the_probability_and_support_lowers_it():
    j = load_judge()
    base = j.probability(0.6, {})
    assert j.probability(0.6, {"value_conflict": True}) > base
    assert j.probability(0.9, {}) <= base <= j.probability(0.1, {})


def test_faithful_paraphrase_of_the_example_is_not_flagged(offline_verifier):
    units, verdicts = _check(offline_verifier, PARAPHRASE)
    flagged = [(u.text, v.score) for u, v in zip(units, verdicts) if v.label == "unsupported"]
    assert not flagged, flagged


def test_invented_details_of_the_example_are_flagged(offline_verifier):
    text = ("Council leader Priya Natarajan said work would start next spring and take two years. Opposition councillor "
            "Tom Leary, who chairs the housing committee, wanted the land used for affordable housing.")
    units, verdicts = _check(offline_verifier, text)
    by_text = {u.text: v for u, v in zip(units, verdicts)}
    bad = [t for t, v in by_text.items() if v.label == "unsupported"]
    assert any("two years" in t for t in bad), bad
    assert "eighteen months" in next(v.details["why"] for t, v in by_text.items() if "two years" in t)
    # an invented attribute found by its invented words alone: flagged for a look ("partial"), not cut, since on
    # human-labelled summaries words found nowhere in the source are as often a paraphrase
    chairs = [v for t, v in by_text.items() if "chairs the housing committee" in t]
    assert chairs and all(v.label != "supported" for v in chairs), chairs
    assert any("chairs" in v.details["why"] for v in chairs)


def test_a_changed_figure_is_flagged_and_the_right_one_is_not(offline_verifier):
    src = "The new bridge over the River Aln cost £6.3 million. It opened to traffic in May after two years of work."
    _, ok = _check(offline_verifier, "The bridge over the Aln cost £6.3 million.", src)
    _, wrong = _check(offline_verifier, "The Aln bridge cost £9.8 million and opened in May.", src)
    assert all(v.label == "supported" for v in ok)
    flagged = [v for v in wrong if v.label == "unsupported"]
    # said in words, with what the source has instead
    assert flagged and any("'6.3' where this says '9.8'" in v.details["why"] for v in flagged), \
        [v.details.get("why") for v in wrong]
    assert any(c["kind"] == "conflict" and c["evidence"] == "6.3" for v in flagged for c in v.details["conflicts"])


def test_verdicts_carry_the_probability_and_follow_the_decision_points(offline_verifier):
    j = offline_verifier.judge
    units, verdicts = _check(offline_verifier, PARAPHRASE + " The works will take two years.")
    for v in verdicts:
        p = v.details["p_unsupported"]
        assert v.score == pytest.approx(1 - p, abs=1e-3)
        want = "unsupported" if p >= j.unsupported_at else "partial" if p >= j.partial_at else "supported"
        # rounding to four places may move a unit sitting exactly on a decision point
        if min(abs(p - j.unsupported_at), abs(p - j.partial_at)) > 1e-3:
            assert v.label == want
        assert isinstance(v.details["judge_reasons"], list)


@pytest.mark.parametrize("feature", REGISTRY, ids=[f.name for f in REGISTRY])
def test_every_registered_feature_fires_on_its_example(offline_verifier, feature):
    """The registry's example of each feature sets it off (on some atomic unit, through the real parse and encoder)."""
    from citefix.decompose.clauses import ClauseDecomposer

    case = Case(id="c", sources=[Source(id="1", text=feature.source)], text=feature.statement, kind="summary")
    units = ClauseDecomposer().units(case)
    feats = offline_verifier.features(units, case)
    vecs = [vector(offline_verifier._local_score(f, offline_verifier.params), offline_verifier.findings(f), f)
            for f in feats if "error" not in f]
    assert vecs, feature
    if feature.name == "local_log":  # a faithful example: well supported on every unit
        assert all(x["local_log"] > -0.7 for x in vecs), vecs
    else:
        assert any(x[feature.name] > 0 for x in vecs), [(u.text, x) for u, x in zip(units, vecs)]


def test_the_readme_table_of_checks_is_the_generated_one():
    """README and docs/quality.md show the table `python -m training.judge table` prints from the registry and
    judge.json."""
    from pathlib import Path

    from citefix.verify.judge import markdown_table

    root = Path(__file__).resolve().parents[2]
    table = markdown_table()
    for page in ("README.md", "docs/quality.md"):
        assert table in (root / page).read_text(encoding="utf-8"), \
            f"{page}: run python -m training.judge table and paste it"


def test_the_decision_points_the_docs_state_are_the_packaged_ones():
    """The prose of README and docs/quality.md states the summaries' decision points ("**unsupported** at p ≥ …,
    **partial** … at p ≥ …"); they are judge.json's."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    judge = load_judge()
    packaged = (judge.unsupported_at, judge.partial_at)
    for page in ("README.md", "docs/quality.md"):
        text = " ".join((root / page).read_text(encoding="utf-8").split())
        found = re.findall(r"\*\*unsupported\*\* at p ≥ (\d\.\d+),? \*\*partial\*\* [^≥]*≥ (\d\.\d+)", text)
        assert found, f"{page}: states no decision points"
        for uns, part in found:
            assert (float(uns), float(part)) == packaged, \
                f"{page}: says unsupported at {uns}, partial at {part}; the packaged judge has {packaged}"


def test_the_length_table_counts_texts_and_flags_by_their_number_of_units(capsys):
    """training.judge's table of verdicts by how many units a text has: each text in its bin, a long faithful text
    with one unit read unsupported counted flagged, and the share of its units flagged counted per text."""
    import numpy as np

    from training import judge as J

    def item(n, bad):
        return J.Item("s", f"{n}-{bad}", 1 - bad, bad, None, np.zeros(len(J.COLUMNS)), np.zeros((n, len(J.COLUMNS))))

    sets, raw = {}, {}
    for name in ("a", "b", "c"):
        its = [item(2, 0), item(2, 1), item(20, 0), item(20, 0), item(20, 1)] * 4
        units = [np.full(len(it.units), -8.0) for it in its]
        for it, u in zip(its, units):
            if it.bad:
                u[0] = 8.0
        units[2][5] = 8.0  # one of each set's eight long faithful texts with a unit read unsupported
        sets[name] = its
        raw[name] = J.OOF(np.array([8.0 if it.bad else -8.0 for it in its]), units)
    J.length_table(raw, sets, list(sets), {n: 0.0 for n in sets})
    rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ")[1:]
            for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "units" not in line}
    assert rows["2–3"][:3] == ["12", "0.000", "0.000"]
    assert rows["2–3"][3:5] == ["12", "1.000"]
    assert rows["16 or more"][:3] == ["24", "0.125", "0.006"]
    assert rows["16 or more"][3:6] == ["12", "1.000", "0.050"]
    assert rows["1"] == ["0", "–", "–", "0", "–", "–"]


def test_joined_texts_are_faithful_only_when_every_part_is():
    """training.judge_variants' longer texts put together from labelled ones: k faithful parts make a faithful text,
    a text with an error is its own units and k − 1 faithful texts' units, and every faithful text is used once."""
    import numpy as np

    from training import judge as J
    from training.judge_variants import _joined

    items = [J.Item("s", str(i), 1, 0, None, np.zeros(1), np.zeros((1, 1))) for i in range(6)]
    items += [J.Item("s", "e", 0, 1, None, np.zeros(1), np.zeros((1, 1)))]
    units = [np.full(2, float(i)) for i in range(6)] + [np.full(3, 99.0)]
    out = _joined(items, units, 3, np.random.default_rng(0))
    good = [u for bad, u in out if not bad]
    assert len(good) == 2 and all(len(u) == 6 for u in good)
    assert sorted(np.concatenate(good).tolist()) == sorted(np.concatenate(units[:6]).tolist())
    (bad,) = [u for b, u in out if b]
    assert len(bad) == 3 + 2 * 2 and (bad == 99.0).sum() == 3


def test_an_edit_is_located_at_the_words_it_changed(tmp_path):
    """training.error_spans: the words an edited summary changed, and for words only taken out the words around the
    gap; a SummEdits edit with an error is located against its document's original summary, a faithful edit not."""
    from training.error_spans import edit_spans, summedits_spans, units_meeting

    og = "The company is increasing its dividend to $0.13 per share."
    new = "The company is increasing its dividend to $0.15 per share."
    assert [new[a:b] for a, b in edit_spans(og, new)] == ["$0.15"]
    cut = "The company is increasing its dividend per share."
    assert [cut[a:b] for a, b in edit_spans(og, cut)] == ["dividend per"]
    assert edit_spans(og, og) == []
    assert units_meeting(edit_spans(og, new), [(0, 38), (39, 57), (None, None)]) == [1]
    pool = tmp_path / "pool.jsonl"
    rows = [{"id": "summedits-x-doc_og", "claim": og, "label": 1, "source": "summedits"},
            {"id": "summedits-x-doc_0", "claim": new, "label": 0, "source": "summedits"},
            {"id": "summedits-x-doc_1", "claim": cut, "label": 1, "source": "summedits"},
            {"id": "fever-1", "claim": new, "label": 0, "source": "fever"}]
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert summedits_spans(pool) == {"summedits-x-doc_0": [(42, 47)]}


def test_where_the_red_falls_counts_flagged_units_on_the_marked_error(capsys):
    """training.judge's table of where a flagged text's unsupported units lie: a text flagged on the unit that meets
    its marked error counts, one flagged on another unit does not, and texts without a marked error are left out."""
    import numpy as np

    from training import judge as J

    def item(bad, on):
        it = J.Item("s", f"{bad}-{on}", 1 - bad, bad, None, np.zeros(len(J.COLUMNS)), np.zeros((4, len(J.COLUMNS))))
        it.error_units = on
        return it

    sets, raw = {}, {}
    for name in ("a", "b", "c"):
        its = [item(0, None), item(1, [0]), item(1, [1]), item(1, None)] * 3
        units = [np.full(4, -8.0) for _ in its]
        for it, u in zip(its, units):
            if it.bad:
                u[0] = 8.0  # the first unit flagged: on the error for "[0]", beside it for "[1]"
        sets[name], raw[name] = its, J.OOF(np.array([8.0 if it.bad else -8.0 for it in its]), units)
    J.localization_table(raw, sets, list(sets), {n: 0.0 for n in sets})
    rows = [line.strip("| ").split(" | ") for line in capsys.readouterr().out.splitlines()
            if line.startswith("| a ")]
    assert rows == [["a", "6", "1.00", "0.50", "0.50", "0.50", "0.25"]]


def test_training_may_pick_the_unsupported_unit_where_the_error_is_marked():
    """With PICK_BY_SPANS, a statement's unsupported unit in training is the most suspect of the units that meet its
    marked error, not the most suspect of all."""
    import numpy as np

    from training import judge as J

    n = len(J.COLUMNS)
    units = np.zeros((3, n))
    units[0, 0], units[2, 0] = -5.0, -1.0  # unit 0 reads least supported, the error lies in unit 2
    it = J.Item("s", "e", 0, 1, None, np.zeros(n), units)
    it.error_units = [1, 2]
    pick = lambda: J._design([it], None)[0][1]  # noqa: E731 — the row after the whole statement's
    assert pick()[0] == -5.0
    J.PICK_BY_SPANS = True
    try:
        assert pick()[0] == -1.0
    finally:
        J.PICK_BY_SPANS = False


def test_the_benign_word_weights_count_documents_not_texts():
    """training.judge_variants' learned weight of a word found nowhere: source documents with a faithful text that has
    it against those with an error that has it (in the marked error's units where the set marks it), a word of too few
    documents or of one set left out."""
    import numpy as np

    from training import judge as J
    from training.judge_variants import benign_lexicon

    def item(set_, doc, bad, words, error_units=None):
        units = [{"invented": [{"kind": "word", "text": w}]} for w in words] or [{}]
        it = J.Item(set_, f"{doc}_{len(words)}{bad}", 1 - bad, bad, None, np.zeros(1), np.zeros((len(units), 1)),
                    {}, units)
        it.error_units = error_units
        return it

    sets = {"a": [item("a", "d1", 0, ["overall"]), item("a", "d1", 0, ["overall", "x"]), item("a", "d2", 0, ["overall"])],
            "b": [item("b", "d3", 0, ["overall", "rose"]), item("b", "d4", 0, ["rose"]), item("b", "d5", 0, ["rose"]),
                  item("b", "d6", 1, ["overall", "rose"], error_units=[1])]}
    lex = benign_lexicon(sets, ["a", "b"])
    assert lex["overall"] == 3 / (3 + 0 + 2)  # d1 once though two of its texts have it; d6's error lies elsewhere
    assert "rose" not in lex  # a word of one set only
    assert "x" not in lex
