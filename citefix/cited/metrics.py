"""Citation recall, precision and CVCP for cited answers: ALiiCE's per-group claims beside ALCE's whole sentences.

How the numbers are computed (METHODS §2):

* **Recall** of a claim (one per citation group; for ALCE one per cited sentence) is 1 when its cited passages,
  judged together, entail it (score >= `threshold`, default 0.5), else 0. A claim citing a passage id the case does
  not have gets recall 0 and the message "passage [7] not found"; its other citations are not judged.
* **Precision** of a claim is 0 when its recall is 0. Otherwise each citation c scores 0 when c alone does not entail
  the claim while the group without c still does (c is *redundant*), else 1 (it entails alone, or the group needs it);
  the claim's precision is the mean. A single citation of a supported claim scores 1 (it is the whole group).
* **F1** is 2PR/(P+R) of the aggregated P and R at each level (never a mean of per-answer F1s).
* **CVCP**: each mark's word position in the cleaned sentence (words before it, so a mark at the end has the sentence's
  word count) divided by the sentence's word count; σ/μ of those positions in each sentence; the mean over sentences.
  A mark is one bracket as written: `[1][2]` is two marks at one position, `[1-3]` one mark. μ = 0 (every mark at the
  very start) gives 0.

Open choices, as settings (defaults first):

* `cvcp_std`: "population" σ (ddof 0; a sentence with one mark gives 0) or "sample" (ddof 1; one-mark sentences then
  have no σ and are skipped).
* `cvcp_sentences`: "cited" (every sentence with at least one mark counts, so all-at-the-end answers score 0) or
  "multi_mark" (only sentences with two or more marks). ALiiCE's published script instead pools character positions
  of all sentences into one σ/μ; we follow the per-sentence definition of the paper.
* `uncited_sentences`: "ignore" (ALiiCE's script: sentences without marks are not claims) or "unsupported" (ALCE's:
  each counts as a claim with recall 0 and no precision).
* `requests`: "one_call" plans every entailment request a claim might need (the group, each citation alone, the group
  without each citation) and sends them in one batched verifier call; "staged" sends the group requests first, then
  only the alone/without requests that a supported group needs (fewer judgements, up to three calls — better for a
  slow LLM judge). Both give the same numbers.

Aggregation: per answer, recall and precision are means over its claims (`precision_by_citation`, the ALCE/ALiiCE
scripts' per-answer figure, divides the summed citation scores by the number of citations instead). Over many
answers, **macro** (the mean of per-answer values, as ALCE and ALiiCE report) is the headline; **micro** pools all
claims of all answers. CVCP over many answers is the mean over all counted sentences.

Requests are keyed by (claim text, cited ids): the same text judged against the same passages is judged once, even
when ALiiCE's whole-sentence unit and ALCE's sentence unit coincide. Verdicts with an error count as not entailing and
are reported.
"""

from __future__ import annotations

import statistics
from typing import Any, Callable, Iterable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from citefix.marks import ParsedAnswer, parse_case
from citefix.models import Case, Evidence, Unit, Verdict
from citefix.verify.base import Verifier, label_for

CitationLabel = Literal["supported", "redundant", "unsupported", "not_found", "not_judged"]
Method = Literal["aliice", "alce"]
Key = tuple[str, tuple[str, ...]]


class MetricsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(default=0.5, ge=0.0, le=1.0, description="A score at or above this entails.")
    requests: Literal["one_call", "staged"] = "one_call"
    uncited_sentences: Literal["ignore", "unsupported"] = "ignore"
    cvcp_std: Literal["population", "sample"] = "population"
    cvcp_sentences: Literal["cited", "multi_mark"] = "cited"


class EntailmentRequest(BaseModel):
    """One judgement to make: does the concatenation of `targets` entail `text`?"""

    model_config = ConfigDict(frozen=True)

    unit_id: str
    text: str
    targets: tuple[str, ...]
    role: Literal["group", "alone", "without"]

    @property
    def key(self) -> Key:
        return (self.text, self.targets)


