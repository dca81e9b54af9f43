"""One claim per citation group, cut from the sentence's dependency tree (ALiiCE), and ALCE's whole-sentence units.

For a sentence with several citation groups (METHODS §2):

1. the marks are removed (citefix.marks keeps each group's position in the cleaned sentence);
2. the cleaned sentence is parsed with spaCy (all sentences of a case, or of many cases, in one `nlp.pipe`);
3. each group is attached to a word: the last word before it, or the first word after it when none comes before;
4. for group i's word, and every other group's word j in turn, in a working copy of the tree: take their lowest
   common ancestor (LCA) and the subtrees T_i, T_j under the LCA's children that hold i and j —
   LCA is i: remove T_j; LCA is j: put T_i in the LCA's place; otherwise remove T_j when T_i comes first, and put T_i
   in the LCA's place when it comes after;
5. the words left, in their original order, are group i's claim.

Our reading of the refinement ("when the LCA is the root and T_i hangs from it by prep/advcl, swap the two actions"):
it applies to the *leading* subtree — the one of T_i, T_j that comes first — and only when that subtree opens the
sentence (holds its first word), as in "In addition to X [1], Y [2]." There the opening phrase's group gets the
phrase alone and the main clause's group gets the main clause without the phrase. Read literally (any prep/advcl T_i),
the rule contradicts METHODS' own worked examples ("Some brands ... come in packs of 25 [2], while ..." would give
"in packs of 25"); the published parser checks the same "holds the first word" condition.

Two clean-ups, both settings: `drop_coordinators` (default on) also removes, when T_j is removed, the coordinators
and punctuation hanging from the same head between the kept words and T_j — without it "Dr. Lexie Grey [1][2] and
Dr. Mark Sloan [3]" leaves the published parser's dangling "and"; `drop_leading_mark` (default on) removes the
subordinator ("while", "although") of a clause that becomes the claim's root. Punctuation at either edge of a claim is
always dropped; every other character comes from the original text (numbers such as "3.08 million" survive).

A sentence with a single group (or whose groups all sit on one word) gives the whole sentence, kind "sentence", as in
ALCE. Fallbacks to the whole sentence with all its citations — counted, reason in Unit.note and meta["fallback"]:
"long sentence" (more than `max_words` words), "root carries citation" (a group sits on the root word), "alignment
failed" (a group has no word to attach to).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence, cast

from citefix.marks import CitationGroup, ParsedAnswer, Sentence, parse_case
from citefix.models import Case, Unit

_COORD_DEPS = frozenset({"cc", "punct", "preconj"})
_LEAD_DEPS = frozenset({"mark", "cc"})
_REFINE_DEPS = frozenset({"prep", "advcl"})

FALLBACK_LONG = "long sentence"
FALLBACK_ROOT = "root carries citation"
FALLBACK_ALIGN = "alignment failed"


@dataclass(frozen=True)
class ParsedTokens:
    """What the claim rules need of a spaCy Doc, as plain lists (index = token index)."""

    starts: list[int]
    ends: list[int]
    heads: list[int]  # head index; -1 for a sentence root
    deps: list[str]
    punct: list[bool]  # punctuation or whitespace: never a citation's word, dropped at claim edges

    @classmethod
    def from_doc(cls, doc) -> "ParsedTokens":
        starts, ends, heads, deps, punct = [], [], [], [], []
        for t in doc:
            starts.append(t.idx)
            ends.append(t.idx + len(t.text))
            heads.append(-1 if t.head.i == t.i else t.head.i)
            deps.append(t.dep_)
            punct.append(bool(t.is_punct or t.is_space))
        return cls(starts, ends, heads, deps, punct)

    def __len__(self) -> int:
        return len(self.starts)


@dataclass
class ClaimStats:
    """Running counts over every call of one decomposer, for reports and the bench."""

    sentences: int = 0
    cited_sentences: int = 0
    groups: int = 0
    claims: int = 0
    whole_sentences: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimCut:
    """The claim for one group: kept token indices, or a fallback reason."""

    group: int
    tokens: tuple[int, ...] = ()
    word: int | None = None
    fallback: str | None = None


def attach_word(tokens: ParsedTokens, offset: int) -> int | None:
    """The word a group at cleaned character `offset` attaches to: the last word ending at or before it, else the
    first word after it. Punctuation never carries a citation."""
    before = [i for i in range(len(tokens)) if not tokens.punct[i] and tokens.ends[i] <= offset]
    if before:
        return before[-1]
    after = [i for i in range(len(tokens)) if not tokens.punct[i] and tokens.starts[i] >= offset]
    return after[0] if after else None


class _Tree:
    """A mutable copy of a dependency tree; node -1 is a virtual root above the sentence root(s)."""

    VROOT = -1

    def __init__(self, tokens: ParsedTokens):
        self.tokens = tokens
        self.parent: dict[int, int | None] = {self.VROOT: None}
        for i, h in enumerate(tokens.heads):
            self.parent[i] = h  # -1 (a sentence root) hangs from the virtual root
        roots = [i for i, h in enumerate(tokens.heads) if h == -1]
        self.root = roots[0] if len(roots) == 1 else self.VROOT
        if self.root != self.VROOT:
            self.parent[self.root] = None
            del self.parent[self.VROOT]

    def alive(self, i: int) -> bool:
        return i in self.parent

    def path(self, i: int) -> list[int]:
        out = [i]
        while self.parent[out[-1]] is not None:
            out.append(cast(int, self.parent[out[-1]]))  # checked just above
        return out

    def children(self, i: int) -> list[int]:
        return [c for c, p in self.parent.items() if p == i]

    def subtree(self, i: int) -> set[int]:
        kids: dict[int, list[int]] = {}
        for c, p in self.parent.items():
            if p is not None:
                kids.setdefault(p, []).append(c)
        out, stack = set(), [i]
        while stack:
            n = stack.pop()
            out.add(n)
            stack.extend(kids.get(n, ()))
        return out

    def dep(self, i: int) -> str:
        return "ROOT" if i == self.VROOT or i == self.root else self.tokens.deps[i]

    def remove(self, nodes: Iterable[int]) -> None:
        for n in nodes:
            self.parent.pop(n, None)

    def replace(self, lca: int, ti: int) -> None:
        """Put subtree ti where lca stands; everything else under lca goes."""
        keep = self.subtree(ti)
        above = self.parent[lca]
        self.remove(self.subtree(lca) - keep)
        self.parent[ti] = above
        if lca == self.root:
            self.root = ti

    def words(self) -> list[int]:
        return sorted(n for n in self.parent if n != self.VROOT)


def cut_claims(
    tokens: ParsedTokens,
    offsets: Sequence[int],
    *,
    drop_coordinators: bool = True,
    drop_leading_mark: bool = True,
) -> list[ClaimCut]:
    """Apply the ALiiCE rules to one parsed sentence whose groups sit at cleaned offsets `offsets` (in order)."""
    words = [attach_word(tokens, o) for o in offsets]
    if any(w is None for w in words):
        return [ClaimCut(group=g, fallback=FALLBACK_ALIGN) for g in range(len(offsets))]
    nodes = list(dict.fromkeys(cast("list[int]", words)))  # no None past the check above; groups on the same word share it
    base = _Tree(tokens)
    if len(nodes) > 1 and any(base.parent.get(w) is None or base.parent.get(w) == _Tree.VROOT for w in nodes):
        return [ClaimCut(group=g, word=w, fallback=FALLBACK_ROOT) for g, w in enumerate(words)]
    first_word = next((k for k in range(len(tokens)) if not tokens.punct[k]), 0)

    claims: dict[int, tuple[int, ...]] = {}
    for i in nodes:
        tree = _Tree(tokens)
        for j in nodes:
            if j == i or not tree.alive(j):
                continue
            pi, pj = tree.path(i), tree.path(j)
            on_j = set(pj)
            lca = next(n for n in pi if n in on_j)
            if lca == i:
                tj = pj[pj.index(lca) - 1]
                _remove_branch(tree, lca, {i}, tj, drop_coordinators)
            elif lca == j:
                ti = pi[pi.index(lca) - 1]
                _replace(tree, lca, ti, drop_leading_mark)
            else:
                ti, tj = pi[pi.index(lca) - 1], pj[pj.index(lca) - 1]
                sub_i, sub_j = tree.subtree(ti), tree.subtree(tj)
                before = min(sub_i) < min(sub_j)
                lead, lead_sub = (ti, sub_i) if before else (tj, sub_j)
                swap = lca == tree.root and tree.dep(lead) in _REFINE_DEPS and first_word in lead_sub
                if before != swap:
                    _remove_branch(tree, lca, sub_i, tj, drop_coordinators)
                else:
                    _replace(tree, lca, ti, drop_leading_mark)
        kept = tree.words()
        while kept and tokens.punct[kept[0]]:
            kept.pop(0)
        while kept and tokens.punct[kept[-1]]:
            kept.pop()
        claims[i] = tuple(kept)
    return [ClaimCut(group=g, tokens=claims[w], word=w) for g, w in enumerate(cast("list[int]", words))]


def _remove_branch(tree: _Tree, head: int, kept_side: set[int], tj: int, drop_coordinators: bool) -> None:
    sub_j = tree.subtree(tj)
    tree.remove(sub_j)
    if not drop_coordinators:
        return
    lo, hi = (max(kept_side), min(sub_j)) if max(kept_side) < min(sub_j) else (max(sub_j), min(kept_side))
    for c in tree.children(head):
        if lo < c < hi and tree.tokens.deps[c] in _COORD_DEPS:
            tree.remove(tree.subtree(c))


def _replace(tree: _Tree, lca: int, ti: int, drop_leading_mark: bool) -> None:
    tree.replace(lca, ti)
    if drop_leading_mark and tree.root == ti:
        for c in tree.children(ti):
            if c < ti and tree.tokens.deps[c] in _LEAD_DEPS:
                tree.remove(tree.subtree(c))


# --- units ------------------------------------------------------------------------------------------------------------


def _pieces_meta(sentence: Sentence, runs: list[tuple[int, int]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for a, b in runs:
        out.extend(p.model_dump() for p in sentence.original_pieces(a, b))
    return out


def _runs(tokens: ParsedTokens, kept: Sequence[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive kept tokens, as cleaned-sentence character spans."""
    runs: list[tuple[int, int]] = []
    prev = None
    for k in kept:
        if prev is not None and k == prev + 1:
            runs[-1] = (runs[-1][0], tokens.ends[k])
        else:
            runs.append((tokens.starts[k], tokens.ends[k]))
        prev = k
    return runs


