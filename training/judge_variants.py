"""Other models in the judge's place, measured the way the judge is: leave one dataset out on the human-labelled
development sets (training/judge.py), on the same cached features.

Each variant changes one thing against the shipped model (a logistic regression with sign-bounded weights, trained on
whole statements and multiple-instance unit labels):

    lr             the shipped model, for the baseline row
    pooled         the logistic model trained on each statement's units through their pooled logit (a soft maximum)
                   instead of one unit labelled per statement: the text-level decision `check` makes
    spans          the logistic model with a statement's unsupported unit picked among the units that meet its
                   annotated error span, where its set gives one (XSumFaith, the SummEdits domains)
    benign-words   the logistic model with a learned weight for each word found nowhere in the sources: the share of
                   the training sets' source documents with a faithful text that has it, against those with an error
                   in it (in the annotated error span where the set gives one), learned anew for each held-out set
                   from the others; the unit's sum of those weights over its words is a column that may only lower
                   the probability
    gbm            a gradient-boosted model of the same features, each monotone in the direction of its sign (trained
                   on multiple-instance unit labels, as lr)
    gbm+signals    the same, with the three signals apart (lexical log-probability, alignment, similarity) as further
                   features, free to bend where the logistic model cannot
    lr+signals     the logistic model with the three signals apart and the whole statement's three signals beside
                   each unit's
    whole-only     the logistic model trained on whole statements only (no unit labels)
    relative       the logistic model with a unit's signal relative to its text's mean, and that mean (how abstractive
                   the whole text is) as features
    novel-relative the logistic model with the share of a unit's lemmas the sources lack above its whole text's share
                   (a unit more novel than its text)
    novel-discount … with the unit's invented share times its text's share of lemmas the sources lack, able only to
                   lower the probability (words found nowhere weigh less in a text abstractive throughout)
    invented-kinds the logistic model with the words found nowhere in the sources counted by part of speech (nouns,
                   verbs, adjectives and adverbs, names), each a share of the unit's words, beside invented_share
    relations      the logistic model with the share of the unit's word pairs (a content word and the content word it
                   hangs on in the parse) whose words the evidence region holds but never near each other in one of
                   its sentences: words the source has, put together otherwise
    pairs-any      the logistic model with whether the unit has a word pair (citefix.verify.pairs: a content word and
                   the content word it hangs on) with both words found nowhere in the sources (the judge's
                   `invented_pair`, so on a judge that has it this variant repeats it)
    pairs-share    … with those pairs' share of the unit's pairs instead
    pairs-unframed … as pairs-any, not counting a pair that hangs on a verb of saying
    pairs-siblings … as pairs-any, or two words found nowhere that hang on the same word
    unframed       the judge's own words-found-nowhere findings (invented_share, invented_pair) without the words
                   that frame a report: a verb of saying or of discussing ("discussed", "mentioned", "agreed") and
                   the common noun that is its subject ("the group", "the team"); a summary of a meeting or a call
                   tells who said what in words the transcript never uses (replaces the two columns; no new one)
    length         the logistic model with the unit's and its whole text's length in words (log; either sign)
    attribute-invented   the logistic model with the share of words found nowhere in the sources on an attribute
                   unit (a relative clause or apposition cut out as a unit of its own) as a column of its own, so that
                   a described thing's invented attribute can weigh otherwise than a paraphrase's new words
    names-partial  the logistic model with the share of a name's words the sources lack where it falls short of a
                   whole name (the judge's `partial_name` as a share; on a judge that has it, read it with --drop
                   partial_name); names-partial-any: whether there is such a name (the judge's own reading)
    names-misplaced   … with the share of the unit's names the sources hold only away from its evidence region
    raw:KEY        any cached feature of a unit (bench/lodo.py features), clipped to [0, 1], as one more column that
                   may only raise the probability (a first look at a finding before it is made a feature)
    graded-atomic  the words found nowhere read on atomic units only: invented_share, invented_pair and
                   misplaced_word_frac held at 0 on a whole statement or claim, in training and in use (on a
                   text of several sentences they measure how abstractive it is)
    no-pool        the logistic model trained without the pool's claim-evidence pairs (FEVER, Fool Me Twice, FactCG)
    pool-quarter   … with those pairs at a quarter of a dataset's weight
    no-planted     … without the planted dev suite
    raw-alignment  the logistic model with the raw token alignment against the evidence region (before its calibration
                   clips it at 0) as a column that may only lower the probability; raw-signals: and the raw cosine
                   similarity
    ridge:L2       the logistic model with the ridge on its weights at L2 (the shipped 1e-4); graded-ridge:L2: on the
                   graded findings' weights only
    pooled+invented-kinds, pooled+relations, pooled+attribute-invented   the pooled model with those columns
    pooled-held+relations   … with the words-found-nowhere findings held at or above 0.5 (--held-up; as --floor)
    A variant may join "relations" and the "pairs-…" variants with "+" (relations+pairs-share), each a column,
    after "pooled+" or "pooled-held+" or alone.

--planted-heldout adds the held-out planted split's lowest detection over its error types (the model trained on every
set, at the variant's decision point).

Run:  .venv/bin/python -m training.judge_variants --cache out/lodo_k [--variants lr,gbm,...]
      .venv/bin/python -m training.judge_variants --cache out/lodo_k --drop invented_pair --variants lr,pairs-any
                                                                # a feature held at 0: the judge without it
      .venv/bin/python -m training.judge_variants --cache out/lodo_k --context     # what a unit is read against
      .venv/bin/python -m training.judge_variants --cache out/lodo_k --floor --planted-heldout out/lodo_ph2
      .venv/bin/python -m training.judge_variants --cache out/lodo_k --whole-graded   # those three held at 0 on
                                                                # whole statements in use only (the judge as fitted)
      .venv/bin/python -m training.judge_variants --cache out/lodo_w --whole-own   # … or given weights of their
                                                                # own on whole statements, fitted
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from citefix.verify.judge import GRADED, _share, partly_named, vector
from citefix.verify.pairs import PAIR_POS, frames_report, invented_pair_share, word_pairs
from training import judge as J


class _Boosted:
    def __init__(self, clf: Any):
        self.clf = clf

    def logit(self, x: np.ndarray) -> np.ndarray:
        return self.clf.decision_function(np.atleast_2d(x))


def gbm_fit(signs: list[int]) -> Callable[..., Any]:
    """A fitter with training/judge.fit's signature: monotone gradient boosting, the same multiple-instance rounds."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    def fit(sets, names, drop=None):
        model = None
        for _ in range(J.MIL_ROUNDS):
            parts = [J._design(sets[n], model) for n in names]
            X = np.concatenate([p[0] for p in parts])
            y = np.concatenate([p[1] for p in parts])
            w = np.concatenate([p[2] * J._set_weight(n) for n, p in zip(names, parts)])
            clf = HistGradientBoostingClassifier(monotonic_cst=[int(s) for s in signs], max_iter=150,
                                                 learning_rate=0.05, max_leaf_nodes=8, min_samples_leaf=40,
                                                 l2_regularization=1.0, random_state=0)
            clf.fit(X, y, sample_weight=w / w.mean())
            model = _Boosted(clf)
        return model

    return fit


