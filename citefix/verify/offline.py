"""The offline default verifier: no LLM, only the packaged spaCy model and MiniLM encoder.

Signals per unit, against the union of its target sources (citefix.verify.offline_signals):

* lexical — numbers (normalised: "3.08 million", "£45m", "1,000", "three"), month/weekday names, named entities and
  content lemmas of the unit that the sources do not contain, and a negation mismatch with the evidence. Each miss
  multiplies the score by a penalty: `lexical = exp(-Σ weight·misses)`.
* alignment — BERTScore-style precision: every unit token (MiniLM, in context) takes its best cosine against the
  source's tokens (and, as local alignment, against the evidence region's); idf-weighted mean, rescaled by a baseline.
* similarity — mean-pooled MiniLM cosine between the unit and each source sentence or two-sentence window; the best
  one is the verdict's evidence.
* entail — optional: citefix's small entailment model (citefix.verify.entail) on the unit and its evidence region.

The combined score (``combined.method`` "local", the packaged default) is the geometric mean of lexical, local
alignment and similarity, capped when the unit holds an invented number, date or name or its evidence region
contradicts a value, a verb's polarity or its roles (citefix.verify.local). Parameters: citefix.verify.offline_params;
source analysis and its cache: citefix.verify.offline_sources. Cited answers use their own calibration profile
(``profiles.cited_answer``). `OfflineVerifier(signal="lexical")` etc. runs a single signal.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from typing import Any, Sequence, cast

from citefix.events import report_units
from citefix.models import Case, Evidence, Source, Unit, Verdict
from citefix.verify.base import Verifier, Wrapping, label_for
from citefix.verify.findings import _to_case_spans, reason, share_findings, weak_reason
from citefix.verify.offline_params import _PROFILE_KEYS, _overlay, load_idf, load_params
from citefix.verify.offline_signals import _FEATURE_KEYS, _LOCAL_KEYS, POLARITY_READINGS, UnitSignals, _clip01, _finite
from citefix.verify.offline_sources import SourceAnalysis, _cache_budget, _Pool, _Source

SIGNALS = ("combined", "lexical", "alignment", "similarity", "entail")


class OfflineVerifier(SourceAnalysis, UnitSignals):
    """Lexical + token-alignment + similarity verifier that runs on CPU with the packaged models."""

    llm = None  # calls no LLM
    model_name = None  # its models are the packaged ones, not named by the user

    def __init__(
        self,
        signal: str = "combined",
        *,
        params: dict[str, Any] | None = None,
        params_path: str | None = None,
        encoder=None,
        nlp=None,
        cache_bytes: int | None = None,
        precision: str = "fp32",
    ):
        if signal not in SIGNALS:
            raise ValueError(f"signal must be one of {', '.join(SIGNALS)}, not {signal!r}")
        self.signal = signal
        self.name = "offline" if signal == "combined" else f"offline:{signal}"
        self.params = params if params is not None else load_params(params_path)
        self._encoder = encoder
        self.precision = precision  # the encoder's arithmetic (citefix.device.PRECISIONS)
        self._nlp = nlp
        self._idf: dict[str, Any] | None = None
        self._idf_loaded = False
        self._cache: OrderedDict[str, _Source] = OrderedDict()
        # the analysed sources are kept by content hash up to a memory budget ($CITEFIX_SOURCE_CACHE_MB): long
        # documents must not pile up to gigabytes over a batch
        self._cache_bytes = cache_bytes if cache_bytes is not None else _cache_budget()
        self._cached_bytes = 0
        self._lock = threading.Lock()
        self._profile_params: dict[str | None, dict[str, Any]] = {}  # None: the default profile
        self._entail = None
        self._judge = None

    # --- models, loaded on first use ------------------------------------------------------------------------------

    @property
    def encoder(self):
        if self._encoder is None:
            from citefix.encoder import load_encoder, quiet_transformers

            quiet_transformers()
            self._encoder = load_encoder(precision=self.precision)
        return self._encoder

    @property
    def nlp(self):
        if self._nlp is None:
            from citefix.nlp import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    @property
    def idf(self):
        """The MiniLM word-piece idf table, loaded with the verifier's other word tables (WordNet's synonyms, phrases
        and antonyms: read once, here, rather than inside the first check)."""
        if not self._idf_loaded:
            import gc

            from citefix.verify.relations import antonyms
            from citefix.verify.synonyms import load_tables

            # the tables are many small objects built next to the large heaps of spaCy and torch: the cyclic collector
            # would walk those heaps again and again while they are built (0.55 s against 0.08 s paused, measured)
            paused = gc.isenabled()
            gc.disable()
            try:
                self._idf = load_idf()
                load_tables()
                antonyms()
            finally:
                if paused:
                    gc.enable()
            self._idf_loaded = True
        return self._idf

    # --- public API ------------------------------------------------------------------------------------------------

    def verify(
        self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None
    ) -> list[Verdict]:
        """One verdict per unit, in order. `targets[i]`: source ids for unit i (empty/None: all sources). Each unit is
        judged alone (``verify_alone``), then read in the context of the whole text (``in_context``)."""
        return self.in_context(self.verify_alone(units, case, targets=targets), units, case)

    def _context_unit(self, units: Sequence[Unit], case: Case) -> Unit | None:
        """The whole text as one unit, when the judge reads this case's units in its context (a context share above 0,
        and some unit that is not the whole text)."""
        profile = self.profile_for(case)
        if self.profile_params(profile).get("combined", {}).get("method") != "judge" or \
                self.judge_for(profile).context_shrink <= 0:
            return None
        text = case.text
        if not text.strip() or all(u.text.strip() == text.strip() for u in units):
            return None
        return Unit(id="whole", text=text, kind="sentence", decomposer="whole", start=0, end=len(text))

    def verify_alone(
        self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None
    ) -> list[Verdict]:
        """One verdict per unit, each judged alone (what the verdict cache keeps: it depends on the unit, its sources
        and the findings on words it shares with the other units)."""
        feats = self.features(units, case, targets=targets)
        share_findings(units, feats, case.text)
        return [self._verdict(u, f, case) for u, f in zip(units, feats)]

    def in_context(self, verdicts: Sequence[Verdict], units: Sequence[Unit], case: Case) -> list[Verdict]:
        """The judge's verdicts read in the context of the whole text they were cut from: the whole text is judged as
        one statement against all the sources, and a unit more suspect than it has the difference drawn in by the
        judge's context share (citefix.verify.judge.in_context). A fragment cut from a sentence loses what it hangs
        on — a pronoun's antecedent, the other half of a coordination, the clause a condition belongs to — and reads
        doubt the whole text does not; most checks find on the whole text what they find on the unit's words, so such
        a finding keeps its weight. The share is fitted with the judge on human-labelled data (training/judge.py).
        A unit judged against some of the sources only (a cited answer's claim, against its citations) is left as
        it is: whether passage [2] supports a claim is its own question. Only the judge's probability, score and
        label move, and only toward supported; each verdict records its probability alone (``p_alone``) and the
        whole text's (``context_p``)."""
        verdicts = list(verdicts)
        every = {s.id for s in case.sources}
        todo = [i for i, v in enumerate(verdicts)
                if "judge_logit" in (v.details or {}) and (not v.target or set(v.target) == every)]
        unit = self._context_unit(units, case) if todo else None
        if unit is None:
            return verdicts
        f = self.features([unit], case, tokens=True, entail=False)[0]
        if "error" in f:
            return verdicts
        p = self.profile_params(f.get("profile"))
        judge = self.judge_for(f.get("profile"))
        ctx = judge.logit(self._local_score(f, p), self.findings(f, p), f)
        th = self.thresholds(f.get("profile"))
        for i in todo:
            verdicts[i] = self._in_context(verdicts[i], ctx, th, judge)
        return verdicts

    def _in_context(self, v: Verdict, ctx: float, th: dict[str, float], judge) -> Verdict:
        from citefix.verify.judge import in_context

        d = dict(v.details or {})
        z = d.get("judge_logit")
        if v.error is not None or v.score is None or not isinstance(z, (int, float)):
            return v
        p = judge.calibrated(in_context(float(z), ctx, judge.context_shrink))
        d["p_alone"] = d.get("p_unsupported")
        d["context_p"] = round(judge.calibrated(ctx), 4)
        d["p_unsupported"] = round(p, 4)
        score = _clip01(1.0 - p)
        label = label_for(score, supported_at=th["supported"], partial_at=th.get("partial"))
        spans = list(v.unsupported_spans) if label != "supported" else []
        if label == "supported":
            d.pop("why", None)
        elif label != v.label:
            weak = list(d.get("unsupported_tokens") or []) + list(d.get("missing_words") or [])
            if d.get("why") == weak_reason(v.label, weak):
                d["why"] = weak_reason(label, weak)
        return v.model_copy(update={"score": score, "label": label, "unsupported_spans": spans, "details": d})

    def verify_signals(
        self,
        units: Sequence[Unit],
        case: Case,
        signals: Sequence[str],
        *,
        targets: Sequence[Sequence[str]] | None = None,
    ) -> dict[str, list[Verdict]]:
        """Verdicts under several signals from one feature pass: {signal: verdicts}.

        Each list equals what ``OfflineVerifier(signal=s, params=self.params).verify(units, case, targets=targets)``
        returns (score, label, spans, evidence); only the ``details`` of a lexical or similarity verdict may also carry
        the alignment figures that a single-signal run skips.
        """
        signals = list(dict.fromkeys(signals))
        bad = [s for s in signals if s not in SIGNALS]
        if bad:
            raise ValueError(f"signal must be one of {', '.join(SIGNALS)}, not {bad[0]!r}")
        tokens = any(s in ("combined", "alignment", "entail") for s in signals)
        entail = "entail" in signals or ("combined" in signals and self.uses_entail(combined=True))
        feats = self.features(units, case, targets=targets, tokens=tokens, entail=entail)
        share_findings(units, feats, case.text)
        out = {s: [self._verdict(u, f, case, signal=s) for u, f in zip(units, feats)] for s in signals}
        if "combined" in out:
            out["combined"] = self.in_context(out["combined"], units, case)
        return out

    def features(
        self,
        units: Sequence[Unit],
        case: Case,
        *,
        targets: Sequence[Sequence[str]] | None = None,
        tokens: bool | None = None,
        entail: bool | None = None,
        keep_region: bool = False,
    ) -> list[dict[str, Any]]:
        """Raw per-unit features (all three signals), or {"error": ...}. Used by verify() and by the tuner.

        ``tokens``: compute the token alignment (default: when this verifier's signal uses it). ``keep_region``: keep
        the evidence region's text (``region_text``), the pair an entailment model reads with the unit.
        """
        if tokens is None:
            tokens = self.signal in ("combined", "alignment", "entail")
        if entail is None:
            entail = self.uses_entail()
        if targets is not None and len(targets) != len(units):
            raise ValueError(f"targets has {len(targets)} entries for {len(units)} units")
        all_ids = [s.id for s in case.sources]
        target_ids: list[list[str] | None] = []
        for i in range(len(units)):
            t = list(targets[i]) if targets is not None and targets[i] else []
            target_ids.append(list(dict.fromkeys(t)) if t else None)
        out: list[dict[str, Any] | None] = [None] * len(units)
        live: list[int] = []
        for i, u in enumerate(units):
            if not u.text.strip() or not any(ch.isalnum() for ch in u.text):
                out[i] = {"error": "empty unit: nothing to check", "target": list(target_ids[i] or [])}
                continue
            ids = target_ids[i] or all_ids
            unknown = [x for x in ids if case.source(x) is None]
            if unknown:
                out[i] = {
                    "error": f"unknown source id(s) {', '.join(unknown)}; the case has {', '.join(all_ids)}",
                    "target": list(target_ids[i] or []),
                }
                continue
            live.append(i)
        if not live:
            return [o or {"error": "no unit"} for o in out]
        self.idf  # noqa: B018  (the word tables, read once before the first unit needs them)

        # Sources: each distinct text once per call (and across calls through the LRU cache).
        needed = list(dict.fromkeys(x for i in live for x in (target_ids[i] or all_ids)))
        infos = self._sources([cast(Source, case.source(x)).text for x in needed])  # unknown ids were set aside
        by_id = dict(zip(needed, infos))
        pools: dict[tuple[str, ...], _Pool] = {}

        # Units: one spaCy pass (tagger, lemmatizer, NER) and one encoder pass for all of them.
        texts = [units[i].text for i in live]
        docs = list(self.nlp.pipe(texts, batch_size=64))
        enc = self._encode(texts)
        tok = [(e.tokens, e.offsets, e.ids) for e in enc]
        sent = [e.pooled for e in enc]
        for k, i in enumerate(live):
            if k and k % 16 == 0:
                report_units(k, len(live))  # k of n for a long text; a cancel raises here, between units
            key = tuple(target_ids[i] or all_ids)
            if key not in pools:
                pools[key] = self._pool(list(key), [by_id[x] for x in key], tokens=tokens)
            out[i] = self._unit_features(units[i], case, docs[k], tok[k], sent[k], pools[key])
            cast("dict[str, Any]", out[i])["target"] = list(target_ids[i] or [])  # set just above
            cast("dict[str, Any]", out[i])["profile"] = self.profile_for(case)
        regions = {i: cast("dict[str, Any]", out[i]).pop("_region_text", "") for i in live}
        if keep_region:
            for i in live:
                cast("dict[str, Any]", out[i])["region_text"] = regions[i]
        if entail:
            # (e) the entailment model, one batch for all units: the unit against its evidence region
            probs = self.entail_model.score([(units[i].text, regions[i]) for i in live])
            for i, pr in zip(live, probs):
                cast("dict[str, Any]", out[i])["entail"] = _clip01(_finite(pr))
        return [o if o is not None else {"error": "no features"} for o in out]

    def uses_entail(self, combined: bool = False) -> bool:
        """Whether features carry the entailment model's score: for the entail signal, and for the combination when
        its signals include it (``entail.enabled`` false turns it off)."""
        if not self.params.get("entail", {}).get("enabled", True):
            return False
        if self.signal == "entail" and not combined:
            return True
        if self.signal not in ("combined", "entail") and not combined:
            return False
        names = set(self.params.get("combined", {}).get("signals") or ())
        for prof in (self.params.get("profiles") or {}).values():
            names |= set(prof.get("combined", {}).get("signals") or ())
        return "entail" in names or bool(self.params.get("entail", {}).get("always"))

    @property
    def entail_model(self):
        if self._entail is None:
            from citefix.encoder import quiet_transformers
            from citefix.verify.entail import load_entail

            quiet_transformers()
            self._entail = load_entail()
        return self._entail

    def profile_for(self, case: Case) -> str:
        """The calibration profile for a case: its kind when the parameters hold a profile for it, else "default".

        The packaged parameters carry a ``cited_answer`` profile (cited answers against web passages, fitted on
        AttributionBench) beside the default one (summaries and single claims against their documents).
        """
        kind = case.kind or "summary"
        return kind if kind in (self.params.get("profiles") or {}) else "default"

    def profile_params(self, profile: str | None) -> dict[str, Any]:
        """The parameters under one profile: the profile's ``combined``, ``thresholds`` and ``cap`` laid over the
        defaults (computed once per profile)."""
        prof = (self.params.get("profiles") or {}).get(profile or "default")
        if not prof:
            return self.params
        if profile not in self._profile_params:
            merged = {k: json.loads(json.dumps(v)) if k in _PROFILE_KEYS else v for k, v in self.params.items()}
            _overlay(merged, {k: prof[k] for k in _PROFILE_KEYS if k in prof})
            self._profile_params[profile] = merged
        return self._profile_params[profile]

    @property
    def judge(self):
        """The learned judge (citefix.verify.judge) that the "judge" combination scores with: the packaged one, or the
        file named by ``combined.judge`` in the parameters."""
        if self._judge is None:
            from citefix.verify.judge import load_judge

            self._judge = load_judge(self.params.get("combined", {}).get("judge"))
        return self._judge

    def judge_for(self, profile: str | None):
        """The judge's model for units under a calibration profile (a cited answer's claims have one of their own)."""
        return self.judge.for_profile(profile)

    @property
    def judge_fingerprint(self) -> str | None:
        """What the learned judge's file holds (weights, calibration, decision points, context share), hashed: part of
        the verdict cache's key when the judge makes this verifier's verdicts; None when it does not."""
        profiles = [self.params] + list((self.params.get("profiles") or {}).values())
        if not any((p.get("combined") or {}).get("method") == "judge" for p in profiles):
            return None
        return self.judge.fingerprint

    def thresholds(self, profile: str | None, signal: str | None = None) -> dict[str, float]:
        """The ``supported`` and ``partial`` score thresholds of a signal under a profile. The judge's are 1 - its
        ``partial`` probability (a cited answer's claim: its ``cited`` one) and 1 - its ``unsupported`` one."""
        signal = signal or self.signal
        p = self.profile_params(profile)
        table = p.get("thresholds") or {}
        if signal == "combined" and p.get("combined", {}).get("method") == "judge":
            if isinstance(table.get("judge"), dict):  # fitted on a user's own labels (meta-eval --calibrate)
                return {k: float(v) for k, v in table["judge"].items() if isinstance(v, (int, float))}
            j = self.judge_for(profile)
            below = j.cited_at if profile == "cited_answer" else j.partial_at
            return {"supported": round(1.0 - below, 6), "partial": round(1.0 - j.unsupported_at, 6)}
        entry = table.get(signal) or table.get("combined") or {}
        return {k: float(v) for k, v in entry.items() if isinstance(v, (int, float))}

    def supported_at(self, profile: str, signal: str | None = None) -> float:
        """The score at which this verifier (or its `signal`) labels a unit supported under a calibration profile (its
        ``supported`` threshold, the combined one when the signal has none); 0.5 if the parameters give none."""
        return float(self.thresholds(profile, signal).get("supported", 0.5))

    def findings(self, feat: dict[str, Any], p: dict[str, Any] | None = None) -> dict[str, bool]:
        """Which of the hard checks fire on a unit, by name (citefix.verify.judge.CHECKS): an invented number, date or
        name (missing entity weight ≥ 1); with the local checks on, a value, verb polarity, role assignment or name
        that its evidence contradicts; and (when ``cap.invented_words`` is set) an atomic unit with that many content
        words found nowhere in the source, in form or meaning, making up at least ``cap.invented_share`` of its words.
        Values found only away from the evidence (misplaced) are reported but are not findings. Switches:
        ``cap.local``, ``cap.substitution``, ``cap.invented_words`` (0: off), ``cap.attribute_misplaced``."""
        p = p or self.profile_params(feat.get("profile"))
        cap = p.get("cap", {})
        out = {
            "missing_numbers": feat.get("missing_numbers", 0) >= 1,
            "missing_dates": feat.get("missing_dates", 0) >= 1,
            "missing_entities": feat.get("missing_entities", 0) >= 1,
        }
        local = p.get("combined", {}).get("method") in ("local", "judge") and cap.get("local", True)
        for k in ("value_conflict", "polarity_mismatch", *POLARITY_READINGS, "role_swap"):
            out[k] = bool(local and feat.get(k, 0) >= 1)
        out["name_substitution"] = bool(local and cap.get("substitution", True) and feat.get("name_substitution", 0) >= 1)
        # an atomic fact (an ACU or a clause unit, not a whole sentence or claim) with `invented_words` or more content
        # words that no source word matches in form or in meaning (one alone may be a paraphrase the token alignment
        # misses; 0 turns the check off)
        need = int(cap.get("invented_words") or 0)
        share = float(cap.get("invented_share") or 0.0)  # and at least this share of its content words (0: any)
        n_inv = feat.get("invented_words", 0)
        words = feat.get("n_words", 0)
        if cap.get("attribute_misplaced", True) and feat.get("attribute"):
            # what a unit says of an entity (an apposition, a relative clause, an attribute detail) stands where the
            # source speaks of it: its words the source holds only elsewhere count as invented here
            n_inv += round(feat.get("misplaced_word_frac", 0.0) * words)
        if cap.get("invented_of_clause", True):  # a clause's core: the share of its whole clause's words
            words = max(words, feat.get("clause_words", 0))
        out["invented_words"] = bool(local and need and feat.get("atomic") and n_inv >= need and n_inv >= share * words)
        return out

    def _capped(self, feat: dict[str, Any], p: dict[str, Any] | None = None) -> bool:
        """Whether the cap applies (the "local" combination): some finding fires and ``cap.enabled`` is set. On
        human-labelled dev data the misplaced values fire on 19-42% of supported texts, so they are not findings."""
        p = p or self.profile_params(feat.get("profile"))
        return bool(p.get("cap", {}).get("enabled")) and any(self.findings(feat, p).values())

    def score(self, feat: dict[str, Any], signal: str | None = None) -> float:
        """The score in [0, 1] of one feature dict under `signal` (default: this verifier's) and the feature's profile."""
        signal = signal or self.signal
        p = self.profile_params(feat.get("profile"))
        if signal == "lexical":
            s = math.exp(max(-30.0, feat["lexical_log"]))
        elif signal == "alignment":
            s = feat["alignment"]
        elif signal == "similarity":
            s = feat["similarity"]
        elif signal == "entail":
            if "entail" not in feat:
                raise ValueError("the entail signal needs features computed with the entailment model")
            s = feat["entail"]
        elif p["combined"].get("method") == "judge":
            # the checks' findings are its features, beside the signals' geometric mean: no cap after it
            s = 1.0 - self.judge_for(feat.get("profile")).probability(self._local_score(feat, p), self.findings(feat, p),
                                                                      feat)
        elif p["combined"].get("method") == "local":
            s = self._cap(self._local_score(feat, p), feat, p)
        else:
            c = p["combined"]
            z = (
                c["bias"]
                + c["lexical"] * max(-10.0, feat["lexical_log"])
                + c["alignment"] * feat["alignment"]
                + c["similarity"] * feat["similarity"]
            )
            s = self._cap(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))), feat, p)
        return _clip01(s)

    def _cap(self, s: float, feat: dict[str, Any], p: dict[str, Any]) -> float:
        """The combined score `s` of a unit, capped when ``_capped``: scaled into [0, cap.score], so that every capped
        unit stays below the cap (and so unsupported) while capped units keep their order among themselves — a cap
        that ties them all at one value throws away how well the rest of each one is supported (``cap.scale`` false
        restores the tie)."""
        if not self._capped(feat, p):
            return s
        c = float(p["cap"]["score"])
        return c * max(0.0, min(1.0, s)) if p["cap"].get("scale", True) else min(s, c)

    @staticmethod
    def _local_score(feat: dict[str, Any], p: dict[str, Any]) -> float:
        """The "local" combination: the geometric mean of the signals named in combined.signals (default all three:
        lexical coverage, token alignment against the evidence region, embedding similarity; similarity left out for a unit
        copied word for word from a source). No fitted weights: each is already a support score in
        [0, 1], and on every held-out dataset this parameter-free mean ranked at least as well as a logistic
        combination fitted on the other datasets (python -m bench.lodo eval)."""
        vals = {
            "lexical": math.exp(max(-30.0, feat["lexical_log"])),
            "alignment": feat.get("local_alignment", feat["alignment"]),
            "similarity": feat["similarity"],
        }
        if "entail" in feat:
            vals["entail"] = feat["entail"]
        names = [n for n in (p["combined"].get("signals") or ("lexical", "alignment", "similarity")) if n in vals]
        if feat.get("copied") and p["combined"].get("copy", True) and len(names) > 1:
            # a word-for-word copy of the source: sentence similarity measures how much of its sentence a fragment
            # covers, not whether the source says it ("… but that was all she wrote" against the whole sentence)
            names = [n for n in names if n != "similarity"] or names
        prod = 1.0
        for n in names:
            prod *= max(0.0, vals[n])
        return prod ** (1.0 / len(names))

    # --- sources ---------------------------------------------------------------------------------------------------

    def _verdict(self, unit: Unit, f: dict[str, Any], case: Case, signal: str | None = None) -> Verdict:
        signal = signal or self.signal
        name = "offline" if signal == "combined" else f"offline:{signal}"
        if "error" in f:
            return Verdict(unit_id=unit.id, verifier=name, score=None, label="error", error=f["error"],
                           target=list(f.get("target", [])))
        score = self.score(f, signal)
        th = self.thresholds(f.get("profile"), signal)
        label = label_for(score, supported_at=th["supported"], partial_at=th.get("partial"))
        p_used = self.profile_params(f.get("profile"))
        judged = p_used["combined"].get("method") == "judge"
        if signal == "combined" and label == "partial" and not judged and self._capped(f):
            # The cap's rule: a unit that invents a number, date or name is not partly right, it is unsupported.
            label = "unsupported"
        marks: list[tuple[int, int]] = []
        if signal in ("combined", "lexical"):
            marks += [(m["start"], m["end"]) for m in f["missing"]]
            marks += [(m["start"], m["end"]) for m in f["missing_words"]]
        if signal == "combined":
            marks += [(m["start"], m["end"]) for m in f.get("misplaced", [])]
            marks += [(m["start"], m["end"]) for m in f.get("structure", [])]
            marks += [(m["start"], m["end"]) for m in f.get("invented", [])]
            marks += [(m["start"], m["end"]) for m in f.get("shared", [])]
        if signal in ("combined", "alignment"):
            marks += [(m["start"], m["end"]) for m in f["low_tokens"]]
        # Only a unit that is not judged supported gets its weak words painted.
        spans = _to_case_spans(unit, case.text, marks) if label != "supported" else []
        details = {
            "signal": signal,
            "profile": f.get("profile", "default"),
            "lexical": round(f["lexical"], 4),
            "alignment": round(f["alignment"], 4),
            "similarity": round(f["similarity"], 4),
            "alignment_raw": round(f["alignment_raw"], 4),
            "similarity_raw": round(f["similarity_raw"], 4),
            **({"entail": round(f["entail"], 4)} if "entail" in f else {}),
            "missing": [m["text"] for m in f["missing"]],
            "missing_words": [m["text"] for m in f["missing_words"]],
            "unsupported_tokens": [m["text"] for m in f["low_tokens"]],
            "local_alignment": round(f.get("local_alignment", 0.0), 4),
            "misplaced": [m["text"] for m in f.get("misplaced", [])],
            "invented": [m["text"] for m in f.get("invented", [])],
            "structure": [f"{m['kind']}: {m['text']}" for m in f.get("structure", [])],
            "stands_in_source": bool(f.get("stands_in_source")),
            "features": {k: f[k] for k in _FEATURE_KEYS + _LOCAL_KEYS if k in f},
        }
        if signal == "combined":
            # what the checks found, as records (kind, the unit's words and their span in the unit, what the evidence
            # says instead where a check knows it), and the finding said in words
            details["conflicts"] = [{k: (int(m[k]) if k in ("start", "end") else str(m[k]))
                                     for k in ("kind", "value_kind", "text", "start", "end", "evidence") if k in m}
                                    for m in f.get("structure", [])]
            # a figure the sources lack, with the figure of its kind that its evidence sentence gives instead
            details["conflicts"] += [{"kind": "figure", "text": str(m["text"]), "start": int(m["start"]),
                                      "end": int(m["end"]), "evidence": str(m["evidence"])}
                                     for m in f.get("missing", []) if m.get("kind") == "number" and m.get("evidence")]
            if f.get("shared_from"):  # findings made on words this unit shares with those units
                details["shared_from"] = list(dict.fromkeys(f["shared_from"]))
            found = self.findings(f, p_used)
            if label != "supported":
                details["why"] = reason(f, found, label)
            if judged:
                # the judge's probability that the unit is not supported, and what pushed it there most
                details["p_unsupported"] = round(1.0 - score, 4)
                judge = self.judge_for(f.get("profile"))
                details["judge_logit"] = round(judge.logit(self._local_score(f, p_used), found, f), 6)
                pushes = judge.contributions(self._local_score(f, p_used), found, f)
                details["judge_reasons"] = [k for k, _ in pushes]
        ev = f.get("evidence")
        return Verdict(
            unit_id=unit.id,
            verifier=name,
            score=score,
            label=label,
            evidence=Evidence(**ev) if ev else None,
            target=list(f.get("target", [])),
            unsupported_spans=spans,
            details=details,
        )


PREFETCH_WINDOW = 16  # cases whose sources are analysed together (one batched spaCy and encoder pass)


def prefetch(verifiers: Sequence[Verifier], cases: Sequence[Case]) -> list[int]:
    """Analyse the sources of `cases` in one batched pass for every offline verifier among `verifiers` (each once,
    whether given as itself, behind a verdict cache, or as a view of a shared feature pass); returns the positions
    in `verifiers` of those that did the work."""
    seen: set[int] = set()
    did: list[int] = []
    for k, v in enumerate(verifiers):
        base = v
        while isinstance(base, Wrapping):
            base = base.inner
        if not isinstance(base, OfflineVerifier) or id(base) in seen:
            continue
        seen.add(id(base))
        base.prefetch(cases)
        did.append(k)
    return did
