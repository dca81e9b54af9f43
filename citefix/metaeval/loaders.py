"""Read human-labelled JSONL files into typed meta-evaluation items.

One JSON object per line; blank lines are skipped. The shape is detected from the fields of the first record, or named
with ``format=`` (``--format`` on the command line). Every shape may carry an ``id`` (default ``<file stem>:<line>``).
Every other field of a record that does not become the case's text or sources (labels included) is kept untouched in
``case.metadata``, so ``meta-eval --by FIELD`` can group items by it; for cited answers a labelled sentence's own extra
fields are in ``LabelledSentence.metadata``. Bring your own data in any of these shapes:

``xsumfaith`` (summary vs document, binary label, hallucinated spans per annotator)
    ``document`` str, ``summary`` str, ``label`` 1 consistent / 0 not,
    ``hallucination_spans`` list of ``{start, end, worker, type?, text?}`` — end-exclusive character offsets into
    ``summary``; ``start``/``end`` may be null for a span that could not be located (counted, then ignored).
    Optional ``n_annotators`` (int): how many annotators saw each summary, including those who marked nothing
    (default 3, as in XSumFaith; never less than the number of distinct workers in the spans). Detected by
    ``hallucination_spans``.

``summeval`` (summary vs document, binary label and/or a human rating)
    ``document`` str, ``summary`` str, and at least one of ``label`` (1/0) and ``consistency_expert_mean`` (number,
    e.g. 1–5). Detected by ``document`` + ``summary`` without ``hallucination_spans``.

``wice`` (statement vs cited text, graded support)
    ``statement`` str, ``citation_text`` str, ``support`` ``full`` | ``partial`` | ``none`` (WiCE's
    ``supported`` / ``partially_supported`` / ``not_supported`` are accepted too). Optional
    ``evidence_sentence_offsets`` (``[[start, end), …]`` into ``citation_text``) with ``supporting_sentence_sets``
    (list of alternative lists of indices into the offsets): needed for chunk ranking (NDCG). Optional
    ``non_supported_char_spans`` (``[[start, end), …]`` into ``statement``): unsupported-span labels.
    Detected by ``statement`` + ``citation_text``.

``attributionbench`` (cited answers, per-sentence binary labels)
    ``answer`` str with ``[n]`` marks, ``passages`` list of ``{id, title?, text}``, ``human.labelled_sentences`` list
    of ``{text, cited: [n, …], attributable: 1/0}``; optional ``question``. Only labelled sentences are scored; each is
    located in ``answer`` (its span is None if it cannot be found). A sentence without marks (``cited`` empty or
    absent) is judged against all passages of its answer, as AttributionBench does; a sentence citing a passage the
    record lacks cannot be scored: it is listed (``MetaItem.unscorable``), and the answer's other sentences are
    scored. Detected by ``answer`` + ``passages``.

``rose`` (gold atomic content units for decomposition)
    ``reference`` str (the summary to decompose), ``acus`` list of str (expert ACUs). There is no document: the
    reference is also used as the case's only source so that the Case validates; only a decomposer reads it.
    An empty ``acus`` list is allowed (RoSE has one): the item is skipped by the protocol and counted.
    Detected by ``acus``.

Errors are :class:`DataFileError` (an :class:`citefix.errors.InputError`) naming the file, the line, the problem and
the fix. With ``skip_invalid=True`` (the CLI default; ``--strict`` turns it off) a record that parses as JSON but fails these rules (a missing
field, a null document) is left out and listed in ``Loaded.skipped`` instead; the report shows how many.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Literal, overload

from pydantic import BaseModel, Field, ValidationError

from citefix.errors import InputError
from citefix.models import Case, Source
from citefix.nlp import strip_citations

Shape = Literal["xsumfaith", "summeval", "wice", "attributionbench", "rose"]
SHAPES: tuple[str, ...] = ("xsumfaith", "summeval", "wice", "attributionbench", "rose")
FORMATS: tuple[str, ...] = ("auto",) + SHAPES
XSUMFAITH_ANNOTATORS = 3
_SUPPORT = {
    "full": 2, "partial": 1, "none": 0,
    "supported": 2, "partially_supported": 1, "not_supported": 0,
}


class DataFileError(InputError):
    """A line of a meta-evaluation file cannot be used."""

    def __init__(self, file: str | Path, line: int | None, problem: str, fix: str):
        self.file, self.line, self.problem, self.fix = str(file), line, problem, fix
        where = f"{file}:{line}" if line is not None else str(file)
        super().__init__(f"{where}: {problem}. Fix: {fix}")


class AnnotatedSpan(BaseModel):
    """A span of the case text one annotator marked as unsupported."""

    start: int
    end: int
    annotator: str
    type: str | None = None


class LabelledSentence(BaseModel):
    """One human-labelled sentence of a cited answer."""

    index: int = Field(description="Position among the answer's labelled sentences.")
    text: str = Field(description="The sentence as labelled, citation marks included.")
    unit_text: str = Field(description="The sentence with citation marks removed: what is verified.")
    start: int | None = Field(default=None, description="Span in the answer; None if it could not be located.")
    end: int | None = None
    cited: list[str]
    label: int = Field(description="1 attributable, 0 not.")
    ref: str | None = Field(default=None, description="The dataset's own id for this sentence, if any.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="The sentence record's other fields.")
    scope: Literal["cited", "all_passages"] = Field(
        default="cited", description="'all_passages': the sentence has no mark and is judged against every passage.")


class UnscorableSentence(BaseModel):
    """A labelled sentence that cannot be scored (it cites a passage the record lacks); listed, not scored."""

    index: int
    text: str
    label: int
    problem: str


class EvidenceAnnotation(BaseModel):
    """WiCE-style evidence: sentence offsets in the cited text and alternative supporting sets of them."""

    sentence_offsets: list[tuple[int, int]]
    supporting_sets: list[list[int]]


class MetaItem(BaseModel):
    """One record: the case to check and the human labels that come with it."""

    shape: Shape
    id: str
    line: int
    case: Case
    label: int | None = Field(default=None, description="Binary: 1 supported / consistent, 0 not.")
    level: int | None = Field(default=None, description="Support level: 2 full, 1 partial, 0 none.")
    rating: float | None = Field(default=None, description="A continuous human rating (SummEval expert mean).")
    spans: list[AnnotatedSpan] | None = Field(
        default=None, description="Unsupported spans in case.text; None when the shape has no span labels."
    )
    n_annotators: int | None = None
    unlocated_spans: int = 0
    evidence: EvidenceAnnotation | None = None
    sentences: list[LabelledSentence] = Field(default_factory=list)
    unscorable: list[UnscorableSentence] = Field(default_factory=list)
    gold_acus: list[str] | None = None

    def field(self, name: str, sentence: int | None = None) -> Any:
        """A field of the input record (a labelled sentence's own field first), or None when it has none."""
        if sentence is not None and name in self.sentences[sentence].metadata:
            return self.sentences[sentence].metadata[name]
        return self.case.metadata.get(name)

    def annotator_spans(self) -> tuple[list[list[tuple[int, int]]], int]:
        """Spans grouped per annotator (first-seen order) and the annotator count for majority voting."""
        groups: dict[str, list[tuple[int, int]]] = {}
        for s in self.spans or []:
            groups.setdefault(s.annotator, []).append((s.start, s.end))
        n = max(self.n_annotators or 1, len(groups))
        return list(groups.values()), n


# ----------------------------------------------------------------------------------------------- detection


def detect_shape(record: dict[str, Any]) -> Shape | None:
    """The shape a record's fields point to, or None."""
    keys = set(record)
    if "acus" in keys:
        return "rose"
    if {"answer", "passages"} <= keys:
        return "attributionbench"
    if {"statement", "citation_text"} <= keys:
        return "wice"
    if "hallucination_spans" in keys:
        return "xsumfaith"
    if {"document", "summary"} <= keys:
        return "summeval"
    return None


def _first_record(path: Path) -> tuple[int, dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            if raw.strip():
                return lineno, _parse_line(path, lineno, raw)
    raise DataFileError(path, None, "the file holds no records", "give a JSONL file with one JSON object per line")


def detect_format(path: str | Path) -> Shape:
    """Detect the shape of a file from its first record."""
    p = _check_path(path)
    lineno, rec = _first_record(p)
    shape = detect_shape(rec)
    if shape is None:
        raise DataFileError(
            p, lineno, f"cannot tell the format from the fields {sorted(rec)[:12]}",
            "use one of the shapes in `citefix.metaeval.loaders` (e.g. document+summary+label, statement+"
            "citation_text+support, answer+passages+human, reference+acus) or pass --format",
        )
    return shape


# ----------------------------------------------------------------------------------------------- reading


def _check_path(path: str | Path) -> Path:
    p = Path(path)
    if not p.exists():
        raise DataFileError(p, None, "the file does not exist", "check the path")
    if p.is_dir():
        raise DataFileError(p, None, "this is a folder, not a file", "give the path of a .jsonl file")
    return p


def _parse_line(path: Path, lineno: int, raw: str) -> dict[str, Any]:
    try:
        rec = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DataFileError(path, lineno, f"not valid JSON ({exc.msg} at column {exc.colno})",
                            "write one complete JSON object per line (JSONL)") from None
    if not isinstance(rec, dict):
        raise DataFileError(path, lineno, f"expected a JSON object, found {type(rec).__name__}",
                            "write one JSON object per line (JSONL), not a JSON array")
    return rec


class SkippedRecord(BaseModel):
    line: int
    problem: str
    fix: str = ""


class Loaded(BaseModel):
    """What a file gave: its shape, the items and the records left out (only with ``skip_invalid``)."""

    path: str
    shape: Shape
    items: list[MetaItem]
    skipped: list[SkippedRecord] = Field(default_factory=list)


def iter_items(
    path: str | Path,
    format: str = "auto",
    limit: int | None = None,
    *,
    skip_invalid: bool = False,
    skipped: list[SkippedRecord] | None = None,
) -> Iterator[MetaItem]:
    """Yield typed items from a JSONL file, in file order; ``limit`` caps the number of records read (valid or not,
    as ``--limit`` says), so an invalid record counts toward it.

    An invalid record raises :class:`DataFileError`, unless ``skip_invalid`` is set: then it is left out and, when a
    ``skipped`` list is given, appended to it. Invalid JSON always raises.
    """
    p = _check_path(path)
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r}. Fix: use one of {', '.join(FORMATS)}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}. Fix: give a positive number or leave it out")
    shape: Shape = detect_format(p) if format == "auto" else format  # type: ignore[assignment]
    parse = _PARSERS[shape]
    count = 0
    with p.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            if limit is not None and count >= limit:
                return
            if not raw.strip():
                continue
            rec = _parse_line(p, lineno, raw)
            count += 1
            try:
                item = parse(_Rec(p, lineno, rec))
            except DataFileError as exc:
                if not skip_invalid:
                    raise DataFileError(exc.file, exc.line, exc.problem,
                                        f"{exc.fix}; or drop --strict to leave such records out") from None
                if skipped is not None:
                    skipped.append(SkippedRecord(line=lineno, problem=exc.problem, fix=exc.fix))
                continue
            yield item


