"""Offline decomposition: cut a text into clause-level units with spaCy's dependency parse.

Clause heads are the root of each sentence, a verb conjoined to a clause head (`conj`), a relative clause (`relcl`)
and an apposition (`appos`). Every token belongs to its nearest clause-head ancestor, so every word of the text lands
in exactly one unit (edge punctuation and conjunctions are trimmed; they carry no content). Split-off units get a
readable, self-contained text — "Boris Johnson was the foreign secretary" for an apposition, the antecedent in place
of "who/which" for a relative clause, the shared subject for a subject-less conjoined verb — while their span points
to the original words. `Unit.meta["align"]` maps pieces of the unit text back to the case text:
`[[unit_start, unit_end, text_start], ...]`, with `unit.text[a:b] == case.text[t:t + b - a]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence, cast

from citefix.decompose.details import _SUBJ, _content, _details
from citefix.lexicon import LIST_MARKER
from citefix.models import Case, Unit
from citefix.nlp import CITATION_MARK, load_spacy

_VERBAL = {"VERB", "AUX"}
_TRIM_POS = {"PUNCT", "CCONJ", "SPACE"}
_KEEP_PUNCT = {"%"}
_GAP_PUNCT = {",", "-", "–", "—", ";", ":", "(", ")", "[", "]"}  # dropped next to a removed clause
_PAST_TAGS = {"VBD", "VBN"}
_CONTRAST = {"while", "whereas"}  # "X, while Y": two claims side by side
_MARK_ID = re.compile(r"\d+(?:\s*[-–]\s*\d+)?")


@dataclass
class _Clause:
    head: Any  # spaCy Token
    kind: str  # root | conj | relcl | appos
    tokens: list = field(default_factory=list)  # owned tokens, in order


class ClauseDecomposer:
    """Clause-level units from spaCy (coordination, relative clauses, appositions). Deterministic, no LLM."""

    name = "spacy-clauses"
    llm, errors = None, ()  # no LLM; nothing in a text fails to be decomposed

    def __init__(self, *, split_conj: bool = True, split_relcl: bool = True, split_appos: bool = True,
                 split_details: bool = True, nlp=None):
        self.split_details = split_details
        self.split_conj = split_conj
        self.split_relcl = split_relcl
        self.split_appos = split_appos
        self._nlp = nlp

    @property
    def nlp(self):
        if self._nlp is None:
            self._nlp = load_spacy()
        return self._nlp

    def units(self, case: Case) -> list[Unit]:
        return self.units_many([case])[0]

    def units_many(self, cases: Sequence[Case]) -> list[list[Unit]]:
        """Decompose several cases with one batched spaCy pass."""
        cleaned = [_strip_marks(c.text) for c in cases]
        return [self._units_for(doc, cl) for doc, cl in zip(self._parse(cleaned), cleaned)]

    def units_for_text(self, text: str) -> list[Unit]:
        """Units for a bare text (no case): used by tools and tests."""
        cl = _strip_marks(text)
        return self._units_for(self._parse([cl])[0], cl)

    def _parse(self, cleaned: Sequence["_Cleaned"]) -> list[Any]:
        """The cleaned texts parsed in one batched pass, with a sentence starting at each of `_Cleaned.breaks` (a
        list item, the line after a heading, a paragraph): the parser keeps sentence starts set before it runs."""
        docs = []
        for cl in cleaned:
            doc = self.nlp.make_doc(cl.text)
            for tok in doc:
                if tok.i and tok.idx in cl.breaks:
                    tok.is_sent_start = True
            docs.append(doc)
        return list(self.nlp.pipe(docs, batch_size=64))

    # --- internals ---------------------------------------------------------------------------------------------

    def _units_for(self, doc, cl: "_Cleaned") -> list[Unit]:
        out: list[Unit] = []
        for s_idx, sent in enumerate(doc.sents):
            if _heading(sent):
                continue
            for clause in self._clauses(sent):
                details = _details(clause) if self.split_details else []
                if not details:
                    unit = self._build(clause, sent, cl, s_idx)
                    if unit is not None:
                        out.append(unit)
                    continue
                # The core: the clause without its details. Each detail: the core (its context) plus the detail,
                # scored and painted on the detail's own words (meta["focus"], meta["pieces"]).
                inside = {i for d in details for i in d.own}
                core = [t for t in clause.tokens if t.i not in inside]
                # "X said …": the speaker's unit keeps what was said as its context
                said = {i for d in details if d.role == "content" for i in d.own}
                ctx: list[Any] | set[int] = [t for t in clause.tokens if t.i not in inside or t.i in said]
                cands = [_Candidate(cast("list[Any]", ctx), {t.i for t in core}, "speaker" if said else "core")]
                for d in details:
                    ctx = set(d.own)
                    for a in d.ancestors:
                        ctx |= set(a.own)
                    if not any(a.role == "content" for a in [d, *d.ancestors]):
                        ctx |= {t.i for t in core}
                    plain = d.role == "content" or any(a.role == "content" for a in d.ancestors)
                    cands.append(_Candidate([t for t in clause.tokens if t.i in ctx], set(d.own), d.role, plain))
                for c in _fold_fragments(cands):
                    unit = self._build(clause, sent, cl, s_idx, toks=c.toks, focus=c.focus, role=c.role,
                                       plain=c.plain)
                    if unit is not None:
                        out.append(unit)
        out.sort(key=lambda u: (u.start, u.end))
        return [u.model_copy(update={"id": f"u{i + 1}"}) for i, u in enumerate(out)]

    def _is_head(self, tok) -> str | None:
        if tok.dep_ == "ROOT":
            return "root"
        if (self.split_conj and tok.dep_ == "conj" and tok.pos_ in _VERBAL and tok.head.pos_ in _VERBAL
                and not _hyphenated(tok) and not _gerund_misparse(tok)):
            return "conj"
        if self.split_relcl and tok.dep_ == "relcl" and _relative_word(tok) is not None:
            # only with a relative word (who, which, that, whose, where): a bare "relcl" is often a misparse
            return "relcl"
        if self.split_appos and tok.dep_ == "appos" and tok.head.pos_ in {"NOUN", "PROPN", "PRON"}:
            return "appos"
        if (
            self.split_conj
            and tok.dep_ == "advcl"
            and any(c.dep_ == "mark" and c.lower_ in _CONTRAST for c in tok.children)
            and any(c.dep_ in _SUBJ for c in tok.children)
        ):
            return "contrast"
        return None

    def _clauses(self, sent) -> list[_Clause]:
        heads: dict[int, _Clause] = {}
        for tok in sent:
            kind = self._is_head(tok)
            if kind:
                heads[tok.i] = _Clause(tok, kind)
        root = sent.root
        if root.i not in heads:
            heads[root.i] = _Clause(root, "root")
        owner_of: dict[int, int] = {}  # token → its clause head; each token's chain is walked once (linear time)
        for tok in sent:
            path: list[int] = []
            cur = tok
            while cur.i not in heads and cur.i not in owner_of and cur.head.i != cur.i and len(path) <= len(sent):
                path.append(cur.i)
                cur = cur.head
            own = cur.i if cur.i in heads else owner_of.get(cur.i, root.i)
            for i in path:
                owner_of[i] = own
            owner_of[tok.i] = own
            heads.get(own, heads[root.i]).tokens.append(tok)
        clauses = [c for c in heads.values() if _content(c.tokens)]
        # A clause left with no content word gives its tokens back to the root clause.
        orphans = [t for c in heads.values() if not _content(c.tokens) for t in c.tokens]
        if orphans:
            main = heads[root.i] if heads[root.i] in clauses else (clauses[0] if clauses else heads[root.i])
            main.tokens = sorted(main.tokens + orphans, key=lambda t: t.i)
            if main not in clauses:
                clauses.append(main)
        return clauses

    def _build(self, clause: _Clause, sent, cl: "_Cleaned", s_idx: int, *, toks: list | None = None,
               focus: set[int] | None = None, role: str | None = None, plain: bool = False) -> Unit | None:
        toks = clause.tokens if toks is None else toks
        if clause.kind == "contrast":
            toks = [t for t in toks if not (t.dep_ == "mark" and t.head.i == clause.head.i and t.lower_ in _CONTRAST)]
        own = _trim(toks)
        if not _content(own):
            return None
        if focus is not None:
            focus_toks = _trim([t for t in own if t.i in focus])
            if not _content(focus_toks):
                return None
        else:
            focus_toks = own
        pieces: list[list] = []  # runs of tokens; each run is rendered with its own whitespace
        note = None
        if plain:
            pieces.append(own)
            note = "reported content"
        elif clause.kind == "conj" and not any(c.dep_ in _SUBJ for c in clause.head.children):
            subj = _shared_subject(clause.head)
            if subj is not None:
                pieces.append(_phrase(subj, clause.head))
                note = "conjoined verb; subject copied from the first clause"
                aux = _shared_aux(clause.head)
                chain = _governing_chain(clause.head)
                if chain and own and own[0].i > chain[-1].i:
                    pieces.append(chain)  # "it had offered to bridge the gap and backdate it" → "it had offered to backdate it"
                    note = "conjoined verb; subject and governing verb copied from the first clause"
                elif aux and own and own[0].i > aux[-1].i:
                    pieces.append(aux)  # "work would start … and take two years" → "work would take two years"
                    note = "conjoined verb; subject and auxiliary copied from the first clause"
            pieces.append(own)
        elif clause.kind == "relcl":
            ante = _phrase(clause.head.head, clause.head)
            pieces.extend(_relcl_pieces(own, ante))
            note = "relative clause; antecedent copied"
        elif clause.kind == "appos":
            anchor = _phrase(clause.head.head, clause.head)
            pieces.append(anchor)
            pieces.append(_copula(anchor, sent))
            pieces.append(own)
            note = "apposition; anchor copied"
        else:
            pieces.append(own)
        text, align, at = _render(pieces, cl)
        if not text.strip():
            return None
        fo = focus_toks
        start, end = cl.orig(fo[0].idx), cl.orig_end(fo[-1].idx + len(fo[-1].text))
        meta: dict = {"align": align, "clause": clause.kind, "role": role or "clause"}
        if self.split_details:
            ids = {t.i for t in fo}
            meta["pieces"] = [[cl.orig(r[0].idx), cl.orig_end(r[-1].idx + len(r[-1].text))] for r in _token_runs(fo)]
            meta["focus"] = _merge_ranges([at[i] for i in sorted(ids) if i in at], text)
        if role in ("core", "speaker"):
            # what is left of a clause once its details are cut off: its words were chosen with the details', so the
            # verifier counts its share of words the source lacks against the whole clause's (offline `cap.invented_share`)
            meta["clause_words"] = sum(1 for t in clause.tokens if _word_of_content(t))
        if role and role not in ("core", "clause"):
            note = (note + "; " if note else "") + f"{role} detail: scored on its own words"
        return Unit(
            id="u0",
            text=text,
            kind="clause",
            decomposer=self.name,
            start=start,
            end=end,
            sentence=s_idx,
            note=note,
            cited=cl.marks_in(fo[0].idx, fo[-1].idx + len(fo[-1].text), sent.end_char),
            meta=meta,
        )


def _heading(sent) -> bool:
    """A line that labels what follows ("Key points:", "Summary of the findings:"): it ends in ':' and has no verb, so it
    states nothing to check."""
    return sent.text.rstrip().endswith(":") and not any(t.pos_ in _VERBAL for t in sent)


def _word_of_content(t) -> bool:
    """A content word as the offline verifier counts one: a noun, verb, adjective or adverb, not a stop word, a name
    or a number."""
    return t.pos_ in {"NOUN", "VERB", "ADJ", "ADV"} and t.is_alpha and not t.is_stop and len(t.text) > 1 and not t.ent_type_


@dataclass
class _Candidate:
    """A unit before it is built: its tokens (context included), the token ids it is scored on, its role."""

    toks: list
    focus: set[int]
    role: str
    plain: bool = False


# A fragment of at most this many words ("he'll report", "Mother was sentenced" is four) is no fact of its own.
MAX_FRAGMENT_WORDS = 3


def _fold_fragments(cands: list[_Candidate]) -> list[_Candidate]:
    """Fold a fragment into the first unit that already carries it as context.

    A core or reported content of three words or fewer ("he'll report" beside "he'll report to Aston Villa") is not a
    checkable fact on its own, and the detail units repeat it anyway; the first unit whose context holds all of its
    tokens is scored on the fragment's words as well, so nothing goes unchecked. A speaker's unit is neither folded
    nor a host (it names who said it; what was said stays a unit of its own). Units stay atomic, not shredded: on RoSE's gold ACUs the best-match ROUGE-1 of the units rises
    (docs/quality.md)."""
    out = list(cands)
    for c in list(out):
        if c.role == "speaker" or len(out) < 2:
            continue
        words = [t for t in _trim([t for t in c.toks if t.i in c.focus]) if any(ch.isalnum() for ch in t.text)]
        if not words or len(words) > MAX_FRAGMENT_WORDS:
            continue
        ids = {t.i for t in c.toks}
        host = next((o for o in out if o is not c and o.role != "speaker" and ids <= {t.i for t in o.toks}), None)
        if host is None:
            continue
        host.focus |= c.focus
        out.remove(c)
    return out


def _trim(tokens: list) -> list:
    """Drop edge punctuation/conjunctions and punctuation next to a gap (the commas around a removed apposition)."""
    toks = list(tokens)
    changed = True
    while changed and toks:
        changed = False
        while toks and _trimmable(toks[0]):
            toks.pop(0)
            changed = True
        while toks and _trimmable(toks[-1]) and toks[-1].text not in _KEEP_PUNCT:
            toks.pop()
            changed = True
        keep = []
        for k, t in enumerate(toks):
            gap_before = k > 0 and toks[k - 1].i != t.i - 1
            gap_after = k + 1 < len(toks) and toks[k + 1].i != t.i + 1
            if t.is_punct and t.text in _GAP_PUNCT and (gap_before or gap_after):
                changed = True
                continue
            keep.append(t)
        toks = keep
    return toks


def _trimmable(t) -> bool:
    return t.pos_ in _TRIM_POS or (t.is_punct and t.text not in _KEEP_PUNCT)


def _shared_subject(verb):
    """The subject of the nearest governing clause of this conjoined verb (up the tree, a few steps at most)."""
    head = verb.head
    for _ in range(6):
        subj = next((c for c in head.children if c.dep_ in _SUBJ), None)
        if subj is not None:
            return subj
        if head.head.i == head.i:
            return None
        head = head.head
    return None


def _governing_chain(verb) -> list:
    """For a verb conjoined to a to-infinitive ("offered to bridge the gap and backdate it"): the governing verb with
    its auxiliaries and negation, and the infinitive's "to" ("had repeatedly offered to"), which the conjoined verb
    shares; empty otherwise."""
    first = verb.head
    if first.dep_ != "xcomp" or first.head.pos_ not in _VERBAL:
        return []
    to = [c for c in first.children if c.dep_ == "aux" and c.lower_ == "to"]
    if not to or any(c.dep_ in ("aux", "mark") for c in verb.children):
        return []
    gov = first.head
    own = [c for c in gov.children if c.dep_ in ("aux", "auxpass", "neg") and c.i < gov.i]
    if own:  # an adverb between the auxiliary and the verb stays ("had repeatedly offered")
        own += [c for c in gov.children if c.dep_ == "advmod" and own[0].i < c.i < gov.i and not list(c.children)]
    return sorted(own + [gov], key=lambda t: t.i) + to


_BE_HAVE = {"be", "have"}


def _shared_aux(verb) -> list:
    """The auxiliaries a subject-less conjoined verb shares with the verb it is conjoined to, when its form needs
    them: a bare verb takes the modal ("would start … and take" → "would take"), a participle the auxiliaries of its
    tense or voice ("has approved … and signed" → "has signed", "will be built and opened" → "will be opened"). A verb
    with its own auxiliary, a finite verb, or a negation on the first verb (its polarity is not shared) gets none."""
    if any(c.dep_ in ("aux", "auxpass") for c in verb.children) or verb.tag_ not in ("VB", "VBN", "VBG"):
        return []
    first = verb.head
    if first.i == verb.i or any(c.dep_ == "neg" for c in first.children):
        return []
    aux = [c for c in first.children if c.dep_ in ("aux", "auxpass") and c.i < first.i and c.lower_ != "to"]
    if verb.tag_ == "VB":
        aux = [a for a in aux if a.tag_ == "MD"]
    elif verb.tag_ == "VBG":
        aux = [a for a in aux if a.tag_ == "MD" or a.lemma_.lower() == "be"]
    elif not any(a.lemma_.lower() in _BE_HAVE for a in aux):
        return []  # a participle after a bare modal ("would start and finished") is a misparse: copy nothing
    return aux


def _gerund_misparse(tok) -> bool:
    """An -ing form conjoined, with no subject or auxiliary of its own, to a verb of another form with no "be" to share
    ("can limit … and earning potential"): a noun's modifier read as a verb; cut apart it read "which can earning"."""
    own = any(c.dep_ in ("aux", "auxpass") or c.dep_ in _SUBJ for c in tok.children)
    be = any(c.dep_ in ("aux", "auxpass") and c.lemma_.lower() == "be" for c in tok.head.children)
    return tok.tag_ == "VBG" and tok.head.tag_ != "VBG" and not own and not be


