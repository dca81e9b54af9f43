"""Cited answers end to end: parse the marks, cut claims, judge them, score them, and fill an Evaluation.

`evaluate_cited` is what `citefix.evaluate.evaluate` calls for a case of kind "cited_answer". It runs ALiiCE (one
claim per citation group, citefix.decompose.claims) and ALCE (one unit per cited sentence) over the same batched
verifier calls (citefix.cited.metrics.score_units) and puts everything a view needs into the Evaluation, so a stored
round reprints identically (`citefix show`) and the TUI can paint it:

* **units** — the ALiiCE claims (ids u1, u2, …; kind "claim", or "sentence" for a one-group sentence or a fallback)
  followed by the ALCE sentence units (ids s1, s2, …; kind "sentence"). `meta["method"]` is "aliice" or "alce";
  `meta["pieces"]` is the list of `[start, end]` stretches of the answer text the unit is cut from (marks excluded).
* **verdicts** — per unit, its own judgement against its group's passages (`target` = the group's ids,
  `details["role"]` = "unit" for a claim, "sentence" for an ALCE unit); per cited passage, a verdict with
  `target` = [that id] and `details["role"]` = "citation" (label "supported" when the citation earns precision 1,
  "unsupported" when it is redundant or the claim is unsupported, "error" when the passage is not found;
  `details["citation"]` is the fine label: supported / redundant / unsupported / not_found / not_judged); and the
  remaining "group without c" judgements precision rests on (`details["role"]` = "without"). `Evaluation.verdict_for`
  returns a claim's own ("unit") verdict, so painting and `Evaluation.unsupported` see ALiiCE claims only; ALCE units
  are kept for comparison and the report.
* **score** — the headline is the mean support score of the ALiiCE claims (each claim's entailment score against
  its group's passages; a claim citing a passage that is not found counts 0). Like a summary's unit mean it is
  continuous, so refinement rounds compare on it; the binary figures are in `scores`: aliice_recall,
  aliice_precision, aliice_f1, cvcp, alce_recall, alce_precision, alce_f1 (and unit_mean = score).
* **metrics["citations"]** — see `citations_metrics` (keys are stable: refinement reads "groups").
* **metrics["support"]** — full / partial / none per statement (an ALCE sentence; its atomic units are its ALiiCE
  claims) and per statement–citation pair (the claims that cite the passage, judged against it alone). A unit is
  supported at a score >= the entailment threshold; all units supported → full; none supported (and none judged
  partial by the verifier) → none; otherwise partial (citefix.cited.support.SupportSettings: full_at 1.0, none_at
  0.0).
* **status** — "ok"; "uncited" when the answer has no citation mark at all (score None, a message saying so);
  "no_units" when nothing could be cut; "error" when every claim's judgement failed. Parse problems (malformed marks,
  "passage [7] not found") and verifier errors are listed in `errors`; they never raise.

`summarise(evaluations)` aggregates many answers (macro and micro ALiiCE/ALCE, CVCP, fallbacks, uncited answers,
passages not found) for `citefix check FILE` with several cited answers.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Literal, Sequence, cast

from citefix.cited.metrics import (
    AnswerCitationScores,
    ClaimScore,
    MethodScores,
    MetricsSettings,
    aggregate,
    cvcp_values,
    score_units,
)
from citefix.cited.support import LEVEL_VALUE, PairSupport, SupportSettings, support_from_verdicts
from citefix.decompose.base import Decomposer
from citefix.events import Event
from citefix.marks import ParsedAnswer, Sentence, parse_case
from citefix.models import Case, Evaluation, Unit, Verdict
from citefix.verify.base import Verifier

ALIICE: Literal["aliice"] = "aliice"
ALCE: Literal["alce"] = "alce"
UNCITED_MESSAGE = "uncited answer: it carries no citation marks, so no claim can be checked against a passage"


def _noop(event: str, data: dict[str, Any]) -> None:
    pass


# --- settings ---------------------------------------------------------------------------------------------------------


def verifier_threshold(verifier: Verifier, profile: str = "cited_answer") -> float:
    """The score at which the verifier itself calls a unit of a cited answer supported (so metrics and labels agree):
    under the verifier's calibration profile for cited answers when it has one; 0.5 if it has no threshold."""
    return float(verifier.supported_at(profile))