def load(path: str | Path, format: str = "auto", limit: int | None = None, *, skip_invalid: bool = False) -> Loaded:
    """Read a whole file: shape, items, and the records skipped as invalid. A file none of whose records can be used
    raises :class:`DataFileError` (naming the first record's problem), skipped or not: there is nothing to measure."""
    shape = detect_format(path) if format == "auto" else format
    skipped: list[SkippedRecord] = []
    items = list(iter_items(path, format=shape, limit=limit, skip_invalid=skip_invalid, skipped=skipped))
    if not items and skipped:
        first = skipped[0]
        raise DataFileError(path, first.line, f"none of its {len(skipped)} records can be used; the first: "
                            f"{first.problem}", first.fix or "correct the records")
    return Loaded(path=str(path), shape=shape, items=items, skipped=skipped)  # type: ignore[arg-type]


def load_items(path: str | Path, format: str = "auto", limit: int | None = None, **kw: Any) -> list[MetaItem]:
    return list(iter_items(path, format=format, limit=limit, **kw))


class _Rec:
    """A record with helpers that raise DataFileError naming the file and line."""

    def __init__(self, path: Path, line: int, data: dict[str, Any]):
        self.path, self.line, self.data = path, line, data

    def error(self, problem: str, fix: str) -> DataFileError:
        return DataFileError(self.path, self.line, problem, fix)

    @overload
    def str_(self, key: str, *, required: Literal[True] = ...) -> str: ...
    @overload
    def str_(self, key: str, *, required: bool) -> str | None: ...
    def str_(self, key: str, *, required: bool = True) -> str | None:
        if key not in self.data or self.data[key] is None:
            if required:
                raise self.error(f"missing field {key!r}", f"add {key!r} (a non-empty string) to this record")
            return None
        v = self.data[key]
        if not isinstance(v, str):
            raise self.error(f"field {key!r} must be a string, found {type(v).__name__}", f"write {key!r} as a string")
        if not v.strip():
            raise self.error(f"field {key!r} is empty", f"give {key!r} some text or remove the record")
        return v

    def binary(self, key: str, *, required: bool = True) -> int | None:
        v = self.data.get(key)
        if v is None:
            if required:
                raise self.error(f"missing field {key!r}", f"add {key!r}: 1 (supported/consistent) or 0 (not)")
            return None
        if isinstance(v, bool) or v in (0, 1):
            return int(v)
        raise self.error(f"field {key!r} must be 0 or 1, found {v!r}", f"write {key!r} as 1 or 0")

    @overload
    def list_(self, key: str, *, required: Literal[True] = ...) -> list: ...
    @overload
    def list_(self, key: str, *, required: bool) -> list | None: ...
    def list_(self, key: str, *, required: bool = True) -> list | None:
        v = self.data.get(key)
        if v is None:
            if required:
                raise self.error(f"missing field {key!r}", f"add {key!r} (a list)")
            return None
        if not isinstance(v, list):
            raise self.error(f"field {key!r} must be a list, found {type(v).__name__}", f"write {key!r} as a JSON list")
        return v

    @property
    def id(self) -> str:
        v = self.data.get("id")
        return str(v) if v is not None and str(v).strip() else f"{self.path.stem}:{self.line}"

    def case(self, *, consumed: tuple[str, ...], **kw: Any) -> Case:
        """The case; every record field not in ``consumed`` (nor ``id``) goes to its metadata."""
        meta = {k: v for k, v in self.data.items() if k not in consumed and k != "id"}
        try:
            return Case(id=self.id, metadata=meta, **kw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise self.error(f"invalid case ({where}: {first['msg']})", "give non-empty texts for every source") from None


def _int_pair(rec: _Rec, v: Any, what: str, limit: int) -> tuple[int, int]:
    if not (isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, int) for x in v)):
        raise rec.error(f"{what} must be a [start, end] pair of integers, found {v!r}", f"fix {what}")
    a, b = v
    if not 0 <= a <= b <= limit:
        raise rec.error(f"{what} {v!r} lies outside the text (length {limit})",
                        "use 0-based, end-exclusive character offsets into the text")
    return a, b