def _whole_design(items, model):
    X = np.array([it.whole for it in items])
    y = np.array([it.bad for it in items])
    w = np.ones(len(y))
    for c in (0, 1):
        if (y == c).any():
            w[y == c] /= w[y == c].sum()
    return X, y, w


def whole_only_fit(sets, names, drop=None):
    return J.fit(sets, names, drop, design=_whole_design)


def _signal(f: dict[str, Any], key: str) -> float:
    v = float(f.get(key, 0) or 0)
    return max(-7.0, v) if key == "lexical_log" else v


RAW = ("lexical_log", "alignment", "similarity")
# the words found nowhere in the sources, by their part of speech (the spaCy parse of the unit's text)
WORD_KINDS = {"noun": ("NOUN",), "verb": ("VERB",), "adjective or adverb": ("ADJ", "ADV"), "name": ("PROPN",)}


def _kinds_of_invented(nlp, memo: dict[str, Any]):
    """unit_cols for the variant "invented-kinds": per kind in WORD_KINDS, the share of the unit's words that are
    words of that kind found nowhere in the sources."""
    def cols(f: dict[str, Any]) -> list[float]:
        inv = f.get("invented") or []
        words = max(float(f.get("n_words", 0) or 0), float(f.get("clause_words", 0) or 0))
        if not inv or words <= 0:
            return [0.0] * len(WORD_KINDS)
        text = str(f.get("unit_text") or "")
        if text not in memo:
            memo[text] = {t.idx: t.pos_ for t in nlp(text)}
        pos = memo[text]
        counts = dict.fromkeys(WORD_KINDS, 0)
        for w in inv:
            p = pos.get(int(w.get("start", -1)))
            for k, tags in WORD_KINDS.items():
                if p in tags:
                    counts[k] += 1
        return [min(1.0, counts[k] / words) for k in WORD_KINDS]

    return cols


RELATION_REACH = 3  # at most this many arcs apart in a region sentence's parse counts as said together


def _relation_share(nlp, memo: dict[str, Any]):
    """unit_cols for the variant "relations": of the unit's content-word pairs (each content word and the nearest
    content word above it in the parse) whose two lemmas the evidence region holds, the share that no region sentence
    holds within RELATION_REACH arcs of each other."""
    def parse(text: str):
        if text not in memo:
            memo[text] = nlp(text)
        return memo[text]

    def key(t) -> str:
        return t.lemma_.lower()

    def cols(f: dict[str, Any]) -> list[float]:
        unit, region = str(f.get("unit_text") or ""), str(f.get("region_text") or "")
        if not unit.strip() or not region.strip():
            return [0.0]
        ud, rd = parse(unit), parse(region)
        where: dict[str, list] = {}
        for t in rd:
            if t.pos_ in PAIR_POS:
                where.setdefault(key(t), []).append(t)
        counted = unmatched = 0
        for t, h in word_pairs(ud):
            xs, ys = where.get(key(t)), where.get(key(h))
            if not xs or not ys:
                continue
            counted += 1
            if not any(x.sent.start == y.sent.start and _arcs(x, y) <= RELATION_REACH for x in xs for y in ys):
                unmatched += 1
        return [unmatched / counted if counted else 0.0]

    return cols


def _invented_pairs(nlp, memo: dict[str, Any], share: bool, framed: bool = False, siblings: bool = False):
    """unit_cols for the variants "pairs-any" / "pairs-share": the unit's word pairs (citefix.verify.pairs) with both
    words found nowhere in the sources — whether it has one, or their share of its pairs. "pairs-unframed": as
    "pairs-any", not counting a pair that hangs on a verb of saying (decompose.details.SPEECH_VERBS: "noting the
    absence of …" frames what was said; the fact is in what hangs below). "pairs-siblings": as "pairs-any", or two
    words found nowhere that hang on the same word."""
    from citefix.decompose.details import SPEECH_VERBS

    def cols(f: dict[str, Any]) -> list[float]:
        text = str(f.get("unit_text") or "")
        inv = [int(w.get("start", -1)) for w in (f.get("invented") or [])]
        if not inv or not text.strip():
            return [0.0]
        if text not in memo:
            memo[text] = nlp(text)
        if siblings:  # … or two words that hang on the same word, both found nowhere ("Mugs are made of ceramic")
            starts = set(inv)
            under: dict[int, list] = {}
            for t, h in word_pairs(memo[text]):
                if t.idx in starts and (h.idx in starts or under.get(h.i)):
                    return [1.0]
                if t.idx in starts:
                    under.setdefault(h.i, []).append(t)
            return [0.0]
        if framed:
            starts = set(inv)
            return [float(any(t.idx in starts and h.idx in starts and h.lemma_.lower() not in SPEECH_VERBS
                              for t, h in word_pairs(memo[text])))]
        x = invented_pair_share(memo[text], inv)
        return [x if share else float(x > 0)]

    return cols