def _hyphenated(tok) -> bool:
    """'re-signed' parsed as 're' and 'signed': a hyphen glued to the word before the conjoined verb."""
    i = tok.left_edge.i
    if i < 2:
        return False
    dash, before = tok.doc[i - 1], tok.doc[i - 2]
    return dash.text in {"-", "–"} and not dash.whitespace_ and not before.whitespace_


def _relative_word(head):
    for t in head.subtree:
        if t.i > head.i:
            break
        if t.tag_ in {"WDT", "WP", "WP$"} or (t.tag_ == "WRB" and t.lower_ in {"where", "when"}) or (
            t.lower_ == "that" and t.i == head.left_edge.i
        ):
            return t
    return None


def _phrase(tok, exclude):
    """The noun phrase of `tok`: its subtree without clauses, appositions, and without `exclude`'s subtree."""
    drop = set()
    for c in tok.children:
        if c.i == exclude.i or c.dep_ in {"relcl", "appos", "conj", "cc", "punct", "acl", "advcl"} and c.i > tok.i:
            drop.update(x.i for x in c.subtree)
    toks = [t for t in tok.subtree if t.i not in drop]
    # keep one contiguous run around the head
    run = [t for t in toks if t.i <= tok.i]
    lo = tok.i
    for t in reversed(run):
        if t.i == lo:
            lo -= 1
    left = [t for t in toks if lo < t.i <= tok.i]
    hi = tok.i
    right = []
    for t in toks:
        if t.i == hi + 1:
            right.append(t)
            hi += 1
    return _trim(left + right) or [tok]