class CitationVerdict(BaseModel):
    """One citation of one claim."""

    id: str
    label: CitationLabel
    precision: float | None = Field(description="1 or 0 as METHODS defines; None when not judged.")
    alone: float | None = Field(default=None, description="Score of this passage alone.")
    without: float | None = Field(default=None, description="Score of the group without this passage.")
    message: str | None = None


class ClaimScore(BaseModel):
    unit_id: str | None = Field(description="None for an uncited sentence counted as a claim.")
    text: str
    kind: str
    sentence: int | None
    group: int | None
    groups: list[int] = Field(default_factory=list)
    cited: list[str]
    missing: list[str] = Field(default_factory=list)
    recall: float
    score: float | None = Field(default=None, description="Entailment score of the whole group.")
    precision: float | None
    citations: list[CitationVerdict] = Field(default_factory=list)
    evidence: Evidence | None = None
    fallback: str | None = None
    messages: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)


class MethodScores(BaseModel):
    """ALiiCE's (per group) or ALCE's (per sentence) figures for one answer."""

    method: Method
    claims: list[ClaimScore] = Field(default_factory=list)
    n_claims: int = 0
    n_citations: int = 0
    recall: float | None = None
    precision: float | None = None
    f1: float | None = None
    precision_by_citation: float | None = None
    redundant: int = 0
    not_found: int = 0
    uncited_sentences: int = 0
    fallbacks: dict[str, int] = Field(default_factory=dict)
    message: str | None = None


class AnswerCitationScores(BaseModel):
    """Everything computed for one cited answer."""

    case_id: str
    status: Literal["ok", "uncited", "no_claims"] = "ok"
    message: str | None = None
    aliice: MethodScores
    alce: MethodScores
    cvcp: float | None = None
    cvcp_sentences: int = 0
    cited_sentences: int = 0
    sentences: int = 0
    warnings: list[str] = Field(default_factory=list)
    verifier: str = ""
    requests: int = Field(default=0, description="Distinct (text, passages) judgements made.")
    verifier_calls: int = 0
    units: list[Unit] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list, description="Per unit and target, unit_id set to the unit.")
    errors: list[str] = Field(default_factory=list)


class Aggregate(BaseModel):
    recall: float | None = None
    precision: float | None = None
    f1: float | None = None
    n: int = Field(default=0, description="Answers (macro) or claims (micro) behind the figures.")


class CorpusCitationScores(BaseModel):
    headline: Literal["macro"] = "macro"
    answers: int = 0
    scored_answers: int = 0
    uncited_answers: int = 0
    aliice_macro: Aggregate = Field(default_factory=Aggregate)
    aliice_micro: Aggregate = Field(default_factory=Aggregate)
    alce_macro: Aggregate = Field(default_factory=Aggregate)
    alce_micro: Aggregate = Field(default_factory=Aggregate)
    cvcp: float | None = None
    cvcp_sentences: int = 0
    fallbacks: dict[str, int] = Field(default_factory=dict)
    redundant: int = 0
    not_found: int = 0


# --- an entailment function as a Verifier -----------------------------------------------------------------------------


class FunctionVerifier:
    """Wraps `entails(unit, passage_ids) -> score in [0, 1]` as a Verifier (for tests and quick experiments).

    With `text_only=True` the function gets the claim's text instead of the Unit.
    """

    llm = None
    model_name = None

    def __init__(self, entails: Callable[[Any, list[str]], float], *, name: str = "function", threshold: float = 0.5,
                 text_only: bool = False):
        self.entails = entails
        self.text_only = text_only
        self.name = name
        self.threshold = threshold
        self.calls = 0  # verify() calls
        self.pairs = 0  # judgements

    def supported_at(self, profile: str) -> float:
        return self.threshold

    def verify(self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None) -> list[Verdict]:
        self.calls += 1
        out = []
        for k, u in enumerate(units):
            ids = list(targets[k]) if targets is not None and targets[k] else [s.id for s in case.sources]
            self.pairs += 1
            score = float(self.entails(u.text if self.text_only else u, ids))
            out.append(
                Verdict(unit_id=u.id, verifier=self.name, score=score, target=list(ids),
                        label=label_for(score, supported_at=self.threshold))
            )
        return out