def _unframed_rows(sets, nlp) -> list[tuple[Any, np.ndarray, np.ndarray]]:
    """Each item's rows with invented_share and invented_pair read without the words that frame a report; returns
    the rows as they were, to put back."""
    share, pair = J.FEATURES.index("invented_share"), J.FEATURES.index("invented_pair")
    memo: dict[str, Any] = {}

    def fix(row: np.ndarray, f: dict[str, Any]) -> np.ndarray:
        inv = [int(w.get("start", -1)) for w in (f.get("invented") or [])]
        text = str(f.get("unit_text") or "")
        if not inv or not text.strip():
            return row
        if text not in memo:
            memo[text] = nlp(text)
        frame = {t.idx for t in memo[text] if frames_report(t)}
        kept = [s for s in inv if s not in frame]
        if len(kept) == len(inv):
            return row
        # the judge's own reading of the two findings (citefix.verify.judge.vector), from the words left
        x = vector(1.0, {}, dict(f, invented_words=len(kept), invented_pairs=invented_pair_share(memo[text], kept)))
        out = row.copy()
        out[share], out[pair] = x["invented_share"], x["invented_pair"]
        return out

    kept_rows = []
    for items in sets.values():
        for it in items:
            kept_rows.append((it, it.whole, it.units))
            it.whole = fix(it.whole, it.raw_whole)
            it.units = np.array([fix(r, f) for r, f in zip(it.units, it.raw_units)]) if len(it.raw_units) == len(
                it.units) else it.units
    return kept_rows


def _arcs(x, y) -> int:
    """How many arcs apart two tokens of one sentence stand in its parse."""
    up = {x.i: 0}
    for d, a in enumerate(x.ancestors, 1):
        up[a.i] = d
    if y.i in up:
        return up[y.i]
    for d, a in enumerate(y.ancestors, 1):
        if a.i in up:
            return d + up[a.i]
    return 99


def _with_columns(sets, names: list[str], signs: list[int], unit_cols, whole_cols) -> None:
    """Extra columns after the judge's own: unit_cols(item, unit features, unit row) / whole_cols(item)."""
    J.COLUMNS[:] = list(J.FEATURES) + names
    J.COLUMN_SIGNS[:] = list(J.SIGNS) + signs
    for items in sets.values():
        for it in items:
            base_w, base_u = it.whole[:len(J.FEATURES)], it.units[:, :len(J.FEATURES)]
            it.whole = np.concatenate([base_w, whole_cols(it)])
            extra = [unit_cols(it, f, row) for f, row in zip(it.raw_units, base_u)]
            it.units = np.concatenate([base_u, np.array(extra).reshape(len(base_u), len(names))], 1)


BENIGN_MIN_DOCS, BENIGN_MIN_SETS, BENIGN_PRIOR = 3, 2, 2.0


def _found_nowhere(f: dict[str, Any]) -> set[str]:
    return {str(w.get("text", "")).lower() for w in (f.get("invented") or []) if w.get("kind") == "word"}


def benign_lexicon(sets, names: list[str]) -> dict[str, float]:
    """Per word found nowhere in the sources, over the sets `names`: d_f / (d_f + d_e + BENIGN_PRIOR), d_f the source
    documents with a faithful text that has it, d_e those with a text with an error that has it (in a unit meeting the
    annotated error span where the set gives one); only words of at least BENIGN_MIN_DOCS such documents in at least
    BENIGN_MIN_SETS sets."""
    good: dict[str, set] = {}
    bad: dict[str, set] = {}
    where: dict[str, set] = {}
    for n in names:
        for it in sets[n]:
            doc = (n, J._document(it.id))
            ks = (it.error_units or range(len(it.raw_units))) if it.bad else range(len(it.raw_units))
            for w in set().union(set(), *[_found_nowhere(it.raw_units[k]) for k in ks]):
                (bad if it.bad else good).setdefault(w, set()).add(doc)
                if not it.bad:
                    where.setdefault(w, set()).add(n)
    return {w: len(d) / (len(d) + len(bad.get(w, ())) + BENIGN_PRIOR) for w, d in good.items()
            if len(d) >= BENIGN_MIN_DOCS and len(where[w]) >= BENIGN_MIN_SETS}


def benign_fit(sets, names, drop=None):
    """The logistic model with the column "benign words" set on every set's items from the lexicon of `names` only."""
    lex = benign_lexicon(sets, [n for n in names if n != HELD])

    def col(f: dict[str, Any]) -> list[float]:
        words = max(float(f.get("n_words", 0) or 0), float(f.get("clause_words", 0) or 0), 1.0)
        return [min(1.0, sum(lex.get(w, 0.0) for w in _found_nowhere(f)) / words)]

    _with_columns(sets, ["benign words"], [-1], lambda it, f, row: col(f), lambda it: col(it.raw_whole))
    return J.fit(sets, names, drop)


def _reset(sets) -> None:
    _with_columns(sets, [], [], lambda it, f, row: [], lambda it: [])


HELD = "planted held-out"  # the held-out planted split rides along in `sets` (no fold or training set reads it)


def pooled_held(least: float):
    """The pooled model with the words-found-nowhere findings held at or above `least`."""
    def fitter(s, names, drop=None):
        return J.fit_pooled(s, names, drop, least=dict.fromkeys(INVENTED, least) if least else None)

    return fitter


