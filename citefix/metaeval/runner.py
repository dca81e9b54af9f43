"""Run verifiers (and a decomposer) over a human-labelled file and measure their agreement with the labels.

What is scored, per shape (see :mod:`citefix.metaeval.loaders` for the file shapes):

* ``xsumfaith`` / ``summeval`` (summary vs document): with a decomposer, its units are verified against the document
  and the unit scores aggregate into the item score (``aggregate="min"`` or ``"mean"``); without one, the whole summary
  is verified as a single unit. Protocols: ROC-AUC and tuned balanced accuracy on ``label``; Pearson / Spearman /
  Kendall against ``consistency_expert_mean`` when present; character P/R/F1 of unsupported spans (union and majority
  references) when the file has span labels. Predicted unsupported characters = every ``Verdict.unsupported_spans``
  plus the span of every unit whose verdict label is ``unsupported``.
* ``wice`` (statement vs cited page): the statement is one unit, verified against the whole cited text for the item
  score. Protocols: correlations with the level (full 2 / partial 1 / none 0) and one-vs-one ROC-AUCs. With evidence
  annotations and ``rank_chunks``, the cited text is cut into chunks of at most ``chunk_words`` words along the
  annotated sentence boundaries and the statement is verified against each chunk (one call, ``targets`` = that chunk);
  NDCG@5/10/20 ranks the chunks by score. Relevance rule: a chunk that holds every sentence of some supporting set
  covers the evidence (2); one that holds some but not all sentences of a set covers part of it (1); else 0. The
  relevance is then capped at the statement's own level (``cap_relevance``), because a page that only partially
  supports a statement cannot have a chunk that fully supports it; so "none" statements have no relevant chunk and
  are skipped (counted). A sentence is "in" a chunk when their character ranges overlap.
* ``attributionbench`` (cited answer): each human-labelled sentence (citation marks removed) is a unit verified against
  the passages it cites (``targets``); all labelled sentences of an answer go in one call. Items are the sentences, in
  file order. Protocols: ROC-AUC and tuned balanced accuracy.
* Verdict rates (every shape with binary labels): an item is flagged when the verifier's own verdict for at least one
  of its units is not ``supported``, i.e. at the verifier's packaged "supported" threshold, never one tuned on the file;
  detection rate (label-0 items flagged), false-flag rate (label-1 items flagged) and their balanced accuracy.
* ``by`` (``--by FIELD``): every statistic is also computed on the items of each value of a record field (kept in
  ``case.metadata`` by the loader), beside the overall figures; a group holding one label only gets, instead of a
  ROC-AUC, the ROC-AUC of its items against the other-label items of the whole file. Each item row carries the values
  of the ``by`` fields so per-item results can be joined with the input records.
* ``rose``: the decomposer's units for each reference are compared with the gold ACUs: mean best-match ROUGE-1 F1 of
  the units (the ACUEval measure) and of the gold ACUs (coverage). Verifiers are not used.

An exception from a verifier other than a :class:`citefix.errors.UserError` is recorded on the item (score None) and
the run goes on; such items are counted in each statistic's ``n_missing``. User errors (a missing key, a bad model
name) stop the run.
"""

from __future__ import annotations

import datetime as _dt
import resource
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, cast

from citefix.chunking import Span, chunk_text
from citefix.decompose.base import Decomposer
from citefix.errors import ConfigError, UserError
from citefix.metaeval.loaders import Loaded, MetaItem, load

# the result types, statistics, views and store rows live in their own modules; their names stay importable from here
from citefix.metaeval.results import Aggregate, DecompositionScore, ItemScore, MetaEvalResult, Performance
from citefix.metaeval.rouge import best_match_rouge1
from citefix.metaeval.shared import share_offline
from citefix.metaeval.stats import compute_stats
from citefix.models import Case, Source, Unit, Verdict
from citefix.verify.base import Verifier

NO_UNITS = "no checkable units"
ProgressFn = Callable[[int, int, str], None]