def _span_unit(
    *,
    text: str,
    kind: str,
    decomposer: str,
    sentence: Sentence,
    pieces: list[dict[str, Any]],
    cited: list[str],
    missing: list[str],
    group: int | None,
    meta: dict[str, Any],
    note: str | None = None,
) -> Unit:
    start = min((p["start"] for p in pieces), default=sentence.start)
    end = max((p["end"] for p in pieces), default=sentence.end)
    meta = {"pieces": pieces, "missing": missing, **meta}
    return Unit(
        id="",
        text=text,
        kind=kind,  # type: ignore[arg-type]
        decomposer=decomposer,
        start=start,
        end=end,
        note=note,
        cited=cited,
        sentence=sentence.index,
        group=group,
        meta=meta,
    )


def sentence_unit(sentence: Sentence, decomposer: str, *, fallback: str | None = None) -> Unit:
    """The whole sentence (marks removed) with all its citations: ALCE's unit, and ALiiCE's fallback."""
    groups = sentence.groups
    meta: dict[str, Any] = {"groups": [g.index for g in groups]}
    if fallback:
        meta["fallback"] = fallback
    return _span_unit(
        text=sentence.clean,
        kind="sentence",
        decomposer=decomposer,
        sentence=sentence,
        pieces=_pieces_meta(sentence, [(0, len(sentence.clean))]),
        cited=sentence.cited_ids,
        missing=list(dict.fromkeys(m for g in groups for m in g.missing)),
        group=groups[0].index if groups else None,
        meta=meta,
        note=f"whole sentence: {fallback}" if fallback else None,
    )