def run_variant(name: str, sets, held_up: float = 0.5, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    _reset(sets)
    held = sets.get(HELD)

    def lodo_summary(s, fitter=None):
        return J.lodo_summary(s, drop, fitter, held)

    if name == "lr":
        return lodo_summary(sets)
    if name.startswith(("ridge:", "graded-ridge:")):
        # the logistic model with a stronger ridge on its weights (training/judge.py L2), pulling every finding's
        # weight toward 0 so that fewer of them carry one set's habits to another; "graded-ridge:": on the graded
        # findings only (those that fire on most faithful texts of some sets), the signals and the hard checks at the
        # shipped ridge
        keep = J.L2
        strength = float(name.partition(":")[2])
        J.L2 = strength if name.startswith("ridge:") else np.array(
            [strength if c in GRADED else keep for c in J.COLUMNS])
        try:
            return lodo_summary(sets)
        finally:
            J.L2 = keep
    if name == "pooled":
        return lodo_summary(sets, fitter=J.fit_pooled)
    if name == "benign-words":
        return lodo_summary(sets, fitter=benign_fit)
    if name == "spans":
        # a statement's unsupported unit picked among the units that meet its annotated error span, where its set
        # gives one (XSumFaith, the SummEdits domains: training/error_spans.py), not among all its units
        J.PICK_BY_SPANS = True
        try:
            return lodo_summary(sets)
        finally:
            J.PICK_BY_SPANS = False
    if name == "gbm":
        return lodo_summary(sets, fitter=gbm_fit(list(J.SIGNS)))
    if name in ("gbm+signals", "lr+signals"):
        cols = [f"unit {k}" for k in RAW] + ([f"whole {k}" for k in RAW] if name == "lr+signals" else [])
        signs = [-1] * len(cols)
        with_whole = name == "lr+signals"
        _with_columns(sets, cols, signs,
                      lambda it, f, row: [_signal(f, k) for k in RAW] + ([_signal(it.raw_whole, k) for k in RAW]
                                                                        if with_whole else []),
                      lambda it: [_signal(it.raw_whole, k) for k in RAW] * (2 if with_whole else 1))
        return lodo_summary(sets, fitter=gbm_fit(J.COLUMN_SIGNS) if name.startswith("gbm") else None)
    if name == "whole-only":
        return lodo_summary(sets, fitter=whole_only_fit)
    fitter = J.fit_pooled if name.startswith("pooled+") else pooled_held(held_up) if name.startswith(
        "pooled-held+") else None
    name = name.removeprefix("pooled+").removeprefix("pooled-held+")
    if name == "invented-kinds":
        from citefix.nlp import load_spacy

        cols = _kinds_of_invented(load_spacy(), {})
        _with_columns(sets, [f"invented {k}" for k in WORD_KINDS], [1] * len(WORD_KINDS),
                      lambda it, f, row: cols(f), lambda it: cols(it.raw_whole))
        return lodo_summary(sets, fitter=fitter)
    if name.startswith("raw:"):
        # any cached feature of a unit, clipped to [0, 1], as one more column that may only raise the probability
        key = name.removeprefix("raw:")
        _with_columns(sets, [key], [1], lambda it, f, row: [_share(f, key)], lambda it: [_share(it.raw_whole, key)])
        return lodo_summary(sets, fitter=fitter)
    if name in NAME_COLUMNS:
        # a name some of whose words the sources lack ("liam bennett" where the source has "Bob Bennett": the share
        # of its words missing, below the whole name the missing_entities finding needs, or whether there is one, as
        # the judge's partial_name reads it), and the share of the unit's names the sources hold only away from its
        # evidence region
        readers = {"name partly missing": lambda f: _share(f, "missing_entities") if partly_named(f) else 0.0,
                   "a name partly missing": partly_named,
                   "names held away from the evidence": lambda f: _share(f, "misplaced_entities")}
        cols = NAME_COLUMNS[name]

        def read(f):
            return [readers[c](f) for c in cols]

        _with_columns(sets, list(cols), [1] * len(cols), lambda it, f, row: read(f), lambda it: read(it.raw_whole))
        return lodo_summary(sets, fitter=fitter)
    if name == "attribute-invented":
        inv = J.FEATURES.index("invented_share")
        _with_columns(sets, ["invented on an attribute unit"], [1],
                      lambda it, f, row: [row[inv] if f.get("attribute") else 0.0], lambda it: [0.0])
        return lodo_summary(sets, fitter=fitter)
    if name.split("+")[0] in ("relations", "pairs-any", "pairs-share", "pairs-unframed", "pairs-siblings"):
        from citefix.nlp import load_spacy

        nlp, memo = load_spacy(), {}
        makers = {"relations": lambda: _relation_share(nlp, memo),
                  "pairs-any": lambda: _invented_pairs(nlp, memo, False),
                  "pairs-share": lambda: _invented_pairs(nlp, memo, True),
                  "pairs-unframed": lambda: _invented_pairs(nlp, memo, False, framed=True),
                  "pairs-siblings": lambda: _invented_pairs(nlp, memo, False, siblings=True)}
        parts = name.split("+")
        if any(p not in makers for p in parts):
            raise SystemExit(f"unknown variant {name!r}")
        fs = [makers[p]() for p in parts]

        def both(f):
            return [x for c in fs for x in c(f)]

        _with_columns(sets, parts, [1] * len(parts), lambda it, f, row: both(f), lambda it: both(it.raw_whole))
        return lodo_summary(sets, fitter=fitter)
    if name == "unframed":
        from citefix.nlp import load_spacy

        kept_rows = _unframed_rows(sets, load_spacy())
        try:
            return lodo_summary(sets)
        finally:
            for it, w, u in kept_rows:
                it.whole, it.units = w, u
    if name.startswith("signal-floor"):
        # each of the three signals floored (signal-floor:EPS, default 0.02) before their geometric mean, so that one
        # signal at 0 no longer sends the mean to its floor whatever the other two say
        eps = float(name.partition(":")[2] or 0.02)
        v = J._verifier()

        def floored(it, w, u):
            w, u = w.copy(), u.copy()
            w[0] = _floored_log(v, it.raw_whole, eps)
            for k, f in enumerate(it.raw_units):
                u[k, 0] = _floored_log(v, f, eps)
            return w, u

        return _rows_rewritten(sets, floored, lodo_summary)
    if name == "graded-atomic":
        idx = [J.FEATURES.index(k) for k in GRADED_WORDS]
        return _rows_rewritten(sets, lambda it, w, u: _graded_off(it, w, u, idx), lodo_summary)
    if name == "length":
        def n(f):
            return math.log1p(max(float(f.get("n_words", 0) or 0), float(f.get("clause_words", 0) or 0)))

        _with_columns(sets, ["unit length", "text length"], [0, 0],
                      lambda it, f, row: [n(f), n(it.raw_whole)], lambda it: [n(it.raw_whole)] * 2)
        return lodo_summary(sets)
    if name in ("no-pool", "pool-quarter", "no-planted"):
        # the training-only sets weighed otherwise: the pool's claim-evidence pairs (FEVER, Fool Me Twice, FactCG)
        # left out or at a quarter of a dataset's weight; the planted dev suite left out
        keep_train, keep_weight = J.TRAIN_ONLY, J._set_weight
        if name == "no-pool":
            J.TRAIN_ONLY = tuple(n for n in keep_train if n != "pool")
        elif name == "no-planted":
            J.TRAIN_ONLY = tuple(n for n in keep_train if n != "planted")
        else:
            J._set_weight = lambda n: 0.25 if n == "pool" else keep_weight(n)
        try:
            return lodo_summary(sets)
        finally:
            J.TRAIN_ONLY, J._set_weight = keep_train, keep_weight
    if name in ("novel-relative", "novel-discount"):
        # how abstractive the whole text is: the share of its lemmas the sources lack (missing_word_frac of the
        # whole statement). "novel-relative": a unit's share above its text's (a unit more novel than the text it
        # was cut from); "novel-discount": the unit's invented share times its text's novelty, able only to lower
        # the probability (words found nowhere weigh less in a text that is abstractive throughout)
        inv = J.FEATURES.index("invented_share")

        def novelty(f):
            return _share(f, "missing_word_frac")

        if name == "novel-relative":
            _with_columns(sets, ["novel beyond the text"], [1],
                          lambda it, f, row: [max(0.0, novelty(f) - novelty(it.raw_whole))], lambda it: [0.0])
        else:
            _with_columns(sets, ["invented in an abstractive text"], [-1],
                          lambda it, f, row: [row[inv] * novelty(it.raw_whole)],
                          lambda it: [it.whole[inv] * novelty(it.raw_whole)])
        return lodo_summary(sets)
    if name in ("roles", "roles+signals"):
        # the decomposer's role of the unit (a detail cut from a modifier, a clause, a speaker's words, …; the core
        # unit is the baseline) as columns of either sign; "roles+signals": also each role times the geometric mean
        cols = [f"role {r}" for r in ROLES] + ([f"role {r} x signals" for r in ROLES] if name == "roles+signals" else [])

        def role_cols(f, row):
            hot = [float(f.get("role") == r) for r in ROLES]
            return hot + ([h * row[0] for h in hot] if name == "roles+signals" else [])

        _with_columns(sets, cols, [0] * len(cols), lambda it, f, row: role_cols(f, row), lambda it: [0.0] * len(cols))
        return lodo_summary(sets)
    if name in ("short-signals", "novel-signals"):
        # the geometric mean's weight let to depend on the unit's length ("short-signals": times 1 / (1 + words / 5),
        # a fragment's signals read otherwise than a clause's) or on how abstractive its whole text is
        # ("novel-signals": times the share of the text's lemmas the sources lack); the product a column of either sign
        def factor(it, f):
            if name == "short-signals":
                return 1.0 / (1.0 + max(float(f.get("n_words", 0) or 0), 1.0) / 5.0)
            return _share(it.raw_whole, "missing_word_frac")

        _with_columns(sets, [name], [0], lambda it, f, row: [row[0] * factor(it, f)],
                      lambda it: [it.whole[0] * factor(it, it.raw_whole)])
        return lodo_summary(sets)
    if name in ("raw-alignment", "raw-signals"):
        # the signals before their calibration clips them at 0 (token alignment below its baseline reads 0 on a twelfth
        # of XSumFaith's units, whatever its raw value): the raw token alignment against the evidence region (and with
        # "raw-signals" the raw cosine similarity) as columns that may only lower the probability
        keys = ["local_alignment_raw"] + (["similarity_raw"] if name == "raw-signals" else [])

        def raw(f):
            return [_share(f, k) for k in keys]

        _with_columns(sets, keys, [-1] * len(keys), lambda it, f, row: raw(f), lambda it: raw(it.raw_whole))
        return lodo_summary(sets)
    if name == "relative":
        _with_columns(sets, ["unit below its text's mean", "text mean"], [-1, 0],
                      lambda it, f, row: [row[0] - it.units[:, 0].mean(), it.units[:, 0].mean()],
                      lambda it: [0.0, it.units[:, 0].mean()])
        return lodo_summary(sets)
    raise SystemExit(f"unknown variant {name!r}; choose from {', '.join(VARIANTS)}, or raw:KEY")


def _rows_rewritten(sets, rewrite, lodo_summary) -> dict[str, Any]:
    """`lodo_summary(sets)` with every item's rows replaced by `rewrite(item, whole, units)` → (whole, units), the
    rows put back afterwards."""
    kept = [(it, it.whole, it.units) for items in sets.values() for it in items]
    for it, w, u in kept:
        it.whole, it.units = rewrite(it, w, u)
    try:
        return lodo_summary(sets)
    finally:
        for it, w, u in kept:
            it.whole, it.units = w, u


def _floored_log(v, f: dict[str, Any], eps: float) -> float:
    """The judge's local_log of raw features `f` with each signal floored at `eps` before the verifier `v` takes their
    geometric mean (OfflineVerifier._local_score, the packaged floor of citefix.verify.judge.vector after it)."""
    g = {**f, "lexical_log": max(math.log(eps), float(f.get("lexical_log", -30.0))),
         "similarity": max(eps, float(f.get("similarity", 0.0) or 0.0))}
    g["local_alignment"] = max(eps, float(f.get("local_alignment", f.get("alignment", 0.0)) or 0.0))
    return vector(v._local_score(g, v.profile_params(f.get("profile"))), {}, g)["local_log"]


GRADED_WORDS = ("invented_share", "invented_pair", "misplaced_word_frac")


def _graded_off(it, whole: np.ndarray, units: np.ndarray, idx: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The item's rows with the columns `idx` at 0 on the whole statement and on any unit that is not atomic."""
    w, u = whole.copy(), units.copy()
    w[idx] = 0.0
    for i, f in enumerate(it.raw_units):
        if not f.get("atomic"):
            u[i, idx] = 0.0
    return w, u


def whole_graded_rows(sets) -> None:
    """Whole statements ranked by the judge as fitted, and by the same models with the graded words-found-nowhere
    features (GRADED_WORDS) held at 0 on the whole statement when it is scored: leave one dataset out, ROC-AUC per set."""
    _reset(sets)
    folds = [n for n in J.HUMAN if n in sets]
    extra = [n for n in J.TRAIN_ONLY if n in sets]
    idx = [J.FEATURES.index(k) for k in GRADED_WORDS]
    rows: dict[str, list[float]] = {"the judge, whole statements": [], "… those three at 0 on the whole statement": []}
    for h in folds:
        m = J.fit(sets, [n for n in folds if n != h] + extra)
        X = np.array([it.whole for it in sets[h]])
        Z = X.copy()
        Z[:, idx] = 0.0
        rows["the judge, whole statements"].append(J.agreement(h, -m.logit(X), sets[h]))
        rows["… those three at 0 on the whole statement"].append(J.agreement(h, -m.logit(Z), sets[h]))
    print("| whole statements, ROC-AUC | " + " | ".join(folds) + " | mean |")
    print("|---|" + "---|" * (len(folds) + 1))
    for k, v in rows.items():
        print(f"| {k} | " + " | ".join(f"{x:.3f}" for x in v) + f" | {np.mean(v):.4f} |")


def whole_own_rows(sets) -> None:
    """Whole statements with weights of their own for the graded words-found-nowhere features (GRADED_WORDS): on a
    whole statement those features move to columns of their own (each bounded to its sign, as the judge's), so that
    the fit, not a rule, says how much a whole text's new words weigh; leave one dataset out, ROC-AUC per set, and the
    weights each fold gave the two copies."""
    idx = [J.FEATURES.index(k) for k in GRADED_WORDS]
    _with_columns(sets, [f"{k} (whole)" for k in GRADED_WORDS], [1] * len(idx),
                  lambda it, f, row: [0.0] * len(idx), lambda it: it.whole[idx].copy())
    for items in sets.values():
        for it in items:
            it.whole[idx] = 0.0
    folds = [n for n in J.HUMAN if n in sets]
    extra = [n for n in J.TRAIN_ONLY if n in sets]
    aucs, weights = [], []
    for h in folds:
        m = J.fit(sets, [n for n in folds if n != h] + extra)
        aucs.append(J.agreement(h, -m.logit(np.array([it.whole for it in sets[h]])), sets[h]))
        weights.append((m.coef[-len(idx):], m.coef[idx]))
    _reset(sets)
    print("| whole statements, ROC-AUC | " + " | ".join(folds) + " | mean |")
    print("|---|" + "---|" * (len(folds) + 1))
    print("| own weights on whole statements | " + " | ".join(f"{x:.3f}" for x in aucs) + f" | {np.mean(aucs):.4f} |")
    print("\n| held-out set | " + " | ".join(f"{k}: whole / units" for k in GRADED_WORDS) + " |")
    print("|---|" + "---|" * len(idx))
    for h, (w, u) in zip(folds, weights):
        print(f"| {h} | " + " | ".join(f"{a:+.2f} / {b:+.2f}" for a, b in zip(w, u)) + " |")


# the names-… variants' columns (run_variant)
NAME_COLUMNS = {"names-partial": ("name partly missing",), "names-partial-any": ("a name partly missing",),
                "names-misplaced": ("names held away from the evidence",),
                "names-partial+misplaced": ("name partly missing", "names held away from the evidence")}
VARIANTS = ("lr", "pooled", "spans", "benign-words", "gbm", "gbm+signals", "lr+signals", "whole-only", "relative", "novel-relative",
            "novel-discount", "short-signals", "novel-signals", "signal-floor", "invented-kinds", "relations",
            "pairs-any", "pairs-share", "pairs-unframed", "pairs-siblings", "length", "graded-atomic", "no-pool", "pool-quarter",
            "no-planted", "raw-alignment", "raw-signals", "pooled+invented-kinds", "pooled+relations", "pooled-held+relations", "attribute-invented",
            "pooled+attribute-invented", "names-partial", "names-partial-any", "names-misplaced",
            "names-partial+misplaced", "unframed", "roles", "roles+signals")
ROLES = ("modifier", "clause", "content", "speaker", "attribute", "condition")

# What a unit is read against (citefix.verify.judge.in_context), compared by --context:
#   whole      the whole text scored as one statement (the shipped judge)
#   signals    the same, but only the signals' part of the logits (intercept, geometric mean, stands in source)
#              drawn in; the checks' findings on the unit keep their full weight
#   units-mean / units-median / units-min   the text's own units' logits, no extra statement to score
#   sentence   the unit's own sentence scored as one statement, where the cache holds the sentences of multi-sentence
#              statements (python -m bench.lodo sentences); the whole statement elsewhere
CONTEXTS = ("whole", "signals", "units-mean", "units-median", "units-min", "sentence")
SIGNAL_PART = ("local_log", "stands_in_source")


def context_rows(sets, shares=(0.25, 0.5, 0.75, 1.0)) -> None:
    """Mean atomic ROC-AUC and the LODO verdict rates (decision points: training/judge.py's rule) with each context."""
    _reset(sets)
    folds = [n for n in J.HUMAN if n in sets]
    extra = [n for n in J.TRAIN_ONLY if n in sets]
    models = {h: J.fit(sets, [n for n in folds if n != h] + extra) for h in folds}
    idx = [J.COLUMNS.index(k) for k in SIGNAL_PART]

    def parts(m, X):
        X = np.atleast_2d(X)
        zs = m.intercept + X[:, idx] @ m.coef[idx]
        return zs, X @ m.coef + m.intercept - zs

    def units(how, c, m, it):
        z = m.logit(it.units)
        if how == "whole":
            return J.in_context(z, float(m.logit(it.whole[None, :])[0]), c)
        if how == "signals":
            zs, zf = parts(m, it.units)
            return zf + J.in_context(zs, float(parts(m, it.whole)[0][0]), c)
        if how == "sentence":
            w = float(m.logit(it.whole[None, :])[0])
            ctx = [float(m.logit(it.sentences[k][None, :])[0])
                   if k is not None and k < len(it.sentences) and it.sentences[k] is not None else w
                   for k in (it.unit_sentence if it.sentences else [None] * len(z))]
            return J.in_context(z, np.array(ctx), c)
        agg = {"units-mean": np.mean, "units-median": np.median, "units-min": np.min}[how]
        return J.in_context(z, float(agg(z)), c)

    with_sentences = {n: sum(bool(it.sentences) for it in sets[n]) for n in folds}
    print("statements with their sentences cached: " + ", ".join(f"{n} {k}" for n, k in with_sentences.items() if k))
    print("\n| context | share | mean atomic ROC-AUC | faithful texts flagged | texts with an error flagged | "
          + " | ".join(folds) + " |")
    print("|---|---|---|---|---|" + "---|" * len(folds))
    for how in CONTEXTS:
        if how == "sentence" and not any(with_sentences.values()):
            continue
        for c in shares:
            oof = {h: J.OOF(models[h].logit(np.array([it.whole for it in sets[h]])),
                            [np.atleast_1d(units(how, c, models[h], it)) for it in sets[h]]) for h in folds}
            aucs = [J.agreement(n, -np.array([u.max() for u in oof[n].units]), sets[n]) for n in folds]
            r = J.lodo_rates(oof, sets)
            ff, bf = [x["faithful_flagged"] for x in r], [x["bad_flagged"] for x in r]
            print(f"| {how} | {c:g} | {np.mean(aucs):.4f} | {np.mean(ff):.3f} | {np.mean(bf):.3f} | "
                  + " | ".join(f"{x:.3f}" for x in aucs) + " |", flush=True)


INVENTED = ("invented_words", "invented_share")


def floor_rows(sets, held: list | None, grid=(0.0, 0.5, 1.0, 1.5, 2.0, 3.0)) -> None:
    """The pooled model with the words-found-nowhere findings held at or above each weight in `grid`, to see whether
    some weight keeps the planted error types while keeping the pooled model's gain on human data. Per weight: the mean
    LODO ROC-AUC and verdict rates on the human sets, the planted dev suite's lowest type (the model trained on every
    set) and, with `held` (the held-out planted split), its lowest type."""
    _reset(sets)
    folds = [n for n in J.HUMAN if n in sets]
    print("| invented weights at least | context share | mean AUC units | mean AUC whole | faithful flagged | "
          "with an error flagged | planted dev: lowest type | planted held-out: lowest type (which) | "
          + " | ".join(folds) + " |")
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(folds))
    for t in grid:
        fitter = pooled_held(t)
        raw = J.lodo(sets, None, fitter)
        floor = J.planted_by_context(sets, raw, None, fitter)
        c = J.choose_context(raw, sets, folds, floor)
        oof = {n: raw[n].in_context(c) for n in folds}
        a, b = J.platt(oof, sets)
        probs = {n: [J._sig(u, a, b) for u in oof[n].units] for n in folds}
        pu, pp = J.choose(probs, sets)
        r = {n: J.rates(sets[n], probs[n], pu, pp) for n in folds}
        units = {n: J.agreement(n, -np.array([u.max() for u in oof[n].units]), sets[n]) for n in folds}
        whole = {n: J.agreement(n, -oof[n].whole, sets[n]) for n in folds}
        low_h = "–"
        if held:
            m = fitter(sets, folds + [n for n in J.TRAIN_ONLY if n in sets])
            det = J.planted_detection(m, held, c, a, b, pu)
            g = min(det, key=det.get)
            low_h = f"{det[g]:.2f} ({g})"
        dev = floor[c]
        print(f"| {t:g} | {c:g} | {np.mean(list(units.values())):.4f} | {np.mean(list(whole.values())):.4f} | "
              f"{np.mean([r[n]['faithful_flagged'] for n in folds]):.3f} | "
              f"{np.mean([r[n]['bad_flagged'] for n in folds]):.3f} | {min(dev.values()) if dev else float('nan'):.2f} | "
              f"{low_h} | " + " | ".join(f"{units[n]:.3f}" for n in folds) + " |", flush=True)


def _joined(items, units, k: int, rng) -> list[tuple[int, np.ndarray]]:
    """Texts of `k` parts put together at random from one set's texts: the faithful ones k at a time (each once), and
    each text with an error beside k − 1 faithful ones (a joined text is faithful only when every part is); each
    part's units with their out-of-fold logits as read in their own text. (bad, unit logits) per joined text."""
    good = [u for it, u in zip(items, units) if not it.bad]
    bad = [u for it, u in zip(items, units) if it.bad]
    rng.shuffle(good)
    out = [(0, np.concatenate(good[i:i + k])) for i in range(0, len(good) - k + 1, k)]
    for j, u in enumerate(bad):
        rest = [good[(j * (k - 1) + i) % len(good)] for i in range(k - 1)] if good and k > 1 else []
        out.append((1, np.concatenate([u, *rest])))
    return out


def length_rows(sets, parts=(1, 2, 4, 8), seed: int = 0) -> None:
    """The verdicts on longer texts put together from the human-labelled ones (_joined), leave one dataset out, at the
    shipped decision rule and at one that holds a text's chance of a false flag to that of a text of typical length:
    a unit of a text of n units is unsupported at the lowest point t at which 1 − (1 − q(t))^n is at most
    1 − (1 − q(t₀))^n₀ (q: the share of the other sets' faithful units at or above t; t₀ the shipped point; n₀ the
    median number of units of the other sets' faithful texts), t₀ for texts of n₀ units or fewer; and the same with
    the bound raised to FF_TARGET where that is higher ("to the target")."""
    folds = [n for n in J.HUMAN if n in sets]
    raw = J.lodo(sets)
    share = J.choose_context(raw, sets, folds)
    rng = np.random.default_rng(seed)
    grid = np.round(np.arange(0.20, 0.991, 0.01), 2)
    res: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for held in folds:
        ctx, a, b, probs = J._held_out(raw, sets, folds, held, share)
        others = list(probs)
        t0, _ = J.choose(probs, sets)
        fu = np.concatenate([p for n in others for it, p in zip(sets[n], probs[n]) if not it.bad])
        n0 = float(np.median([len(p) for n in others for it, p in zip(sets[n], probs[n]) if not it.bad]))
        q = {t: float(np.mean(fu >= t)) for t in grid}
        budget = 1 - (1 - q[t0]) ** n0

        def point(n: int, cap: float) -> float:
            if n <= n0:
                return t0
            return next((t for t in grid if t >= t0 and 1 - (1 - q[t]) ** n <= cap), float(grid[-1]))

        at = {"shipped": lambda n: t0, "by length": lambda n: point(n, budget),
              "by length, to the target": lambda n: point(n, max(budget, J.FF_TARGET))}
        for k in parts:
            texts = _joined(sets[held], ctx[held].units, k, rng)
            for rule, where in at.items():
                flags = [(bad, float(J._sig(u, a, b).max() >= where(len(u)))) for bad, u in texts]
                ff = np.mean([f for bad, f in flags if not bad]) if any(not bad for bad, _ in flags) else np.nan
                bf = np.mean([f for bad, f in flags if bad]) if any(bad for bad, _ in flags) else np.nan
                res.setdefault((k, rule), []).append((ff, bf))
    print("| parts joined | rule | faithful texts flagged (mean over sets) | most on one set | with an error flagged | "
          "balanced accuracy |")
    print("|---|---|---|---|---|---|")
    for (k, rule), v in res.items():
        ff = [x for x, _ in v if x == x]
        bf = [y for _, y in v if y == y]
        print(f"| {k} | {rule} | {np.mean(ff):.3f} | {max(ff):.3f} | {np.mean(bf):.3f} | "
              f"{(1 - np.mean(ff) + np.mean(bf)) / 2:.3f} |")


AGGREGATES = {"min": np.min, "mean": np.mean, "mean of the two": lambda s: (np.mean(s) + np.min(s)) / 2}


def aggregate_rows(sets) -> None:
    """ROC-AUC of a text's score made from its units' scores otherwise than by the weakest (meta-eval's default;
    `check` shows the mean): the judge's out-of-fold support (1 − p, read in context) and each single signal's, by
    the weakest unit, the mean, and the mean of the two; beside them each signal's whole-statement score."""
    folds = [n for n in J.HUMAN if n in sets]
    raw = J.lodo(sets)
    share = J.choose_context(raw, sets, folds)
    rows: dict[str, dict[str, float]] = {}
    for held in folds:
        ctx, a, b, _ = J._held_out(raw, sets, folds, held, share)
        pk, _ = J._packaged_scores(sets[held])
        for an, f in AGGREGATES.items():
            support = [1 - J._sig(u, a, b) for u in ctx[held].units]
            rows.setdefault(f"judge, {an}", {})[held] = J.agreement(held, np.array([f(s) for s in support]), sets[held])
            for sig in J.SIGNALS:
                rows.setdefault(f"{sig}, {an}", {})[held] = J.agreement(
                    held, np.array([f(u) for u in pk[sig][1]]), sets[held])
        for sig in J.SIGNALS:
            rows.setdefault(f"{sig}, whole", {})[held] = J.agreement(held, pk[sig][0], sets[held])
    print("| text score | mean | " + " | ".join(folds) + " |")
    print("|---|---|" + "---|" * len(folds))
    for k, r in rows.items():
        print(f"| {k} | {np.mean(list(r.values())):.4f} | " + " | ".join(f"{r[n]:.3f}" for n in folds) + " |")
    for an in AGGREGATES:
        best = {n: max(r[n] for k, r in rows.items() if not k.startswith("judge")) for n in folds}
        print(f"| judge, {an}: margin over the best single signal in any reading | | "
              + " | ".join(f"{rows[f'judge, {an}'][n] - best[n]:+.3f}" for n in folds) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", required=True, help="the feature cache bench/lodo.py features wrote")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--context", action="store_true", help="compare what a unit is read against instead")
    ap.add_argument("--floor", action="store_true", help="the pooled model with the invented-words findings held "
                    "at or above a weight, for the planted floor")
    ap.add_argument("--whole-graded", action="store_true", help="whole statements ranked with the graded "
                    "words-found-nowhere features held at 0 on them in use")
    ap.add_argument("--whole-own", action="store_true", help="whole statements with weights of their own for the "
                    "graded words-found-nowhere features")
    ap.add_argument("--planted-heldout", default=None, help="a bench/lodo.py cache folder holding the held-out "
                    "planted split (training/judge.py eval's option)")
    ap.add_argument("--held-up", type=float, default=0.5, help="pooled-held+…: the least weight of the "
                    "words-found-nowhere findings")
    ap.add_argument("--lengths", action="store_true", help="the verdicts on longer texts put together from the "
                    "human-labelled ones, at the shipped decision rule and at one by the text's number of units")
    ap.add_argument("--drop", default="", help="judge features held at 0 in every variant, comma-separated (the "
                    "judge without them; the gbm variants ignore it)")
    ap.add_argument("--aggregates", action="store_true", help="a text's score from its units' scores by the weakest, "
                    "the mean, and the mean of the two: ROC-AUC of each, the judge's and each signal's")
    args = ap.parse_args()
    sets = J.load(Path(args.cache))
    if args.aggregates:
        aggregate_rows(sets)
        return
    if args.floor:
        held = J.load(Path(args.planted_heldout)).get("planted") if args.planted_heldout else None
        floor_rows(sets, held)
        return
    if args.context:
        context_rows(sets)
        return
    if args.whole_graded:
        whole_graded_rows(sets)
        return
    if args.whole_own:
        whole_own_rows(sets)
        return
    if args.lengths:
        length_rows(sets)
        return
    folds = [n for n in J.HUMAN if n in sets]
    drop = tuple(k for k in args.drop.split(",") if k)
    if any(k not in J.FEATURES for k in drop):
        raise SystemExit(f"--drop: not a judge feature: {args.drop}; choose from {', '.join(J.FEATURES)}")
    if args.planted_heldout:
        sets[HELD] = J.load(Path(args.planted_heldout))["planted"]
    print("| variant | mean AUC units | mean AUC whole | faithful flagged | with an error flagged | planted held-out, "
          "lowest type | " + " | ".join(f"{n} units / whole" for n in folds) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(folds))
    for name in args.variants.split(","):
        r = run_variant(name.strip(), sets, args.held_up, drop)
        mean = lambda d: float(np.mean(list(d.values())))  # noqa: E731
        cells = " | ".join(f"{r['units'][n]:.3f} / {r['whole'][n]:.3f}" for n in folds)
        det = r.get("planted") or {}
        low = f"{min(det.values()):.2f} ({min(det, key=det.get)})" if det else "–"
        print(f"| {name} | {mean(r['units']):.4f} | {mean(r['whole']):.4f} | {r['ff']:.3f} | {r['bf']:.3f} | {low} | "
              f"{cells} |", flush=True)


if __name__ == "__main__":
    main()