# --- planning and running the judgements ------------------------------------------------------------------------------


def _judgeable(u: Unit) -> bool:
    return bool(u.cited) and not u.meta.get("missing")


def plan_requests(units: Iterable[Unit], stage: Literal["all", "group"] = "all") -> list[EntailmentRequest]:
    """The judgements the units need, without duplicates: "group" only the whole-group ones, "all" every one."""
    seen: dict[Key, EntailmentRequest] = {}

    def add(u: Unit, targets: Sequence[str], role) -> None:
        r = EntailmentRequest(unit_id=u.id, text=u.text, targets=tuple(targets), role=role)
        seen.setdefault(r.key, r)

    for u in units:
        if not _judgeable(u):
            continue
        add(u, u.cited, "group")
        if stage == "all" and len(u.cited) > 1:
            for c in u.cited:
                add(u, [c], "alone")
                add(u, [x for x in u.cited if x != c], "without")
    return list(seen.values())


def plan_precision(units: Iterable[Unit], table: dict[Key, Verdict], threshold: float, role: str) -> list[EntailmentRequest]:
    """Staged mode: the alone (then without) requests that supported multi-citation groups still need."""
    seen: dict[Key, EntailmentRequest] = {}
    for u in units:
        if not _judgeable(u) or len(u.cited) < 2 or not _entails(table.get((u.text, tuple(u.cited))), threshold):
            continue
        for c in u.cited:
            alone = (u.text, (c,))
            if role == "alone":
                r = EntailmentRequest(unit_id=u.id, text=u.text, targets=(c,), role="alone")
            elif not _entails(table.get(alone), threshold):
                r = EntailmentRequest(
                    unit_id=u.id, text=u.text, targets=tuple(x for x in u.cited if x != c), role="without"
                )
            else:
                continue
            if r.key not in table:
                seen.setdefault(r.key, r)
    return list(seen.values())


def run_requests(
    requests: Sequence[EntailmentRequest], units: Sequence[Unit], case: Case, verifier: Verifier
) -> dict[Key, Verdict]:
    """One batched verifier call for all requests; verdicts keyed by (text, targets)."""
    if not requests:
        return {}
    by_id = {u.id: u for u in units}
    batch = [by_id[r.unit_id] for r in requests]
    verdicts = verifier.verify(batch, case, targets=[list(r.targets) for r in requests])
    if len(verdicts) != len(requests):
        raise RuntimeError(f"verifier {verifier.name!r} returned {len(verdicts)} verdicts for {len(requests)} units")
    return {r.key: v for r, v in zip(requests, verdicts)}


def _entails(v: Verdict | None, threshold: float) -> bool:
    return v is not None and v.error is None and v.score is not None and v.score >= threshold


def _score(v: Verdict | None) -> float | None:
    return None if v is None else v.score


# --- scoring ----------------------------------------------------------------------------------------------------------