def metrics_settings_for(verifier: Verifier) -> MetricsSettings:
    """Metric settings for a verifier: its own threshold; "staged" requests for an LLM judge (fewer calls, same
    numbers), one batched call otherwise."""
    staged = verifier.llm is not None
    return MetricsSettings(threshold=verifier_threshold(verifier), requests="staged" if staged else "one_call")


# --- decomposers ------------------------------------------------------------------------------------------------------


def _claim_units(case: Case, parsed: ParsedAnswer, decomposer: Decomposer) -> tuple[list[Unit], str, list[str]]:
    """ALiiCE claims (or ALCE sentences when the sentence decomposer was asked for), their decomposer's name and
    warnings. Any other decomposer (ACUs, clauses) cannot cut a cited answer: ALiiCE is used, with a warning.
    A decomposer under ALiiCE's or ALCE's name (the refinement judge's fixed units) takes the parse as they do."""
    from citefix.decompose.claims import ClaimDecomposer, SentenceDecomposer

    name = decomposer.name
    warnings: list[str] = []
    if isinstance(decomposer, SentenceDecomposer) or name == "alce-sentence":
        units = cast(Any, decomposer).units(case, parsed)
        # The metrics need claims and sentence units to have distinct ids.
        return [u.model_copy(update={"id": "u" + u.id[1:]}) for u in units], name, warnings
    if not (isinstance(decomposer, ClaimDecomposer) or name == ALIICE):
        warnings.append(f"decomposer {name or type(decomposer).__name__!r} does not cut cited answers; "
                        "used the ALiiCE claim extractor (aliice)")
        decomposer = ClaimDecomposer()
    return cast(Any, decomposer).units(case, parsed), decomposer.name, warnings


def _pairs(pieces: Any, unit: Unit) -> list[list[int]]:
    """meta["pieces"] as [start, end] pairs (the decomposer gives {start, end, text}; views read pairs)."""
    out = []
    for p in pieces or []:
        if isinstance(p, dict):
            out.append([int(p["start"]), int(p["end"])])
        elif isinstance(p, (list, tuple)) and len(p) >= 2:
            out.append([int(p[0]), int(p[1])])
    if not out and unit.has_span:
        out.append([cast(int, unit.start), cast(int, unit.end)])  # has_span: both set
    return out


def _tag(units: Sequence[Unit], method: str) -> list[Unit]:
    return [u.model_copy(update={"meta": {**u.meta, "method": method, "pieces": _pairs(u.meta.get("pieces"), u)}})
            for u in units]


# --- verdicts ---------------------------------------------------------------------------------------------------------


def _index(verdicts: Iterable[Verdict]) -> dict[tuple[str, tuple[str, ...]], Verdict]:
    out: dict[tuple[str, tuple[str, ...]], Verdict] = {}
    for v in verdicts:
        out.setdefault((v.unit_id, tuple(v.target)), v)
    return out


def _unit_verdicts(unit: Unit, claim: ClaimScore, table: dict, method: str, verifier_name: str) -> list[Verdict]:
    """The unit's own verdict, one per cited passage, and the other judgements its precision rests on."""
    role = "unit" if method == ALIICE else "sentence"
    cited = tuple(unit.cited)
    common = {"method": method}
    out: list[Verdict] = []
    group = table.get((unit.id, cited))
    own_details = {**common, "role": role, "recall": claim.recall, "precision": claim.precision}
    if claim.missing:
        msg = "; ".join(f"passage [{m}] not found" for m in claim.missing)
        out.append(Verdict(unit_id=unit.id, verifier=verifier_name, score=0.0, label="unsupported", target=list(cited),
                           details={**own_details, "not_found": list(claim.missing), "reason": msg}))
    elif group is not None:
        out.append(group.model_copy(update={"target": list(cited), "details": {**group.details, **own_details}}))
    seen = {cited}
    for c in claim.citations:
        raw = table.get((unit.id, (c.id,))) if len(cited) > 1 else group
        d = {**common, "role": "citation", "citation": c.label, "precision": c.precision, "alone": c.alone,
             "without": c.without}
        if c.message:
            d["message"] = c.message
        if c.label == "not_found":  # a finding, not a failed check: the mark cites no passage, so no support
            d["message"] = f"[{c.id}] cites no passage"
            out.append(Verdict(unit_id=unit.id, verifier=verifier_name, score=0.0, label="unsupported",
                               target=[c.id], details=d))
        elif c.label == "not_judged" or raw is None:
            out.append(Verdict(unit_id=unit.id, verifier=verifier_name, score=None, label="error", target=[c.id],
                               details=d, error=c.message or "not judged"))
        else:
            d["alone_label"] = raw.label
            label = "error" if raw.error else ("supported" if c.label == "supported" else "unsupported")
            out.append(raw.model_copy(update={"target": [c.id], "label": label, "details": {**raw.details, **d}}))
        seen.add((c.id,))
    for (uid, target), v in table.items():  # "the group without c" judgements not already listed
        if uid == unit.id and target not in seen:
            seen.add(target)
            out.append(v.model_copy(update={"details": {**v.details, **common, "role": "without"}}))
    return out