# ----------------------------------------------------------------------------------------------- shapes


def _summary_case(rec: _Rec) -> Case:
    document, summary = rec.str_("document"), rec.str_("summary")
    return rec.case(sources=[Source(id="document", text=document)], text=summary, kind="summary",
                    consumed=("document", "summary"))


def _xsumfaith(rec: _Rec) -> MetaItem:
    case = _summary_case(rec)
    raw_spans = rec.list_("hallucination_spans")
    spans: list[AnnotatedSpan] = []
    unlocated = 0
    for k, s in enumerate(raw_spans):
        if not isinstance(s, dict):
            raise rec.error(f"hallucination_spans[{k}] must be an object", "write {start, end, worker} objects")
        if s.get("start") is None or s.get("end") is None:
            unlocated += 1
            continue
        a, b = _int_pair(rec, [s.get("start"), s.get("end")], f"hallucination_spans[{k}]", len(case.text))
        worker = s.get("worker")
        spans.append(AnnotatedSpan(start=a, end=b, annotator=str(worker) if worker is not None else f"a{k}",
                                   type=s.get("type")))
    n_ann = rec.data.get("n_annotators", XSUMFAITH_ANNOTATORS)
    if not isinstance(n_ann, int) or n_ann < 1:
        raise rec.error(f"n_annotators must be a positive integer, found {n_ann!r}", "fix or remove n_annotators")
    n_ann = max(n_ann, len({s.annotator for s in spans}))
    return MetaItem(shape="xsumfaith", id=case.id, line=rec.line, case=case, label=rec.binary("label"),
                    spans=spans, n_annotators=n_ann, unlocated_spans=unlocated)