def score_claim(u: Unit, table: dict[Key, Verdict], threshold: float) -> ClaimScore:
    """Recall, precision and per-citation verdicts of one unit from the judgements in `table`."""
    missing = list(u.meta.get("missing") or [])
    base: dict[str, Any] = dict(
        unit_id=u.id, text=u.text, kind=u.kind, sentence=u.sentence, group=u.group,
        groups=list(u.meta.get("groups") or ([u.group] if u.group is not None else [])),
        cited=list(u.cited), missing=missing, fallback=u.meta.get("fallback"),
    )
    if not u.cited:
        return ClaimScore(**base, recall=0.0, precision=None, messages=["the sentence cites no passage"])
    if missing:
        cits: list[CitationVerdict] = [
            CitationVerdict(id=c, label="not_found", precision=0.0, message=f"passage [{c}] not found")
            if c in missing
            else CitationVerdict(id=c, label="not_judged", precision=0.0,
                                 message="not judged: the group cites a passage that is not found")
            for c in u.cited
        ]
        return ClaimScore(**base, recall=0.0, precision=0.0, citations=cits,
                          messages=[f"passage [{c}] not found" for c in missing])
    group = table.get((u.text, tuple(u.cited)))
    errors = [v.error for v in [group] if v is not None and v.error]
    recall = 1.0 if _entails(group, threshold) else 0.0
    cits = []
    if len(u.cited) == 1:
        c = u.cited[0]
        cits.append(CitationVerdict(id=c, label="supported" if recall else "unsupported", precision=recall,
                                    alone=_score(group)))
    else:
        for c in u.cited:
            alone = table.get((u.text, (c,)))
            without = table.get((u.text, tuple(x for x in u.cited if x != c)))
            errors += [v.error for v in (alone, without) if v is not None and v.error]
            if not recall:
                cits.append(CitationVerdict(id=c, label="unsupported", precision=0.0, alone=_score(alone),
                                            without=_score(without)))
            elif _entails(alone, threshold):
                cits.append(CitationVerdict(id=c, label="supported", precision=1.0, alone=_score(alone),
                                            without=_score(without)))
            elif _entails(without, threshold):
                cits.append(CitationVerdict(id=c, label="redundant", precision=0.0, alone=_score(alone),
                                            without=_score(without),
                                            message=f"passage [{c}] adds nothing: the others support the claim"))
            else:
                cits.append(CitationVerdict(id=c, label="supported", precision=1.0, alone=_score(alone),
                                            without=_score(without),
                                            message=f"passage [{c}] supports the claim together with the others"))
    precision = sum(c.precision or 0.0 for c in cits) / len(cits)
    messages = [] if recall else ["the cited passages do not support the claim"]
    return ClaimScore(**base, recall=recall, score=_score(group), precision=precision, citations=cits,
                      evidence=group.evidence if group is not None else None, messages=messages,
                      errors=list(dict.fromkeys(e for e in errors if e)))


def _f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def score_method(
    method: Method, units: Sequence[Unit], parsed: ParsedAnswer, table: dict[Key, Verdict], settings: MetricsSettings
) -> MethodScores:
    claims = [score_claim(u, table, settings.threshold) for u in units]
    uncited = [s for s in parsed.sentences if not s.groups]
    if settings.uncited_sentences == "unsupported":
        for s in uncited:
            claims.append(ClaimScore(unit_id=None, text=s.clean, kind="sentence", sentence=s.index, group=None,
                                     cited=[], recall=0.0, precision=None,
                                     messages=["the sentence cites no passage"]))
        claims.sort(key=lambda c: (c.sentence if c.sentence is not None else -1, c.group if c.group is not None else -1))
    recall = _mean([c.recall for c in claims])
    precision = _mean([c.precision for c in claims if c.precision is not None])
    cit = [v for c in claims for v in c.citations]
    fallbacks: dict[str, int] = {}
    for c in claims:
        if c.fallback:
            fallbacks[c.fallback] = fallbacks.get(c.fallback, 0) + 1
    return MethodScores(
        method=method,
        claims=claims,
        n_claims=len(claims),
        n_citations=len(cit),
        recall=recall,
        precision=precision,
        f1=_f1(precision, recall),
        precision_by_citation=_mean([v.precision or 0.0 for v in cit]),
        redundant=sum(v.label == "redundant" for v in cit),
        not_found=sum(v.label == "not_found" for v in cit),
        uncited_sentences=len(uncited),
        fallbacks=fallbacks,
        message=None if claims else "no checkable units: the answer cites no passage",
    )


