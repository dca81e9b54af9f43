"""The offline verifier's learned judge: a small calibrated logistic model over a unit's signals and checks.

Its features are the geometric mean of the three signals (lexical coverage, MiniLM token alignment to the evidence,
sentence similarity: the parameter-free "local" combination, on a log scale) and the findings of the hard checks
(invented numbers, dates and names, a name only partly found, contradicted values, polarity and roles, a name put in
another's place, words found nowhere in the sources); none of them decides a verdict alone. Each finding may only
raise the probability, the mean only lower it: on held-out datasets a free weighting of the signals ranked worse than
their plain geometric mean, so the signals are not re-weighted, and the checks' weights are what is learned. Its
weights, its calibration and its two decision points are fitted by ``training/judge.py`` on human-labelled
development data (leave one dataset out) and ship as ``citefix/data/judge.json``.

Its output is the probability that a unit is *not* supported by its source; the verifier reports ``1 - p`` as the
unit's score, so that a higher score still means better supported and every score the product shows keeps its
direction. The verdict: ``unsupported`` at or above the ``unsupported`` probability, ``partial`` ("check this") at or
above the ``partial`` one, ``supported`` below. A cited answer's claim, judged against the passages it cites, is
supported by them below the ``cited`` probability (chosen on claims and their cited evidence, WiCE and
AttributionBench), ``partial`` from there to the ``unsupported`` one.

A judge file may hold a model of its own for a calibration profile (``profiles``): a cited answer's claims, judged
whole against the passages they cite, are scored by a model fitted on claims and their evidence (WiCE and
AttributionBench; the pool's claim–evidence pairs and the planted suite as training data only) and read in no
context (its context share is 0), that reads the geometric mean on a linear scale
(``local_scale``: "linear") and the hard checks, without the graded words-found-nowhere findings, which measure how
abstractive a whole sentence is more than what it invents (docs/quality.md, "A cited answer's claims").
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


# What each feature stands for, with a statement and a source that set it off: the table of checks in the README and
# docs/quality.md is generated from this (python -m training.judge table), and tests/offline/test_judge.py runs every example
# through the verifier and asserts its feature fires on some unit.
@dataclass(frozen=True)
class Feature:
    name: str
    kind: str  # "signal" (pushes toward supported), "check" (a 0/1 finding) or "graded" (a share in [0, 1])
    what: str
    statement: str  # an example that sets it off …
    source: str  # … against this source
    correction: str = ""  # what the offline reviser does with a unit the finding marks unsupported


_BRIDGE = "The new bridge over the River Aln cost £6.3 million. It opened to traffic in May after two years of work."
REGISTRY: tuple[Feature, ...] = (
    Feature("local_log", "signal",
            "support: the geometric mean of lexical coverage, MiniLM token alignment to the evidence and "
            "sentence similarity (log)", "The bridge opened to traffic in May.", _BRIDGE),
    Feature("stands_in_source", "signal",
            "support: the unit's sentence copies or compresses one source sentence, its negations and numbers kept",
            "Councillors voted 9 to 4 in favour of the plan.",
            "The town council approved a plan on Monday. Councillors voted 9 to 4 in favour of the plan, which will "
            "cost £2.4 million."),
    Feature("missing_numbers", "check", "a number or amount the sources do not hold",
            "The Aln bridge cost £9.8 million.", _BRIDGE,
            correction="the evidence's number in the same slot put in its place, else its words are cut"),
    Feature("missing_dates", "check", "a date, month or weekday the sources do not hold",
            "The bridge opened to traffic in June.", _BRIDGE,
            correction="the evidence's date in the same slot put in its place, else its words are cut"),
    Feature("missing_entities", "check", "a name the sources do not hold",
            "Mayor John Smith was delighted with the decision.",
            "Mayor Anna Lee said she was delighted with the decision.",
            correction="the evidence's name in the same slot put in its place, else its words are cut"),
    Feature("partial_name", "graded",
            "a name some of whose words the sources hold and some not: a first name the source does not give for "
            "the surname it names ('Liam Bennett' where it has 'Bob Bennett'), a title or a place name half invented",
            "Coach Liam Bennett praised the players after the win.",
            "Coach Bob Bennett praised the players after the 3-1 win on Saturday.",
            correction="the evidence's name in the same slot put in its place, else its words are cut"),
    Feature("value_conflict", "check", "the evidence sentence holds another value in the same slot",
            "Work would start next spring and take two years.",
            "Work is expected to begin next spring and to take about eighteen months.",
            correction="the evidence's value (or speaker) put in its place"),
    # the polarity finding by its reading (citefix.verify.offline_signals.POLARITY_READINGS): each reading is wrong on
    # faithful text at its own rate, so each has a weight of its own
    Feature("polarity_negation", "check", "the evidence negates the unit's verb, or the unit negates the evidence's "
            "(the same verb, with its other words, stated the other way)", "The council approved the budget on Monday.",
            "The council did not approve the budget on Monday, after a long debate.",
            correction="the evidence's negation put back"),
    Feature("polarity_antonym", "check", "the evidence says the opposite word: an antonym of the same verb, "
            "adjective, relation word or comparative, or of the same thing in another part of speech ('a decrease in "
            "sales' / 'sales increased')", "Sales rose sharply in May.",
            "Sales fell sharply in May, the company said, after a wet spring.",
            correction="the evidence's word put back"),
    Feature("polarity_certainty", "check", "the unit states as certain, or as the whole, what the evidence hedges or "
            "says of a part ('will resign' where the evidence has 'may resign')", "The mayor will resign next year.",
            "The mayor may resign next year, her office said on Friday.",
            correction="the evidence's hedge put back"),
    Feature("role_swap", "check", "who did what to whom is reversed", "Chelsea beat Arsenal 2-1 on Saturday.",
            "Arsenal beat Chelsea 2-1 on Saturday at the Emirates.",
            correction="the two sides swapped back"),
    Feature("name_substitution", "check", "a name put where the evidence sentence, copied word for word, has another",
            "Brecon footage showed the soldier being punched.",
            "The soldier was attacked on a night out in Brecon. CCTV footage showed the soldier being punched, going "
            "to the ground and being beaten.",
            correction="the evidence's name put in its place"),
    Feature("unsourced_negation", "graded", "the unit says 'not', 'no' or 'never' where its evidence has no negation",
            "The bridge did not open to traffic in May.", _BRIDGE,
            correction="its words are cut"),
    Feature("invented_share", "graded",
            "the share of the unit's content words that match no source word (graded); the words that frame a report "
            "('the team discussed', 'the group agreed that') are not counted",
            "Opposition councillor Tom Leary chairs the housing committee.",
            "Opposition councillor Tom Leary voted against the plan.",
            correction="its words are cut"),
    Feature("invented_pair", "graded",
            "a content word and the word it hangs on in the parse, both found nowhere in the sources: a fact the "
            "sources lack, told in words they lack (a paraphrase mostly keeps one word of each pair)",
            "Opposition councillor Tom Leary chairs the housing committee.",
            "Opposition councillor Tom Leary voted against the plan.",
            correction="its words are cut"),
    Feature("misplaced_word_frac", "graded",
            "the share of the unit's words the sources hold only away from its evidence "
            "(graded)", "The depot closed after residents complained about noise from the quarry.",
            "The council approved a plan on Monday to turn the old railway depot into a park. The depot closed in "
            "1987. Most of the money will come from a regional fund, and work is due to start in the spring. The "
            "park will have a playground, a pond and a cycle path along the old tracks. A cafe run by a local "
            "charity is planned for the former ticket office. Several residents complained about noise from the "
            "nearby quarry.",
            correction="its words are cut"),
)
# Removing a check is removing its line above (then refit: python -m training.judge export); the model reads these,
# in order.
FEATURES = tuple(f.name for f in REGISTRY)
# the hard checks whose findings are features (OfflineVerifier.findings), and the graded findings
CHECKS = tuple(f.name for f in REGISTRY if f.kind == "check")
GRADED = tuple(f.name for f in REGISTRY if f.kind == "graded")
# the direction each feature may push the logit of "not supported": a signal only down, a finding only up
SIGNS = tuple(-1 if f.kind == "signal" else 1 for f in REGISTRY)
LOCAL_FLOOR = 1e-3  # the geometric mean is read on a log scale, floored here


def in_context(z: Any, whole: Any, shrink: float) -> Any:
    """A unit's logit of "not supported" read in the context of the whole statement it was cut from: where the unit is
    more suspect than the whole, the difference is drawn in by the share `shrink` (0: the unit alone; 1: never more
    suspect than the whole). A fragment cut from a statement loses its context (a pronoun's antecedent, the other half
    of a coordination, the clause a condition hangs on), and its signals then read doubt the statement as a whole does
    not; most checks find on the whole statement what they find on the unit's words, so an error a check sees keeps
    its weight. Works on floats and on numpy arrays."""
    import numpy as np

    out = np.asarray(z, dtype=float) - shrink * np.maximum(0.0, np.asarray(z, dtype=float) - np.asarray(whole, dtype=float))
    return float(out) if out.ndim == 0 else out


def _share(f: dict[str, Any], key: str) -> float:
    try:
        x = float(f.get(key, 0.0) or 0.0)
    except (TypeError, ValueError):
        return 0.0
    return min(1.0, max(0.0, x)) if math.isfinite(x) else 0.0


def vector(local: float, findings: dict[str, bool], f: dict[str, Any] | None = None,
           linear: bool = False) -> dict[str, float]:
    """The judge's features of one unit: the log of its signals' geometric mean (the "local" combination before any
    cap; with `linear`, the mean less 1 instead, 0 at full support either way), one 0/1 feature per hard check, and the
    graded findings read from its raw features `f`."""
    try:
        x = float(local)
    except (TypeError, ValueError):
        x = 0.0
    if not math.isfinite(x):
        x = 0.0
    f = f or {}
    m = max(LOCAL_FLOOR, min(1.0, x))
    out = {"local_log": m - 1.0 if linear else math.log(m)}
    for k in CHECKS:
        out[k] = 1.0 if findings.get(k) else 0.0
    try:
        words = max(float(f.get("n_words", 0) or 0), float(f.get("clause_words", 0) or 0))
        invented = float(f.get("invented_words", 0) or 0)
    except (TypeError, ValueError):
        words, invented = 0.0, 0.0
    graded = {
        "invented_share": min(1.0, invented / words) if words > 0 and math.isfinite(invented / words) else 0.0,
        "misplaced_word_frac": _share(f, "misplaced_word_frac"),
    }
    # the support signals besides the geometric mean, and the 0/1 readings of the raw features
    graded["stands_in_source"] = 1.0 if f.get("stands_in_source") is True else 0.0
    graded["unsourced_negation"] = 1.0 if _share(f, "neg_unit_only") > 0 else 0.0
    graded["invented_pair"] = 1.0 if _share(f, "invented_pairs") > 0 else 0.0
    graded["partial_name"] = partly_named(f)
    out.update({k: graded[k] for k in FEATURES if k not in out})
    return out


def partly_named(f: dict[str, Any]) -> float:
    """1.0 where a name of the unit is partly found: some of its words missing from the sources, short of the whole
    name the missing_entities finding needs (its raw value is the sum over the unit's names of each one's share of
    words the sources lack); else 0.0."""
    try:
        named = float(f.get("missing_entities", 0) or 0)
    except (TypeError, ValueError):
        return 0.0
    return 1.0 if math.isfinite(named) and 0.0 < named < 1.0 else 0.0


class Judge:
    """The fitted model: standardised features → logit → Platt-calibrated probability of "not supported"."""

    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.features: list[str] = list(spec["features"])
        unknown = [k for k in self.features if k not in FEATURES]
        if unknown:
            raise ValueError(f"judge features unknown to this citefix: {', '.join(unknown)}; refit the judge "
                             "(python -m training.judge export) after changing the registry")
        self.mean = [float(x) for x in spec["mean"]]
        self.scale = [float(x) or 1.0 for x in spec["scale"]]
        self.coef = [float(x) for x in spec["coef"]]
        self.intercept = float(spec["intercept"])
        self.context_shrink = float((spec.get("context") or {}).get("shrink", 0.0))
        if not 0.0 <= self.context_shrink <= 1.0:
            raise ValueError("judge context shrink must lie in [0, 1]")
        scale = spec.get("local_scale", "log")
        if scale not in ("log", "linear"):
            raise ValueError("judge local_scale must be 'log' or 'linear'")
        self.linear = scale == "linear"
        # a model of its own for a calibration profile (a cited answer's claims); none: this one
        self.profiles = {str(k): Judge(v) for k, v in (spec.get("profiles") or {}).items()}
        cal = spec.get("calibration") or {"a": 1.0, "b": 0.0}
        self.cal_a, self.cal_b = float(cal["a"]), float(cal["b"])
        self.fingerprint = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
        th = spec["thresholds"]
        self.unsupported_at = float(th["unsupported"])
        self.partial_at = float(th["partial"])
        # a cited answer's claim against its cited passages: supported below this probability (a judge file without
        # it uses the partial point)
        self.cited_at = float(th.get("cited", self.partial_at))
        if not 0.0 < self.partial_at <= self.unsupported_at < 1.0:
            raise ValueError("judge thresholds must satisfy 0 < partial <= unsupported < 1")
        if not 0.0 < self.cited_at <= self.unsupported_at:
            raise ValueError("judge thresholds must satisfy 0 < cited <= unsupported")

    def for_profile(self, profile: str | None) -> "Judge":
        """The model that judges units under a calibration profile: its own where the file holds one, else this."""
        return self.profiles.get(profile or "default", self)

    def logit(self, local: float, findings: dict[str, bool], f: dict[str, Any] | None = None) -> float:
        x = vector(local, findings, f, self.linear)
        z = self.intercept
        for k, m, s, w in zip(self.features, self.mean, self.scale, self.coef):
            z += w * (x[k] - m) / s
        return z

    def probability(self, local: float, findings: dict[str, bool], f: dict[str, Any] | None = None) -> float:
        """Calibrated probability that the unit, judged alone, is not supported by its source (read in the context of
        its whole text: ``calibrated(in_context(logit, whole text's logit, context_shrink))``)."""
        return self.calibrated(self.logit(local, findings, f))

    def calibrated(self, z: float) -> float:
        """The calibrated probability of "not supported" for a logit of the model."""
        z = max(-50.0, min(50.0, self.cal_a * z + self.cal_b))
        return 1.0 / (1.0 + math.exp(-z))

    def contributions(self, local: float, findings: dict[str, bool], f: dict[str, Any] | None = None,
                      top: int = 3) -> list[tuple[str, float]]:
        """The features that push this unit most toward "not supported": (name, logit contribution), largest first."""
        x = vector(local, findings, f, self.linear)
        parts = [(k, w * (x[k] - m) / s) for k, m, s, w in zip(self.features, self.mean, self.scale, self.coef)]
        return sorted((p for p in parts if p[1] > 0), key=lambda p: -p[1])[:top]


@lru_cache(maxsize=4)
def load_judge(path: str | None = None) -> Judge:
    """The packaged judge (``citefix/data/judge.json``), or one from `path`."""
    if path:
        with open(path, encoding="utf-8") as fh:
            return Judge(json.load(fh))
    text = resources.files("citefix").joinpath("data/judge.json").read_text(encoding="utf-8")
    return Judge(json.loads(text))


def markdown_table(judge: Judge | None = None) -> str:
    """The judge's features as a Markdown table (what each stands for, an example, its weight), and its decision
    points: the table of checks the README and docs/quality.md show (``python -m training.judge table`` prints it)."""
    j = judge or load_judge()
    w = dict(zip(j.features, j.coef))
    c = j.profiles.get("cited_answer")
    wc = dict(zip(c.features, c.coef)) if c is not None else {}
    extra = " weight, a cited answer's claim |" if c is not None else ""
    rows = ["| feature | what it stands for | example: statement (source) | weight (logit) |" + extra + " what refine does |",
            "|---|---|---|---|" + ("---|" if c is not None else "") + "---|"]
    for f in REGISTRY:
        cell = f"{w[f.name]:+.2f}" if f.name in w else "left out"
        cited = (f" {wc[f.name]:+.2f} |" if f.name in wc else " left out |") if c is not None else ""
        src = f.source if len(f.source) <= 60 else f.source[:57].rstrip() + "…"
        rows.append(f"| `{f.name}` | {f.what} | '{f.statement}' ('{src}') | {cell} |{cited} {f.correction or '–'} |")
    rows += ["", f"Intercept {j.intercept:+.2f}; a unit's logit more than its whole text's is drawn toward it by "
                 f"{j.context_shrink:g} of the difference (context share); calibration p = σ({j.cal_a:.3f}·logit "
                 f"{j.cal_b:+.3f}); unsupported at p ≥ {j.unsupported_at:.2f}, partial at p ≥ {j.partial_at:.2f}."]
    if c is not None:
        rows[-1] += (f" A cited answer's claim has a model of its own (the column before last; the geometric mean read "
                     f"{'as the mean less 1' if c.linear else 'on a log scale'}): intercept {c.intercept:+.2f}, "
                     f"calibration p = σ({c.cal_a:.3f}·logit {c.cal_b:+.3f}); supported by its citations at "
                     f"p < {c.cited_at:.2f}, unsupported at p ≥ {c.unsupported_at:.2f}.")
    else:
        rows[-1] += f" A cited answer's claim is supported by its citations at p < {j.cited_at:.2f}."
    return "\n".join(rows)