def _number(units: list[Unit], prefix: str) -> list[Unit]:
    units.sort(key=lambda u: (u.sentence if u.sentence is not None else -1, u.group if u.group is not None else -1))
    return [u.model_copy(update={"id": f"{prefix}{k}"}) for k, u in enumerate(units, 1)]


class SentenceDecomposer:
    """ALCE's units: one per cited sentence, the sentence without its marks, citing all of the sentence's passages."""

    name = "alce-sentence"
    llm = None
    errors: tuple[str, ...] = ()

    def units(self, case: Case, parsed: ParsedAnswer | None = None) -> list[Unit]:
        parsed = parsed or parse_case(case)
        return _number([sentence_unit(s, self.name) for s in parsed.sentences if s.groups], "s")


class ClaimDecomposer:
    """ALiiCE's claim extractor: one claim per citation group, from the spaCy dependency tree (see module doc)."""

    name = "aliice"
    llm = None
    errors: tuple[str, ...] = ()

    def __init__(
        self,
        *,
        max_words: int = 50,
        drop_coordinators: bool = True,
        drop_leading_mark: bool = True,
        spacy_model: str | None = None,
        batch_size: int = 256,
    ):
        self.max_words = max_words
        self.drop_coordinators = drop_coordinators
        self.drop_leading_mark = drop_leading_mark
        self.spacy_model = spacy_model
        self.batch_size = batch_size
        self.stats = ClaimStats()

    def _nlp(self):
        from citefix.nlp import load_spacy

        return load_spacy(self.spacy_model) if self.spacy_model else load_spacy()

    def parse(self, texts: list[str]) -> list[ParsedTokens]:
        """Dependency-parse cleaned sentences in one batch (tagger, lemmatizer and NER switched off)."""
        if not texts:
            return []
        nlp = self._nlp()
        off = [p for p in ("tagger", "attribute_ruler", "lemmatizer", "ner") if p in nlp.pipe_names]
        return [ParsedTokens.from_doc(d) for d in nlp.pipe(texts, batch_size=self.batch_size, disable=off)]

    def units(self, case: Case, parsed: ParsedAnswer | None = None) -> list[Unit]:
        return self.units_many([case], [parsed] if parsed is not None else None)[0]

    def units_many(self, cases: Sequence[Case], parsed: Sequence[ParsedAnswer] | None = None) -> list[list[Unit]]:
        """Units for many cases with one spaCy batch over all their multi-group sentences."""
        answers = list(parsed) if parsed is not None else [parse_case(c) for c in cases]
        todo: list[tuple[int, Sentence]] = []
        for a_idx, ans in enumerate(answers):
            for s in ans.sentences:
                self.stats.sentences += 1
                if s.groups:
                    self.stats.cited_sentences += 1
                    self.stats.groups += len(s.groups)
                if len(s.groups) > 1 and s.word_count <= self.max_words:
                    todo.append((a_idx, s))
        docs = iter(self.parse([s.clean for _, s in todo]))
        parses = {(a, s.index): next(docs) for a, s in todo}

        out: list[list[Unit]] = []
        for a_idx, ans in enumerate(answers):
            units: list[Unit] = []
            for s in ans.sentences:
                units.extend(self._sentence_units(s, parses.get((a_idx, s.index))))
            out.append(_number(units, "u"))
        return out

    def _fallback(self, s: Sentence, reason: str) -> list[Unit]:
        self.stats.fallbacks[reason] = self.stats.fallbacks.get(reason, 0) + 1
        self.stats.whole_sentences += 1
        return [sentence_unit(s, self.name, fallback=reason)]

    def _sentence_units(self, s: Sentence, tokens: ParsedTokens | None) -> list[Unit]:
        if not s.groups:
            return []
        if len(s.groups) == 1:
            self.stats.whole_sentences += 1
            return [sentence_unit(s, self.name)]
        if s.word_count > self.max_words:
            return self._fallback(s, FALLBACK_LONG)
        if tokens is None:  # not parsed (cannot happen through units_many): judge the whole sentence
            return self._fallback(s, FALLBACK_ALIGN)
        cuts = cut_claims(
            tokens,
            [g.clean_offset for g in s.groups],
            drop_coordinators=self.drop_coordinators,
            drop_leading_mark=self.drop_leading_mark,
        )
        reason = next((c.fallback for c in cuts if c.fallback), None)
        if reason:
            return self._fallback(s, reason)
        if len({c.word for c in cuts}) == 1:  # every group on one word: nothing to tell them apart
            self.stats.whole_sentences += 1
            return [sentence_unit(s, self.name)]
        units = []
        for g, cut in zip(s.groups, cuts):
            units.append(self._claim_unit(s, g, tokens, cut))
        self.stats.claims += len(units)
        return units

    def _claim_unit(self, s: Sentence, g: CitationGroup, tokens: ParsedTokens, cut: ClaimCut) -> Unit:
        runs = _runs(tokens, cut.tokens)
        text = " ".join(s.clean[a:b] for a, b in runs)
        word = s.clean[tokens.starts[cut.word] : tokens.ends[cut.word]] if cut.word is not None else None
        return _span_unit(
            text=text,
            kind="claim",
            decomposer=self.name,
            sentence=s,
            pieces=_pieces_meta(s, runs),
            cited=list(g.ids),
            missing=list(g.missing),
            group=g.index,
            meta={"word": word},
        )