def _alone(unit: Unit, c: str, table: dict) -> Verdict | None:
    """The unit judged against passage c alone (its group judgement when c is its only citation)."""
    cited = tuple(unit.cited)
    return table.get((unit.id, (c,) if len(cited) > 1 else cited))


# --- metrics dicts ----------------------------------------------------------------------------------------------------


def _claim_row(claim: ClaimScore, unit: Unit | None) -> dict[str, Any]:
    row = claim.model_dump(mode="json")
    row["claim"] = claim.text
    row["ids"] = list(claim.cited)
    row["start"] = unit.start if unit else None
    row["end"] = unit.end if unit else None
    row["pieces"] = unit.meta.get("pieces", []) if unit else []
    row["word"] = unit.meta.get("word") if unit else None
    for c in row["citations"]:
        c["redundant"] = c["label"] == "redundant"
        c["supports"] = c["label"] == "supported"
    return row


def _figures(m: MethodScores) -> dict[str, Any]:
    return m.model_dump(mode="json", exclude={"claims"})


def _sentence_cvcp(parsed: ParsedAnswer, s: Sentence, settings: MetricsSettings) -> float | None:
    vals = cvcp_values(ParsedAnswer(text=parsed.text, sentences=[s]), settings)
    return vals[0] if vals else None


def citations_metrics(
    parsed: ParsedAnswer,
    scores: AnswerCitationScores,
    claims: Sequence[Unit],
    sentences: Sequence[Unit],
    settings: MetricsSettings,
    levels: dict[int, str | None],
) -> dict[str, Any]:
    """metrics["citations"]: everything the report and refinement need, JSON-able. Keys:

    status, message, verifier, threshold, settings — how it was judged;
    aliice, alce — answer figures (recall, precision, f1, precision_by_citation, n_claims, n_citations, redundant,
      not_found, uncited_sentences, fallbacks, message);
    cvcp, cvcp_sentences, cited_sentences, n_sentences;
    groups — one row per ALiiCE claim: unit_id, claim (= text), kind, sentence, group, groups (citation group indices
      it covers), ids (= cited), missing, recall, score, precision, citations [{id, label, precision, alone, without,
      message, redundant, supports}], evidence, fallback, messages, errors, start, end, pieces, word;
    alce_sentences — the same rows for ALCE's sentence units;
    sentences — one row per sentence: index, start, end, text, clean, words, cvcp, support, claims (unit ids),
      alce (unit id or None), fallback, groups [{index, raw, ids, missing, start, end, word_position, position,
      at_end, unit_id}];
    redundant — [{unit_id, id, claim}]; not_found — the "passage [7] not found" messages;
    fallbacks — {count, reasons {reason: n}, sentences [index]}; warnings (parse), errors (verifier);
    requests, verifier_calls — distinct judgements made and verifier calls.
    """
    by_id = {u.id: u for u in list(claims) + list(sentences)}
    groups = [_claim_row(c, by_id.get(c.unit_id or "")) for c in scores.aliice.claims]
    alce_rows = [_claim_row(c, by_id.get(c.unit_id or "")) for c in scores.alce.claims]
    owner: dict[int, str] = {}
    for c in scores.aliice.claims:
        for g in c.groups:
            owner.setdefault(g, c.unit_id or "")
    sentence_rows = []
    for s in parsed.sentences:
        mine = [c for c in scores.aliice.claims if c.sentence == s.index]
        alce = next((c.unit_id for c in scores.alce.claims if c.sentence == s.index), None)
        sentence_rows.append({
            "index": s.index, "start": s.start, "end": s.end, "text": s.text, "clean": s.clean,
            "words": s.word_count, "cvcp": _sentence_cvcp(parsed, s, settings) if s.groups else None,
            "support": levels.get(s.index), "claims": [c.unit_id for c in mine], "alce": alce,
            "fallback": next((c.fallback for c in mine if c.fallback), None),
            "groups": [{"index": g.index, "raw": "".join(m.raw for m in g.marks), "ids": list(g.ids),
                        "missing": list(g.missing), "start": g.start, "end": g.end, "word_position": g.word_position,
                        "position": g.relative_position, "at_end": g.at_end, "unit_id": owner.get(g.index)}
                       for g in s.groups],
        })
    redundant = [{"unit_id": c.unit_id, "id": v.id, "claim": c.text}
                 for c in scores.aliice.claims for v in c.citations if v.label == "redundant"]
    reasons = dict(scores.aliice.fallbacks)
    return {
        "status": scores.status,
        "message": scores.message,
        "verifier": scores.verifier,
        "threshold": settings.threshold,
        "settings": settings.model_dump(mode="json"),
        "aliice": _figures(scores.aliice),
        "alce": _figures(scores.alce),
        "cvcp": scores.cvcp,
        "cvcp_sentences": scores.cvcp_sentences,
        "cited_sentences": scores.cited_sentences,
        "n_sentences": scores.sentences,
        "groups": groups,
        "alce_sentences": alce_rows,
        "sentences": sentence_rows,
        "redundant": redundant,
        "not_found": [f"passage [{m}] not found" for m in parsed.missing],
        "fallbacks": {"count": sum(reasons.values()), "reasons": reasons,
                      "sentences": sorted(dict.fromkeys(c.sentence for c in scores.aliice.claims if c.fallback
                                                        and c.sentence is not None))},
        "warnings": list(scores.warnings),
        "errors": list(scores.errors),
        "requests": scores.requests,
        "verifier_calls": scores.verifier_calls,
    }