def _relcl_pieces(own: list, ante: list) -> list[list]:
    rel = next(
        (
            t
            for t in own
            if t.tag_ in {"WDT", "WP", "WP$"}
            or (t.tag_ == "WRB" and t.lower_ in {"where", "when"})
            or (t.lower_ == "that" and t.i == own[0].i)
        ),
        None,
    )
    if rel is None:
        return [ante, own]
    before = [t for t in own if t.i < rel.i]
    after = [t for t in own if t.i > rel.i]
    if rel.tag_ == "WP$":  # whose → X's
        return [p for p in (before, ante, ["'s"], after) if p]
    if rel.tag_ == "WRB":  # where/when → "... in X" / keep as is
        if rel.lower_ == "where":
            return [p for p in (before, after, ["in"], ante) if p]
        return [ante, own]
    return [p for p in (before, ante, after) if p]


def _copula(anchor: list, sent) -> list:
    plural = anchor[-1].tag_ in {"NNS", "NNPS"} if hasattr(anchor[-1], "tag_") else False
    past = sent.root.tag_ in _PAST_TAGS or any(t.tag_ == "VBD" for t in sent if t.dep_ in {"aux", "auxpass"})
    return [("were" if plural else "was") if past else ("are" if plural else "is")]


def _render(pieces: list[list], cl: "_Cleaned") -> tuple[str, list[list[int]], dict[int, tuple[int, int]]]:
    """Join pieces (token runs or literal strings) into text; return the alignment of copied token text and where
    each copied token (by index; the last copy wins) stands in the unit text."""
    at: dict[int, tuple[int, int]] = {}
    parts: list[str] = []
    spans: list[list[int]] = []  # per copied token: [unit_start, unit_end, orig_start]
    pos = 0
    for p_idx, piece in enumerate(pieces):
        if p_idx and parts and not parts[-1].endswith(" ") and not (isinstance(piece[0], str) and piece[0] == "'s"):
            parts.append(" ")
            pos += 1
        for k, t in enumerate(piece):
            if isinstance(t, str):
                parts.append(t)
                pos += len(t)
                continue
            spans.append([pos, pos + len(t.text), cl.orig(t.idx)])
            at[t.i] = (pos, pos + len(t.text))
            parts.append(t.text)
            pos += len(t.text)
            nxt = piece[k + 1] if k + 1 < len(piece) else None
            if nxt is None:
                continue
            ws = t.whitespace_ if (not isinstance(nxt, str) and nxt.i == t.i + 1) else " "
            parts.append(ws)
            pos += len(ws)
    text = "".join(parts)
    # merge neighbouring token spans when the text between them is the same in the unit and in the case text
    align: list[list[int]] = []
    for a, b, o in spans:
        if align:
            pa, pb, po = align[-1]
            po_end = po + (pb - pa)
            if o - po_end == a - pb and cl.text_orig[po_end:o] == text[pb:a]:
                align[-1][1] = b
                continue
        align.append([a, b, o])
    return text, align, at