# ----------------------------------------------------------------------------------------------- helpers


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (ru_maxrss is KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _aggregate(scores: Sequence[float], how: Aggregate) -> float:
    return min(scores) if how == "min" else sum(scores) / len(scores)


def _whole_unit(case: Case, kind: str = "sentence", decomposer: str = "whole") -> Unit:
    return Unit(id="u1", text=case.text, kind=kind, decomposer=decomposer, start=0, end=len(case.text))  # type: ignore[arg-type]


def _verify(verifier: Any, units: list[Unit], case: Case, targets: list[list[str]] | None = None) -> list[Verdict]:
    verdicts = verifier.verify(units, case, targets=targets) if targets is not None else verifier.verify(units, case)
    if len(verdicts) != len(units):
        raise RuntimeError(f"verifier returned {len(verdicts)} verdicts for {len(units)} units")
    return list(verdicts)


def _err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def predicted_spans(units: Sequence[Unit], verdicts: Sequence[Verdict]) -> tuple[list[tuple[int, int]], int]:
    """Spans of the case text predicted unsupported, merged, and how many unsupported units had no span."""
    spans: list[tuple[int, int]] = []
    no_span = 0
    for u, v in zip(units, verdicts):
        spans.extend((int(a), int(b)) for a, b in v.unsupported_spans)
        if v.label == "unsupported":
            if u.has_span:
                spans.append((int(u.start), int(u.end)))  # type: ignore[arg-type]
            elif not v.unsupported_spans:
                no_span += 1
    return _merge(spans), no_span


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def evidence_chunks(item: MetaItem, max_words: int) -> list[Span]:
    """Chunks of the cited text along the annotated sentence boundaries (gaps between them kept as sentences)."""
    text = item.case.sources[0].text
    offsets = sorted(item.evidence.sentence_offsets) if item.evidence else []
    sentences: list[Span] = []
    pos = 0
    for a, b in offsets + [(len(text), len(text))]:
        if a > pos and text[pos:a].strip():  # text no annotated sentence covers
            sentences.append(_trim(text, pos, a))
        if b > a and text[a:b].strip():
            sentences.append(_trim(text, a, b))
        pos = max(pos, b)
    return chunk_text(text, max_words, sentences=sentences)


def _trim(text: str, a: int, b: int) -> Span:
    piece = text[a:b]
    lead = len(piece) - len(piece.lstrip())
    stripped = piece.strip()
    return Span(a + lead, a + lead + len(stripped), stripped)


def chunk_relevance(item: MetaItem, chunks: Sequence[Span], *, cap: bool = True) -> list[int]:
    """Relevance 2/1/0 of each chunk by the rule in the module docstring."""
    ev = item.evidence
    if ev is None:
        return [0] * len(chunks)
    out = []
    for c in chunks:
        inside = {i for i, (a, b) in enumerate(ev.sentence_offsets) if a < c.end and c.start < b}
        rel = 0
        for st in ev.supporting_sets:
            if not st:
                continue
            hit = sum(1 for i in st if i in inside)
            if hit == len(st):
                rel = 2
                break
            if hit:
                rel = 1
        if cap and item.level is not None:
            rel = min(rel, item.level)
        out.append(rel)
    return out


def _by_values(item: MetaItem, by: Sequence[str], sentence: int | None = None) -> dict[str, Any]:
    return {f: item.field(f, sentence) for f in by}


def _check_by(path: str | Path, items: Sequence[MetaItem], by: Sequence[str]) -> None:
    """Every --by field must occur in at least one record."""
    for f in by:
        if any(i.field(f) is not None or any(f in s.metadata for s in i.sentences) for i in items):
            continue
        seen = list(dict.fromkeys(k for i in items[:50] for k in list(i.case.metadata)
                                  + [k for s in i.sentences for k in s.metadata]))
        raise ConfigError(f"--by {f}: no record of {path} has a field {f!r}. Fix: use one of its fields"
                          f" ({', '.join(seen[:15]) or 'none besides the text and labels'})")


# ----------------------------------------------------------------------------------------------- the run


class _Clock:
    def __init__(self, names: Sequence[str]):
        self.seconds = {n: 0.0 for n in names}
        self.items = {n: 0 for n in names}
        self.rss = {n: 0.0 for n in names}
        self.first: dict[str, tuple[float, int] | None] = {n: None for n in names}  # first call: loads models


def run_meta_eval(
    path: str | Path,
    verifiers: Mapping[str, Verifier],
    decomposer: Decomposer | None = None,
    limit: int | None = None,
    on_progress: ProgressFn | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    *,
    format: str = "auto",
    aggregate: Aggregate = "min",
    skip_invalid: bool = False,
    rank_chunks: bool = True,
    chunk_words: int = 150,
    cap_relevance: bool = True,
    stem: bool = False,
    cancel: Any = None,
    share_features: bool = True,
    by: Sequence[str] = (),
    executor: Any = None,
) -> MetaEvalResult:
    """Score every item of ``path`` with every verifier and compute the protocols its labels allow.

    ``verifiers`` maps display names to objects implementing :class:`citefix.verify.base.Verifier`. ``on_progress``
    is called as ``on_progress(done, total, item_id)`` after each record. ``cancel`` is anything with ``is_set()``
    (a ``threading.Event``): when set, the run stops after the current record and the statistics cover what was done.
    ``share_features``: offline verifiers that differ only by signal compute their features once per item
    (:func:`share_offline`); the scores are the same as running each alone. ``by``: record fields to break every
    statistic down by (see the module docstring). ``executor``: something with ``score_records(jobs, options)``
    (citefix.executor.RayEvaluator) that scores the records elsewhere with :func:`score_records` and returns its
    outputs in order; the statistics are computed here either way.
    """
    by = list(dict.fromkeys(by))
    if aggregate not in ("min", "mean"):
        raise ConfigError(f"unknown aggregate {aggregate!r}; use min or mean")
    started = time.perf_counter()
    started_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    loaded = load(path, format=format, limit=limit, skip_invalid=skip_invalid)
    shape = loaded.shape
    _check_run(path, loaded.items, shape, by, verifiers, decomposer)
    names = list(verifiers)
    share_notes: list[str] = []
    if share_features and shape != "rose":
        verifiers, share_notes = share_offline(verifiers)
    dec_name = decomposer.name if decomposer is not None else None
    clock = _Clock(names + ([dec_name] if dec_name else []))
    result = MetaEvalResult(
        path=str(path), shape=shape, records=len(loaded.items) + len(loaded.skipped), items=0, skipped=loaded.skipped,
        limit=limit,
        aggregate=aggregate, decomposer=dec_name, verifiers=names if shape != "rose" else [], seed=seed,
        bootstrap=bootstrap, chunk_words=chunk_words if shape == "wice" and rank_chunks else None,
        started_at=started_at, by=by,
    )
    result.notes.extend(share_notes)
    counters = {"units_without_span": 0, "decomposer_errors": 0, "chunk_statements": 0}
    options: dict[str, Any] = dict(shape=shape, by=by, aggregate=aggregate, rank_chunks=rank_chunks, chunk_words=chunk_words,
                   cap_relevance=cap_relevance, stem=stem)
    if executor is not None:  # every record scored elsewhere, the outputs merged here in record order
        result.items = _score_elsewhere(executor, loaded.items, options, clock, counters, result, on_progress)
    else:
        result.items = _score_here(loaded.items, verifiers, decomposer, dec_name, clock, counters, result, options,
                                   on_progress, cancel)
    result.stats = compute_stats(result, loaded.items, bootstrap=bootstrap, seed=seed, stem=stem)
    result.performance = _performance(clock)
    result.peak_rss_mb = round(peak_rss_mb(), 1)
    result.duration_s = round(time.perf_counter() - started, 3)
    _add_notes(result, loaded, counters, names)
    return result


def _check_run(path: str | Path, items: Sequence[MetaItem], shape: str, by: Sequence[str],
               verifiers: Mapping[str, Verifier], decomposer: Decomposer | None) -> None:
    """The options fit the file: ``by`` fields it holds, a decomposer for RoSE, a verifier for every other shape."""
    if by and shape == "rose":
        raise ConfigError("--by groups verifier statistics; a RoSE file measures decomposition only: leave --by out")
    _check_by(path, items, by)
    if shape == "rose":
        if decomposer is None:
            raise ConfigError("a RoSE file measures decomposition: give a decomposer (--decomposer NAME)")
    elif not verifiers:
        raise ConfigError("no verifier given: name at least one (--verifier offline)")


def _score_elsewhere(executor: Any, items: Sequence[MetaItem], options: Mapping[str, Any], clock: _Clock,
                     counters: dict[str, int], result: MetaEvalResult, on_progress: ProgressFn | None) -> int:
    """Every record scored by ``executor`` (:func:`score_records` on workers), its outputs merged into ``result`` in
    record order; returns the number of item rows."""
    index = 0
    jobs = []
    for item in items:
        jobs.append((item, index))
        index += len(item.sentences) if options["shape"] == "attributionbench" else 1
    for scores, decompositions, part_counters, part_clock in executor.score_records(jobs, options):
        result.scores.extend(scores)
        result.decompositions.extend(decompositions)
        for k, v in part_counters.items():
            counters[k] = counters.get(k, 0) + v
        _merge_clock(clock, part_clock)
    total = len(items)
    if on_progress is not None and total:
        on_progress(total, total, items[-1].id)
    return index


def _score_here(items: Sequence[MetaItem], verifiers: Mapping[str, Verifier], decomposer: Decomposer | None,
                dec_name: str | None, clock: _Clock, counters: dict[str, int], result: MetaEvalResult,
                options: dict[str, Any], on_progress: ProgressFn | None, cancel: Any) -> int:
    """Every record scored in this process (the sources of the next records prefetched in batches), until ``cancel``
    is set; returns the number of item rows."""
    from citefix.verify.ahead import PrefetchAhead
    from citefix.verify.offline import PREFETCH_WINDOW

    shape = options["shape"]
    index = 0
    total = len(items)
    ahead = PrefetchAhead(list(verifiers.values()))  # the window after analysed in the background meanwhile
    for done, item in enumerate(items, 1):
        if cancel is not None and cancel.is_set():
            result.cancelled = True
            break
        if (done - 1) % PREFETCH_WINDOW == 0 and shape != "rose":  # the next records' sources in one batched pass
            t0 = time.perf_counter()
            did = ahead.window([i.case for i in items[done - 1 : done - 1 + PREFETCH_WINDOW]],
                               [i.case for i in items[done - 1 + PREFETCH_WINDOW : done - 1 + 2 * PREFETCH_WINDOW]])
            for k in did[:1]:  # counted as the verifier's time (a shared pass: on the first one, as its items are)
                clock.seconds[list(verifiers)[k]] += time.perf_counter() - t0
        index = _score_record(item, index, verifiers, decomposer, dec_name, clock, counters, result, **options)
        if on_progress is not None:
            on_progress(done, total, item.id)
    return index


def _performance(clock: _Clock) -> list[Performance]:
    return [
        Performance(system=n, items=clock.items[n], seconds=round(clock.seconds[n], 4),
                    items_per_s=(clock.items[n] / clock.seconds[n]) if clock.seconds[n] > 0 else None,
                    items_per_s_after_first=_after_first(clock, n),
                    peak_rss_mb=round(clock.rss[n], 1))
        for n in clock.seconds
    ]


def _add_notes(result: MetaEvalResult, loaded: Loaded, counters: Mapping[str, int], names: Sequence[str]) -> None:
    """What the statistics leave out, in notes: units without a span, decomposer failures, skipped and unscorable
    records, a cancelled run, sentences with no citation mark, spans without offsets."""
    if counters["units_without_span"]:
        result.notes.append(f"{counters['units_without_span']} unsupported units had no span in the text and could "
                            "not count toward span precision/recall")
    if counters["decomposer_errors"]:
        result.notes.append(f"the decomposer failed on {counters['decomposer_errors']} records (scored as missing)")
    if loaded.skipped:
        result.notes.append(f"{len(loaded.skipped)} invalid records skipped (first: line {loaded.skipped[0].line}: "
                            f"{loaded.skipped[0].problem})")
    if result.cancelled:
        result.notes.append(f"cancelled after {len(result.scores) // max(1, len(names))} items")
    result.unscorable = [{"item_id": f"{i.id}#{u.index + 1}", "line": i.line, "index": u.index, "text": u.text,
                          "problem": u.problem} for i in loaded.items for u in i.unscorable]
    if result.unscorable:
        first = result.unscorable[0]
        result.notes.append(f"{len(result.unscorable)} labelled sentences could not be scored and are left out "
                            f"(first: {first['item_id']}, line {first['line']}: {first['problem']})")
    unmarked = sum(1 for i in loaded.items for s_ in i.sentences if s_.scope == "all_passages")
    if unmarked:
        result.notes.append(f"{unmarked} labelled sentences carry no citation mark: judged against all passages of "
                            "their answer")
    unlocated = sum(i.unlocated_spans for i in loaded.items)
    if unlocated:
        result.notes.append(f"{unlocated} annotated spans had no character offsets and were ignored")


def _score_record(item: MetaItem, index: int, verifiers: Mapping[str, Verifier], decomposer: Decomposer | None,
                  dec_name: str | None,
                  clock: _Clock, counters: dict[str, int], result: MetaEvalResult, *, shape: str, by: Sequence[str],
                  aggregate: Aggregate, rank_chunks: bool, chunk_words: int, cap_relevance: bool, stem: bool) -> int:
    """One record scored by every verifier (or decomposed, for RoSE), its rows added to ``result``; returns the
    index of the next record's first row."""
    if shape == "rose":  # run_meta_eval asks a RoSE file for a decomposer
        result.decompositions.append(_decompose_rose(item, index, cast(Decomposer, decomposer), cast(str, dec_name),
                                                     clock, stem))
        return index + 1
    if shape == "attributionbench":
        return _score_cited(item, index, verifiers, clock, result, by)
    units, dec_error = _units_for(item, decomposer, dec_name, clock)
    if dec_error:
        counters["decomposer_errors"] += 1
    for name, verifier in verifiers.items():
        row = _score_item(item, index, name, verifier, units, dec_error, aggregate, clock, counters)
        row.by = _by_values(item, by)
        if shape == "wice" and rank_chunks and item.evidence is not None and row.error is None:
            _rank_chunks(item, row, verifier, name, chunk_words, cap_relevance, clock, counters)
        result.scores.append(row)
    return index + 1


def score_records(jobs: Sequence[tuple[MetaItem, int]], verifiers: Mapping[str, Verifier], decomposer: Decomposer | None,
                  options: Mapping[str, Any], *, share_features: bool = True):
    """Records scored away from the run (a Ray worker): (item, its first row's index) pairs in, and out the rows,
    decompositions, counters and clock of these records, for run_meta_eval to merge."""
    if share_features and options.get("shape") != "rose":
        verifiers, _ = share_offline(verifiers)
    dec_name = decomposer.name if decomposer is not None else None
    clock = _Clock(list(verifiers) + ([dec_name] if dec_name else []))
    counters = {"units_without_span": 0, "decomposer_errors": 0, "chunk_statements": 0}
    part = MetaEvalResult(path="", shape=options["shape"], records=0, items=0, verifiers=list(verifiers), seed=0,
                          bootstrap=0)
    for item, index in jobs:
        _score_record(item, index, verifiers, decomposer, dec_name, clock, counters, part, **options)
    return part.scores, part.decompositions, counters, {"seconds": clock.seconds, "items": clock.items,
                                                        "rss": clock.rss, "first": clock.first}


def _merge_clock(clock: _Clock, part: Mapping[str, Any]) -> None:
    for name, seconds in part["seconds"].items():
        if name not in clock.seconds:
            continue
        clock.seconds[name] += seconds
        clock.items[name] += part["items"][name]
        clock.rss[name] = max(clock.rss[name], part["rss"][name])  # the largest worker's peak
        first = part["first"][name]
        if first is not None:  # each worker loads its models once: all those first calls count as loading
            had = clock.first[name] or (0.0, 0)
            clock.first[name] = (had[0] + first[0], had[1] + first[1])


def _tick(clock: _Clock, name: str, t0: float, items: int) -> None:
    elapsed = time.perf_counter() - t0
    if clock.first[name] is None:
        clock.first[name] = (elapsed, items)
    clock.seconds[name] += elapsed
    clock.items[name] += items
    clock.rss[name] = peak_rss_mb()


def _after_first(clock: _Clock, name: str) -> float | None:
    if clock.first[name] is None:
        return None
    first_s, first_n = cast("tuple[float, int]", clock.first[name])  # checked just above
    rest_s, rest_n = clock.seconds[name] - first_s, clock.items[name] - first_n
    return rest_n / rest_s if rest_n > 0 and rest_s > 0 else None


def _units_for(item: MetaItem, decomposer: Decomposer | None, dec_name: str | None,
               clock: _Clock) -> tuple[list[Unit], str | None]:
    if item.shape == "wice":
        return [_whole_unit(item.case, kind="claim", decomposer="statement")], None
    if decomposer is None:
        return [_whole_unit(item.case)], None
    t0 = time.perf_counter()
    try:
        units = list(decomposer.units(item.case))
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded on the item, the run goes on
        return [], f"decomposer failed: {_err(exc)}"
    finally:
        _tick(clock, cast(str, dec_name), t0, 1)  # set with the decomposer
    return units, None


def _base_row(item: MetaItem, index: int, name: str) -> ItemScore:
    return ItemScore(item_id=item.id, index=index, line=item.line, verifier=name, score=None, label=item.label,
                     level=item.level, rating=item.rating)


def _score_item(
    item: MetaItem, index: int, name: str, verifier: Any, units: list[Unit], dec_error: str | None,
    aggregate: Aggregate, clock: _Clock, counters: dict[str, int],
) -> ItemScore:
    row = _base_row(item, index, name)
    if dec_error:
        row.error = dec_error
        return row
    if not units:
        row.error = NO_UNITS
        return row
    t0 = time.perf_counter()
    try:
        verdicts = _verify(verifier, units, item.case)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001
        row.error = _err(exc)
        return row
    finally:
        row.seconds = time.perf_counter() - t0
        _tick(clock, name, t0, 1)
    row.unit_scores = [v.score for v in verdicts]
    row.unit_labels = [v.label for v in verdicts]
    failed = [v for v in verdicts if v.score is None or v.error]
    if failed:
        row.error = f"{len(failed)} of {len(verdicts)} units failed: {failed[0].error or 'no score'}"
        return row
    row.score = float(_aggregate([float(v.score) for v in verdicts], aggregate))  # type: ignore[arg-type]
    row.predicted_spans, no_span = predicted_spans(units, verdicts)
    counters["units_without_span"] += no_span
    return row


def _rank_chunks(
    item: MetaItem, row: ItemScore, verifier: Any, name: str, chunk_words: int, cap: bool, clock: _Clock,
    counters: dict[str, int],
) -> None:
    chunks = evidence_chunks(item, chunk_words)
    relevance = chunk_relevance(item, chunks, cap=cap)
    row.chunk_relevance = relevance
    if not any(relevance):  # NDCG is undefined without a relevant chunk: do not spend calls on it
        return
    sources = [Source(id=f"chunk{i + 1}", text=c.text) for i, c in enumerate(chunks)]
    case = Case(id=f"{item.id}#chunks", sources=sources, text=item.case.text, kind="summary")
    units = [Unit(id=f"u{i + 1}", text=item.case.text, kind="claim", decomposer="statement", start=0,
                  end=len(item.case.text)) for i in range(len(chunks))]
    t0 = time.perf_counter()
    try:
        verdicts = _verify(verifier, units, case, targets=[[s.id] for s in sources])
        row.chunk_scores = [None if v.error else v.score for v in verdicts]
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001
        row.chunk_scores = [None] * len(chunks)  # counted as missing by the ranking statistics
        row.chunk_error = _err(exc)
    finally:
        clock.seconds[name] += time.perf_counter() - t0
        clock.rss[name] = peak_rss_mb()
    counters["chunk_statements"] += 1


def _score_cited(item: MetaItem, index: int, verifiers: Mapping[str, Verifier], clock: _Clock,
                 result: MetaEvalResult, by: Sequence[str] = ()) -> int:
    if not item.sentences:  # every labelled sentence was unscorable: listed in result.unscorable
        return index
    units = [
        Unit(id=f"s{s.index + 1}", text=s.unit_text, kind="sentence", decomposer="labelled", start=s.start, end=s.end,
             cited=s.cited, sentence=s.index)
        for s in item.sentences
    ]
    targets = [list(s.cited) for s in item.sentences]
    for name, verifier in verifiers.items():
        rows = [
            ItemScore(item_id=f"{item.id}#{s.index + 1}", index=index + k, line=item.line, group=item.id,
                      verifier=name, score=None, label=s.label, by=_by_values(item, by, k))
            for k, s in enumerate(item.sentences)
        ]
        t0 = time.perf_counter()
        try:
            verdicts = _verify(verifier, units, item.case, targets=targets)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001
            for r in rows:
                r.error = _err(exc)
            verdicts = []
        finally:
            elapsed = time.perf_counter() - t0
            _tick(clock, name, t0, len(rows))
        for r, u, v in zip(rows, units, verdicts):
            r.seconds = elapsed / len(rows)
            r.unit_scores, r.unit_labels = [v.score], [v.label]
            if v.score is None or v.error:
                r.error = v.error or "no score"
            else:
                r.score = float(v.score)
                r.predicted_spans, _ = predicted_spans([u], [v])
        result.scores.extend(rows)
    return index + len(item.sentences)


def _decompose_rose(item: MetaItem, index: int, decomposer: Decomposer, dec_name: str, clock: _Clock,
                    stem: bool) -> DecompositionScore:
    row = DecompositionScore(item_id=item.id, index=index, line=item.line, units=[], gold=item.gold_acus or [])
    t0 = time.perf_counter()
    try:
        row.units = [u.text for u in decomposer.units(item.case)]
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001
        row.error = _err(exc)
        return row
    finally:
        _tick(clock, dec_name, t0, 1)
    row.rouge1 = best_match_rouge1(row.units, row.gold, stem=stem)
    row.coverage = best_match_rouge1(row.gold, row.units, stem=stem)
    return row