def cvcp_values(parsed: ParsedAnswer, settings: MetricsSettings | None = None) -> list[float]:
    """σ/μ of the normalised mark positions, one value per counted sentence."""
    settings = settings or MetricsSettings()
    out: list[float] = []
    for s in parsed.sentences:
        pos = [g.relative_position for g in s.groups for _ in g.marks]
        if not pos or (settings.cvcp_sentences == "multi_mark" and len(pos) < 2):
            continue
        if settings.cvcp_std == "sample":
            if len(pos) < 2:
                continue
            sd = statistics.stdev(pos)
        else:
            sd = statistics.pstdev(pos)
        mu = statistics.fmean(pos)
        out.append(0.0 if mu == 0 else sd / mu)
    return out


def cvcp(parsed: ParsedAnswer, settings: MetricsSettings | None = None) -> float | None:
    """The answer's CVCP: the mean over its counted sentences; None when no sentence counts."""
    return _mean(cvcp_values(parsed, settings))


# --- one answer, many answers -----------------------------------------------------------------------------------------


def score_units(
    case: Case,
    verifier: Verifier,
    *,
    claims: Sequence[Unit],
    sentences: Sequence[Unit],
    parsed: ParsedAnswer | None = None,
    settings: MetricsSettings | None = None,
) -> AnswerCitationScores:
    """Score ready-made ALiiCE claims and ALCE sentence units of one case with batched verifier calls."""
    settings = settings or MetricsSettings()
    parsed = parsed or parse_case(case)
    units = list(claims) + list(sentences)
    by_id: dict[str, Unit] = {}
    for u in units:
        if u.id in by_id and by_id[u.id] is not u:
            raise ValueError(f"unit id {u.id!r} is used twice; claims and sentence units need distinct ids")
        by_id[u.id] = u

    table: dict[Key, Verdict] = {}
    calls = 0

    def run(batch: list[EntailmentRequest]) -> None:
        nonlocal calls
        batch = [r for r in batch if r.key not in table]
        if batch:
            table.update(run_requests(batch, units, case, verifier))
            calls += 1

    if settings.requests == "one_call":
        run(plan_requests(units, "all"))
    else:
        run(plan_requests(units, "group"))
        run(plan_precision(units, table, settings.threshold, "alone"))
        run(plan_precision(units, table, settings.threshold, "without"))

    aliice = score_method("aliice", claims, parsed, table, settings)
    alce = score_method("alce", sentences, parsed, table, settings)
    per_sentence = cvcp_values(parsed, settings)

    # Every unit gets a copy of each verdict it relied on, so a store can trace each figure to its rows.
    verdicts: list[Verdict] = []
    for u in units:
        if not _judgeable(u):
            continue
        keys = [(u.text, tuple(u.cited))]
        if len(u.cited) > 1:
            for c in u.cited:
                keys += [(u.text, (c,)), (u.text, tuple(x for x in u.cited if x != c))]
        for k in dict.fromkeys(keys):
            if k in table:
                verdicts.append(table[k].model_copy(update={"unit_id": u.id, "target": list(k[1])}))

    errors = list(dict.fromkeys(v.error for v in table.values() if v.error))
    status: Literal["ok", "uncited", "no_claims"]
    if not parsed.cited:
        status, message = "uncited", "the answer has no citation marks"
    elif not aliice.claims:
        status, message = "no_claims", "no checkable units"
    else:
        status, message = "ok", None
    return AnswerCitationScores(
        case_id=case.id,
        status=status,
        message=message,
        aliice=aliice,
        alce=alce,
        cvcp=_mean(per_sentence),
        cvcp_sentences=len(per_sentence),
        cited_sentences=sum(1 for s in parsed.sentences if s.groups),
        sentences=len(parsed.sentences),
        warnings=parsed.messages,
        verifier=verifier.name,
        requests=len(table),
        verifier_calls=calls,
        units=units,
        verdicts=verdicts,
        errors=errors,
    )