def support_metrics(
    claims: Sequence[Unit], sentences: Sequence[Unit], verdicts: Sequence[Verdict], table: dict,
    settings: SupportSettings,
) -> tuple[dict[str, Any], dict[int, str | None]]:
    """metrics["support"]: {settings, statements [PairSupport + sentence], pairs [PairSupport + sentence],
    counts {full, partial, none}}, and the level of each sentence by index."""
    # A claim citing a passage that is not found counts as unsupported (its verdict: score 0).
    own = {v.unit_id: v for v in verdicts if v.details.get("role") == "unit"}
    statements, pairs = [], []
    levels: dict[int, str | None] = {}
    for su in sentences:
        atoms = [u for u in claims if u.sentence == su.sentence]
        st = support_from_verdicts([own[u.id] for u in atoms if u.id in own], settings, statement_id=su.id)
        gone = list(dict.fromkeys(m for u in atoms for m in (u.meta.get("missing") or [])))
        if gone:  # counted as no support, and said
            note = "; ".join(f"[{m}] cites no passage" for m in gone)
            st = st.model_copy(update={"unit_ids": [u.id for u in atoms],
                                       "message": f"{st.message}; {note}" if st.message else note})
        statements.append({"sentence": su.sentence, **st.model_dump(mode="json")})
        levels[cast(int, su.sentence)] = st.level  # a sentence unit knows its sentence
        cites = list(dict.fromkeys(c for u in atoms for c in u.cited))
        for c in cites:
            mine = [u for u in atoms if c in u.cited]
            vs = [v for u in mine if (v := _alone(u, c, table)) is not None]
            if any(c in (u.meta.get("missing") or []) for u in mine):
                p = PairSupport(statement_id=su.id, citation=c, level="none", value=LEVEL_VALUE["none"],
                                unit_ids=[u.id for u in mine], units=len(mine), supported=0, share=0.0,
                                unsupported_ids=[u.id for u in mine], message=f"[{c}] cites no passage")
            elif not vs:
                p = PairSupport(statement_id=su.id, citation=c, level=None, unit_ids=[u.id for u in mine],
                                message="not judged: the claim cites a passage that is not found")
            else:
                p = support_from_verdicts(vs, settings, statement_id=su.id, citation=c)
            pairs.append({"sentence": su.sentence, **p.model_dump(mode="json")})
    counts = {lv: sum(1 for s in statements if s["level"] == lv) for lv in ("full", "partial", "none")}
    return ({"settings": settings.model_dump(mode="json"), "statements": statements, "pairs": pairs,
             "counts": counts}, levels)


# --- a mis-cited claim's passage -------------------------------------------------------------------------------------

ELSEWHERE_PASSAGES = 3  # uncited passages a mis-cited claim is checked against (those sharing most of its words)