def _summeval(rec: _Rec) -> MetaItem:
    case = _summary_case(rec)
    label = rec.binary("label", required=False)
    rating = rec.data.get("consistency_expert_mean")
    if rating is not None and (isinstance(rating, bool) or not isinstance(rating, (int, float))):
        raise rec.error(f"consistency_expert_mean must be a number, found {rating!r}", "write it as a number")
    if label is None and rating is None:
        raise rec.error("neither 'label' nor 'consistency_expert_mean' is present",
                        "add label (1/0) and/or consistency_expert_mean (a number)")
    return MetaItem(shape="summeval", id=case.id, line=rec.line, case=case, label=label,
                    rating=None if rating is None else float(rating))


def _wice(rec: _Rec) -> MetaItem:
    statement, citation = rec.str_("statement"), rec.str_("citation_text")
    support = rec.data.get("support", rec.data.get("label_raw"))
    if support is None:
        raise rec.error("missing field 'support'", "add support: full, partial or none")
    if support not in _SUPPORT:
        raise rec.error(f"support must be full, partial or none, found {support!r}", "use full, partial or none")
    case = rec.case(sources=[Source(id="citation", text=citation)], text=statement, kind="summary",
                    consumed=("statement", "citation_text"))
    evidence = None
    offsets = rec.list_("evidence_sentence_offsets", required=False)
    if offsets is not None:
        pairs = [_int_pair(rec, o, f"evidence_sentence_offsets[{k}]", len(citation)) for k, o in enumerate(offsets)]
        sets_raw = rec.list_("supporting_sentence_sets", required=False) or []
        sets: list[list[int]] = []
        for k, st in enumerate(sets_raw):
            if not isinstance(st, list) or not all(isinstance(i, int) and 0 <= i < len(pairs) for i in st):
                raise rec.error(f"supporting_sentence_sets[{k}] must list indices into evidence_sentence_offsets "
                                f"(0..{len(pairs) - 1}), found {st!r}", "fix the indices")
            sets.append(list(dict.fromkeys(st)))
        evidence = EvidenceAnnotation(sentence_offsets=pairs, supporting_sets=sets)
    spans = None
    n_ann = None
    raw_spans = rec.list_("non_supported_char_spans", required=False)
    if raw_spans is not None:
        spans = []
        for k, s in enumerate(raw_spans):
            a, b = _int_pair(rec, s, f"non_supported_char_spans[{k}]", len(statement))
            spans.append(AnnotatedSpan(start=a, end=b, annotator="gold"))
        n_ann = 1
    return MetaItem(shape="wice", id=case.id, line=rec.line, case=case, level=_SUPPORT[support],
                    evidence=evidence, spans=spans, n_annotators=n_ann)