def score_answer(
    case: Case,
    verifier: Verifier,
    *,
    settings: MetricsSettings | None = None,
    claim_decomposer=None,
    sentence_decomposer=None,
) -> AnswerCitationScores:
    """Parse, cut claims (ALiiCE) and sentences (ALCE), judge in one batched call, and score one cited answer."""
    return score_answers([case], verifier, settings=settings, claim_decomposer=claim_decomposer,
                         sentence_decomposer=sentence_decomposer)[0]


def score_answers(
    cases: Sequence[Case],
    verifier: Verifier,
    *,
    settings: MetricsSettings | None = None,
    claim_decomposer=None,
    sentence_decomposer=None,
) -> list[AnswerCitationScores]:
    """score_answer for many cases, with one spaCy batch over all of them (one verifier call per case)."""
    from citefix.decompose.claims import ClaimDecomposer, SentenceDecomposer

    claim_decomposer = claim_decomposer or ClaimDecomposer()
    sentence_decomposer = sentence_decomposer or SentenceDecomposer()
    parsed = [parse_case(c) for c in cases]
    claim_units = claim_decomposer.units_many(cases, parsed)
    out = []
    for case, p, cu in zip(cases, parsed, claim_units):
        su = sentence_decomposer.units(case, p)
        out.append(score_units(case, verifier, claims=cu, sentences=su, parsed=p, settings=settings))
    return out


def _macro(answers: Sequence[MethodScores]) -> Aggregate:
    r = _mean([a.recall for a in answers if a.recall is not None])
    p = _mean([a.precision for a in answers if a.precision is not None])
    return Aggregate(recall=r, precision=p, f1=_f1(p, r), n=sum(1 for a in answers if a.recall is not None))


def _micro(answers: Sequence[MethodScores]) -> Aggregate:
    claims = [c for a in answers for c in a.claims]
    r = _mean([c.recall for c in claims])
    p = _mean([c.precision for c in claims if c.precision is not None])
    return Aggregate(recall=r, precision=p, f1=_f1(p, r), n=len(claims))


def aggregate(answers: Sequence[AnswerCitationScores], settings: MetricsSettings | None = None) -> CorpusCitationScores:
    """Corpus figures: macro over answers (headline) and micro over claims, for ALiiCE and ALCE; CVCP over sentences.

    CVCP needs the per-sentence values, which each answer keeps only as a mean: it is recomputed as the
    sentence-weighted mean of the answers' CVCPs (the same number).
    """
    fallbacks: dict[str, int] = {}
    for a in answers:
        for k, n in a.aliice.fallbacks.items():
            fallbacks[k] = fallbacks.get(k, 0) + n
    weighted = [(a.cvcp, a.cvcp_sentences) for a in answers if a.cvcp is not None and a.cvcp_sentences]
    n_sent = sum(n for _, n in weighted)
    return CorpusCitationScores(
        answers=len(answers),
        scored_answers=sum(1 for a in answers if a.aliice.recall is not None),
        uncited_answers=sum(1 for a in answers if a.status == "uncited"),
        aliice_macro=_macro([a.aliice for a in answers]),
        aliice_micro=_micro([a.aliice for a in answers]),
        alce_macro=_macro([a.alce for a in answers]),
        alce_micro=_micro([a.alce for a in answers]),
        cvcp=(sum(v * n for v, n in weighted) / n_sent) if n_sent else None,
        cvcp_sentences=n_sent,
        fallbacks=fallbacks,
        redundant=sum(a.aliice.redundant for a in answers),
        not_found=sum(a.aliice.not_found for a in answers),
    )


__all__ = [
    "Aggregate", "AnswerCitationScores", "CitationVerdict", "ClaimScore", "CorpusCitationScores", "EntailmentRequest",
    "FunctionVerifier", "MethodScores", "MetricsSettings", "aggregate", "cvcp", "cvcp_values", "plan_precision",
    "plan_requests", "run_requests", "score_answer", "score_answers", "score_claim", "score_method", "score_units",
]