def _token_runs(toks: list) -> list[list]:
    runs: list[list] = []
    for t in toks:
        if runs and t.i == runs[-1][-1].i + 1:
            runs[-1].append(t)
        else:
            runs.append([t])
    return runs


def _merge_ranges(ranges: list[tuple[int, int]], text: str) -> list[list[int]]:
    """Unit-text ranges merged across the whitespace between neighbouring words."""
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and not text[out[-1][1] : a].strip():
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


@dataclass
class _Cleaned:
    """The text with citation marks and list-item markers removed, and the map back to the original offsets."""

    text_orig: str
    text: str
    starts: list[int]  # per cleaned char: its original offset
    marks: list[tuple[int, list[str]]]  # (cleaned offset where the mark was, ids)
    breaks: frozenset[int] = frozenset()  # cleaned offsets where a line starts a sentence of its own

    def orig(self, i: int) -> int:
        if i < len(self.starts):
            return self.starts[i]
        return len(self.text_orig) if not self.starts else self.starts[-1] + 1

    def orig_end(self, i: int) -> int:
        return self.orig(i - 1) + 1 if i > 0 else 0

    def marks_in(self, start: int, end: int, limit: int) -> list[str]:
        """Ids of the marks inside [start, end] or right after end (only punctuation between)."""
        out: list[str] = []
        for pos, ids in self.marks:
            if start < pos <= end or (end <= pos <= limit and self.text[end:pos].strip(" ,;:.") == ""):
                out.extend(ids)
        return list(dict.fromkeys(out))