def _attributionbench(rec: _Rec) -> MetaItem:
    answer = rec.str_("answer")
    question = rec.str_("question", required=False)
    passages = rec.list_("passages")
    sources = []
    for k, p in enumerate(passages):
        if not isinstance(p, dict) or "id" not in p or not isinstance(p.get("text"), str) or not p["text"].strip():
            raise rec.error(f"passages[{k}] must be an object with an id and non-empty text",
                            "write passages as [{\"id\": \"1\", \"title\": \"\", \"text\": \"...\"}]")
        sources.append(Source(id=str(p["id"]), title=str(p.get("title") or ""), text=p["text"]))
    ids = [s.id for s in sources]
    if len(set(ids)) != len(ids):
        raise rec.error("two passages share an id", "give each passage a distinct id")
    human = rec.data.get("human")
    labelled = human.get("labelled_sentences") if isinstance(human, dict) else None
    if not isinstance(labelled, list):
        raise rec.error("missing field 'human.labelled_sentences'",
                        "add human: {labelled_sentences: [{text, cited, attributable}]}")
    sentences: list[LabelledSentence] = []
    unscorable: list[UnscorableSentence] = []
    search_from = 0
    for k, s in enumerate(labelled):
        if not isinstance(s, dict) or not isinstance(s.get("text"), str) or not s["text"].strip():
            raise rec.error(f"human.labelled_sentences[{k}] needs a non-empty 'text'", "add the sentence text")
        label = s.get("attributable")
        if isinstance(label, bool) or label not in (0, 1):
            raise rec.error(f"human.labelled_sentences[{k}].attributable must be 0 or 1, found {label!r}",
                            "write attributable as 1 or 0")
        cited = s.get("cited")
        scope: Literal["cited", "all_passages"] = "cited"
        if cited is None or cited == []:
            # no citation mark: judged against every passage of its answer, as AttributionBench does
            cited_ids, scope = list(ids), "all_passages"
        elif not isinstance(cited, list):
            unscorable.append(UnscorableSentence(index=k, text=s["text"].strip(), label=int(label),
                                                 problem=f"'cited' must be a list of passage ids, found {cited!r}"))
            continue
        else:
            cited_ids = list(dict.fromkeys(str(c) for c in cited))
        unknown = [c for c in cited_ids if c not in ids]
        if unknown:
            unscorable.append(UnscorableSentence(
                index=k, text=s["text"].strip(), label=int(label),
                problem=f"cites {', '.join(f'[{c}]' for c in unknown)}, not among the record's passages {ids}"))
            continue
        text = s["text"].strip()
        start = answer.find(text, search_from)
        if start < 0:
            start = answer.find(text)
        end = start + len(text) if start >= 0 else None
        if start >= 0:
            search_from = start + 1
        unit_text = strip_citations(text).strip() or text
        sentences.append(LabelledSentence(index=k, text=text, unit_text=unit_text,
                                          start=start if start >= 0 else None, end=end, cited=cited_ids,
                                          label=int(label), ref=s.get("ab_id"), scope=scope,
                                          metadata={k: v for k, v in s.items()
                                                    if k not in ("text", "cited", "attributable")}))
    if not sentences and not unscorable:
        raise rec.error("no labelled sentences", "label at least one sentence or remove the record")
    case = rec.case(sources=sources, text=answer, question=question, kind="cited_answer",
                    consumed=("answer", "passages", "question"))
    return MetaItem(shape="attributionbench", id=case.id, line=rec.line, case=case, sentences=sentences,
                    unscorable=unscorable)


def _rose(rec: _Rec) -> MetaItem:
    reference = rec.str_("reference")
    acus = rec.list_("acus")
    if not all(isinstance(a, str) for a in acus):
        raise rec.error("acus must be a list of strings", "write each ACU as a string")
    acus = [a for a in acus if a.strip()]  # an empty list is kept: the protocol skips and counts such items
    case = rec.case(sources=[Source(id="reference", text=reference)], text=reference, kind="summary",
                    consumed=("reference",))
    return MetaItem(shape="rose", id=case.id, line=rec.line, case=case, gold_acus=acus)


_PARSERS = {
    "xsumfaith": _xsumfaith,
    "summeval": _summeval,
    "wice": _wice,
    "attributionbench": _attributionbench,
    "rose": _rose,
}