def supported_elsewhere(case: Case, claims: Sequence[Unit], scored: Sequence[ClaimScore], verifier: Verifier,
                        threshold: float, limit: int = ELSEWHERE_PASSAGES) -> dict[str, list[str]]:
    """For each claim that its own marks do not support (ALiiCE recall 0, every cited passage found), the passages it
    does not cite that do support it, best first: checked by the same verifier against the `limit` uncited passages
    that share most of its content words (one batch; a verifier error leaves a passage out)."""
    from citefix.decompose.align import content_tokens

    recall = {c.unit_id: c.recall for c in scored if c.unit_id}
    words_of = {s.id: {w for w, _, _ in content_tokens(s.text)} for s in case.sources}
    batch: list[Unit] = []
    targets: list[list[str]] = []
    for u in claims:
        if not u.cited or u.meta.get("missing") or recall.get(u.id) != 0:
            continue
        mine = {w for w, _, _ in content_tokens(u.text)}
        ranked = sorted(((len(mine & words_of[s.id]), s.id) for s in case.sources if s.id not in u.cited),
                        key=lambda t: -t[0])
        for shared, sid in ranked[:limit]:
            if shared:
                batch.append(u)
                targets.append([sid])
    if not batch:
        return {}
    found: dict[str, list[tuple[float, str]]] = {}
    for u, t, v in zip(batch, targets, verifier.verify(batch, case, targets=targets)):
        if v.error is None and v.score is not None and v.score >= threshold:
            found.setdefault(u.id, []).append((v.score, t[0]))
    return {uid: [sid for _, sid in sorted(hits, key=lambda h: -h[0])] for uid, hits in found.items()}


# --- evaluate ---------------------------------------------------------------------------------------------------------


def evaluate_cited(
    case: Case,
    *,
    decomposer: Decomposer,
    verifier: Verifier,
    on_event: Event | None = None,
    settings: MetricsSettings | None = None,
    support_settings: SupportSettings | None = None,
) -> Evaluation:
    """Evaluate one cited answer (see the module doc for what the Evaluation holds). Never raises on bad marks,
    unknown passages or an uncited answer: they are reported."""
    from citefix.decompose.claims import SentenceDecomposer

    on_event = on_event or _noop
    settings = settings or metrics_settings_for(verifier)
    support_settings = support_settings or SupportSettings(supported_at=settings.threshold)
    parsed = parse_case(case)
    on_event("decompose_started", {"decomposer": decomposer.name})
    claims, dec_name, warnings = _claim_units(case, parsed, decomposer)
    sentences = SentenceDecomposer().units(case, parsed)
    on_event("units_ready", {"n": len(claims)})

    scores = score_units(case, verifier, claims=claims, sentences=sentences, parsed=parsed, settings=settings)
    on_event("units_scored", {"n": scores.requests})
    v_name = verifier.name
    claims, sentences = _tag(claims, ALIICE), _tag(sentences, ALCE)
    table = _index(scores.verdicts)

    verdicts: list[Verdict] = []
    for method, units, mscores in ((ALIICE, claims, scores.aliice), (ALCE, sentences, scores.alce)):
        by_unit = {c.unit_id: c for c in mscores.claims if c.unit_id}
        for u in units:
            if u.id in by_unit:
                verdicts.extend(_unit_verdicts(u, by_unit[u.id], table, method, v_name))

    support, levels = support_metrics(claims, sentences, verdicts, table, support_settings)
    ev = Evaluation(case_id=case.id, kind="cited_answer", text=case.text, units=claims + sentences, verdicts=verdicts,
                    decomposer=dec_name, verifier=v_name)
    ev.metrics["citations"] = citations_metrics(parsed, scores, claims, sentences, settings, levels)
    ev.metrics["support"] = support
    # a claim its own marks do not support, checked against the passages it does not cite: "supported by [2]"
    elsewhere = supported_elsewhere(case, claims, scores.aliice.claims, verifier, settings.threshold)
    for g in ev.metrics["citations"].get("groups") or []:
        if g.get("unit_id") in elsewhere:
            g["supported_by"] = elsewhere[g["unit_id"]]
    ev.errors = list(dict.fromkeys(warnings + list(scores.warnings)
                                   + [f"{c.unit_id}: {e}" for c in scores.aliice.claims for e in c.errors]))
    ev.models = [verifier.llm.model] if verifier.llm is not None and verifier.llm.model else []

    ev.scores = {
        "aliice_recall": scores.aliice.recall, "aliice_precision": scores.aliice.precision,
        "aliice_f1": scores.aliice.f1, "cvcp": scores.cvcp, "alce_recall": scores.alce.recall,
        "alce_precision": scores.alce.precision, "alce_f1": scores.alce.f1,
    }
    if scores.status == "uncited":
        ev.status, ev.message = "uncited", UNCITED_MESSAGE
        return ev
    if not claims:
        ev.status, ev.message = "no_units", "no checkable units: the answer cites no passage"
        return ev
    claim_scores = []
    for c in scores.aliice.claims:
        if c.missing:
            claim_scores.append(0.0)
        elif c.score is not None and not c.errors:
            claim_scores.append(c.score)
    if not claim_scores:
        ev.status = "error"
        first = next((e for c in scores.aliice.claims for e in c.errors), None) or cast("list[str | None]", scores.errors[:1] or [None])[0]
        ev.message = "no claim could be verified: " + (first or "unknown error")
        return ev
    ev.score = statistics.fmean(claim_scores)
    ev.scores["unit_mean"] = ev.score
    return ev