def _strip_marks(text: str) -> _Cleaned:
    """The text without its citation marks and list-item markers, each cleaned character's original offset, where the
    marks stood, and where a line starts a sentence of its own: a list item, the line after one ending in ':' (a
    heading or a lead-in), the first line of a paragraph."""
    cuts: list[tuple[int, int, list[str] | None]] = [(m.start(), m.end(), _mark_ids(m.group(0)))
                                                      for m in CITATION_MARK.finditer(text)]
    cuts += [(m.start(), m.end(), None) for m in LIST_MARKER.finditer(text)
             if not any(a < m.end() and m.start() < b for a, b, _ in cuts)]
    starts: list[int] = []
    parts: list[str] = []
    marks: list[tuple[int, list[str]]] = []
    pos = 0
    clen = 0
    breaks: set[int] = set()
    for a, b, ids in sorted(cuts, key=lambda c: c[0]):
        parts.append(text[pos:a])
        starts.extend(range(pos, a))
        clen += a - pos
        if ids is None:  # a list item starts here
            breaks.add(clen)
        else:
            marks.append((clen, ids))
        pos = b
    parts.append(text[pos:])
    starts.extend(range(pos, len(text)))
    clean = "".join(parts)
    for m in re.finditer(r"(:[ \t]*\n|\n[ \t]*\n)\s*(?=\S)", clean):
        breaks.add(m.end())
    return _Cleaned(text_orig=text, text=clean, starts=starts, marks=marks, breaks=frozenset(breaks))


def _mark_ids(mark: str) -> list[str]:
    ids: list[str] = []
    for m in _MARK_ID.finditer(mark):
        nums = re.split(r"\s*[-–]\s*", m.group(0))
        if len(nums) == 2 and int(nums[1]) >= int(nums[0]) and int(nums[1]) - int(nums[0]) < 50:
            ids.extend(str(k) for k in range(int(nums[0]), int(nums[1]) + 1))
        else:
            ids.append(nums[0])
    return ids


def unit_to_text_offsets(unit: Unit, case_text: str) -> list[list[int]] | None:
    """The alignment of a unit's text to the case text: from meta["align"], or identity when the span holds the text."""
    align = unit.meta.get("align") if unit.meta else None
    if align:
        return [list(a) for a in align]
    if unit.has_span and case_text[unit.start : unit.end] == unit.text:
        return [[0, len(unit.text), cast(int, unit.start)]]  # has_span: start is set
    return None


__all__: Sequence[str] = ["ClauseDecomposer", "unit_to_text_offsets"]