# --- many answers -----------------------------------------------------------------------------------------------------


def answer_scores(ev: Evaluation) -> AnswerCitationScores | None:
    """Rebuild the answer's metric object from a (stored) Evaluation; None when it carries no citation metrics."""
    m = ev.metrics.get("citations") if isinstance(ev.metrics, dict) else None
    if not isinstance(m, dict) or "aliice" not in m:
        return None

    def method(name: Literal["aliice", "alce"], rows: list[dict]) -> MethodScores:
        fig = dict(m.get(name) or {})
        fig.pop("method", None)
        return MethodScores(method=name, claims=[ClaimScore.model_validate(r) for r in rows], **fig)

    return AnswerCitationScores(
        case_id=ev.case_id, status=m.get("status") or "ok", message=m.get("message"),
        aliice=method(ALIICE, m.get("groups") or []), alce=method(ALCE, m.get("alce_sentences") or []),
        cvcp=m.get("cvcp"), cvcp_sentences=m.get("cvcp_sentences") or 0, cited_sentences=m.get("cited_sentences") or 0,
        sentences=m.get("n_sentences") or 0, warnings=m.get("warnings") or [], verifier=m.get("verifier") or "",
        requests=m.get("requests") or 0, verifier_calls=m.get("verifier_calls") or 0, errors=m.get("errors") or [],
    )


def summarise(evaluations: Iterable[Evaluation]) -> dict[str, Any]:
    """Corpus figures over the cited answers among `evaluations`: metrics.aggregate (macro = mean of per-answer
    values, the headline; micro = pooled claims) for ALiiCE and ALCE, CVCP over sentences, plus counts.

    Keys: answers, scored_answers, uncited_answers, aliice_macro, aliice_micro, alce_macro, alce_micro
    ({recall, precision, f1, n}), cvcp, cvcp_sentences, fallbacks {reason: n}, fallback_count, redundant,
    not_found (citations to passages not found), not_found_answers, uncited_ids, error_answers, claims, citations,
    sentences, cited_sentences, support {full, partial, none}, score (mean headline score), verifier.
    """
    evs = [e for e in evaluations if e.kind == "cited_answer"]
    answers = [a for a in (answer_scores(e) for e in evs) if a is not None]
    agg = aggregate(answers).model_dump(mode="json")
    support = {"full": 0, "partial": 0, "none": 0}
    for e in evs:
        for k, n in ((e.metrics.get("support") or {}).get("counts") or {}).items():
            support[k] = support.get(k, 0) + n
    heads = [e.score for e in evs if e.score is not None]
    agg.update(
        fallback_count=sum(agg["fallbacks"].values()),
        not_found_answers=sum(1 for a in answers if a.aliice.not_found),
        uncited_ids=[a.case_id for a in answers if a.status == "uncited"],
        error_answers=sum(1 for e in evs if e.status == "error"),
        claims=sum(a.aliice.n_claims for a in answers),
        citations=sum(a.aliice.n_citations for a in answers),
        sentences=sum(a.sentences for a in answers),
        cited_sentences=sum(a.cited_sentences for a in answers),
        support=support,
        score=statistics.fmean(heads) if heads else None,
        verifier=", ".join(dict.fromkeys(e.verifier for e in evs if e.verifier)),
    )
    return agg


__all__ = ["ALCE", "ALIICE", "UNCITED_MESSAGE", "answer_scores", "citations_metrics", "evaluate_cited",
           "metrics_settings_for", "summarise", "support_metrics", "verifier_threshold"]
