"""Where the offline reviser cuts: the grammar of deleting the smallest subtree that carries an unsupported unit.

Which dependency relations may go (DELETABLE) and which words belong to their head (FUNCTIONAL), the climb from an
unsupported word to the node to delete, the settling rules that keep a sentence whole (a verb keeps its complement, a
number goes with its phrase, a first conjunct hands its subject to the next), and applying the cuts with the
punctuation mended (`_apply`, `_join`). Used by citefix.revision.offline.OfflineReviser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

from citefix.lexicon import SAYING, STOPWORDS
from citefix.models import Case, Unit

DELETABLE = {
    "amod", "advmod", "npadvmod", "prep", "agent", "appos", "relcl", "acl", "advcl", "conj", "nummod", "quantmod",
    "compound", "parataxis", "predet", "meta", "nmod", "intj",
}
# Dependents that leave a verb "bare" when everything else is deleted.
FUNCTIONAL = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "aux", "auxpass", "neg", "punct", "mark", "cc", "conj",
              "prt", "det"}
# Verbs that read wrong without a complement ("the work will take", "the ticket costs").
NEEDS_COMPLEMENT = set(
    "be take cost last weigh become make give put reach include contain remain seem appear total equal mean involve "
    "require need hold have get keep lead receive owe number measure amount rise fall grow increase decrease drop "
    "stand describe call name".split()
)
SELF_CHECK_DEPS = {"appos", "relcl", "acl", "advcl", "prep", "amod", "nummod", "compound", "conj", "npadvmod", "quantmod"}
_STOP = STOPWORDS | SAYING
_MARK_RUN = re.compile(r"(?:\s*\[\s*\d+(?:\s*(?:,|-|–)\s*\d+)*\s*\])+")


@dataclass
class _Text:
    """The text with citation marks removed, parsed, and the maps between cleaned and original offsets."""

    original: str
    cleaned: str
    orig_of: list[int]  # cleaned index → original index
    clean_at: list[int]  # original index → number of cleaned chars before it
    marks: list[tuple[int, int, int]]  # (original start, original end, cleaned position) of each run of marks
    doc: Any = None

    def tok_range(self, t) -> tuple[int, int]:
        return self.orig_of[t.idx], self.orig_of[t.idx + len(t.text) - 1] + 1


def _clean(text: str) -> _Text:
    orig_of: list[int] = []
    clean_at: list[int] = []
    parts: list[str] = []
    marks: list[tuple[int, int, int]] = []
    pos = 0
    n = 0
    for m in _MARK_RUN.finditer(text):
        parts.append(text[pos : m.start()])
        for k in range(pos, m.start()):
            clean_at.append(n)
            orig_of.append(k)
            n += 1
        for _ in range(m.start(), m.end()):
            clean_at.append(n)
        marks.append((m.start(), m.end(), n))
        pos = m.end()
    parts.append(text[pos:])
    for k in range(pos, len(text)):
        clean_at.append(n)
        orig_of.append(k)
        n += 1
    clean_at.append(n)
    return _Text(text, "".join(parts), orig_of, clean_at, marks)


@dataclass
class _Plan:
    """What to delete in one sentence."""

    nodes: dict[int, str] = field(default_factory=dict)  # token index → why (the unit id)
    first_conjuncts: dict[int, str] = field(default_factory=dict)
    drop: str | None = None  # why the whole sentence goes


_KIND = {"appos": "apposition", "relcl": "relative clause", "conj": "conjunct", "prep": "modifier phrase",
         "acl": "clause modifier", "advcl": "adverbial clause", "amod": "modifier", "advmod": "modifier",
         "npadvmod": "modifier phrase", "nummod": "number", "compound": "modifier", "quantmod": "modifier",
         "parataxis": "clause"}


# --- tree helpers ----------------------------------------------------------------------------------------------------


def _is_word(t) -> bool:
    return not (t.is_punct or t.is_space) and any(ch.isalnum() for ch in t.text)


def _is_content(t) -> bool:
    return _is_word(t) and t.lower_ not in _STOP and t.pos_ not in ("DET", "ADP", "CCONJ", "PRON", "AUX", "PART", "SCONJ")


def _stem(w: str) -> str:
    from citefix.decompose.align import stem

    return stem(w)


def _distinctive(u: Unit, region: list, supported: list[Unit]) -> list:
    """The region's words that carry the unit: in its text and in no supported unit of the same sentence."""
    unit_words = {_stem(w) for w in re.findall(r"[\w£$€%]+(?:[.,'][\w]+)*", u.text) if w.lower() not in _STOP}
    same = [s for s in supported if u.sentence is None or s.sentence is None or s.sentence == u.sentence]
    sup_words = {_stem(w) for s in same for w in re.findall(r"[\w£$€%]+(?:[.,'][\w]+)*", s.text) if w.lower() not in _STOP}
    content = [t for t in region if t.lower_ not in _STOP]
    own = [t for t in content if _stem(t.text) in unit_words or _stem(t.lemma_) in unit_words]
    distinct = [t for t in own if _stem(t.text) not in sup_words and _stem(t.lemma_) not in sup_words]
    return distinct or own or content or region


def _by_sentence(tokens: list) -> dict[int, list]:
    out: dict[int, list] = {}
    for t in sorted(tokens, key=lambda x: x.i):
        out.setdefault(t.sent.start, []).append(t)
    return out


def _climb(t, target_ids: set[int]):
    """The nearest deletable ancestor-or-self of t: (node, is_first_conjunct), or (None, False) at the core."""
    node = t
    while True:
        root = node.dep_ == "ROOT" or node.head.i == node.i
        if not root and node.dep_ in DELETABLE and not _quantity(node):
            return node, False
        # a first conjunct whose partners are fine gives its place to them (even the root verb: "met X and approved Y")
        conj_kids = [c for c in node.children if c.dep_ == "conj" and _same_role(node, c)]
        if conj_kids and not any(x.i in target_ids for c in conj_kids for x in c.subtree):
            return node, True
        if root:
            return None, False
        node = node.head


_ROLE = {"VERB": "verb", "AUX": "verb", "NOUN": "noun", "PROPN": "noun", "PRON": "noun", "NUM": "noun"}


def _same_role(a, b) -> bool:
    """Whether conjunct b can stand in a's place: a verb for a verb, a noun phrase for a noun phrase. A misparse such
    as "was without Totti and fellow forward Gervinho" (the adjective "fellow" a conjunct of "was") must not let the
    verb go: "Roma fellow forward Gervinho" is no sentence."""
    return _ROLE.get(a.pos_, a.pos_) == _ROLE.get(b.pos_, b.pos_)


def _quantity(node) -> bool:
    """A number counting a plural noun ("two years", "200 people"): the number is the phrase's point, so the phrase
    goes, not the number alone ("years" would be left saying something else)."""
    if node.dep_ == "quantmod" and node.head.pos_ == "NUM":
        return True  # one end of a range ("52 to 60"): "aged to 60" would say something else; the range goes
    return node.dep_ in ("nummod", "quantmod") and (node.head.tag_ in ("NNS", "NNPS") or node.head.dep_ == "nummod")


def _outermost(sent, plan: _Plan) -> None:
    """Drop nodes that lie inside another planned node's subtree."""
    chosen = list(plan.nodes)
    inside = set()
    for i in chosen:
        for j in chosen:
            if i != j and _is_ancestor(sent.doc[j], sent.doc[i]):
                inside.add(i)
    for i in inside:
        plan.nodes.pop(i, None)
    for i in list(plan.first_conjuncts):
        if any(_is_ancestor(sent.doc[j], sent.doc[i]) for j in plan.nodes):
            plan.first_conjuncts.pop(i)


def _is_ancestor(a, b) -> bool:
    """True when a is a proper ancestor of b."""
    node = b
    while node.head.i != node.i:
        node = node.head
        if node.i == a.i:
            return True
    return False


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _broken(sent, toks: set[int]) -> str | None:
    """Why deleting `toks` would wreck the sentence (its root, its subject or nearly all its words go), or None."""
    content = [t for t in sent if _is_word(t)]
    if not content:
        return None
    left = [t for t in content if t.i not in toks]
    if not left:
        return "every word of the sentence is unsupported"
    if sent.root.i in toks and not any(c.dep_ == "conj" and c.i not in toks for c in sent.root.children):
        return "the deletion would take the sentence's main verb"
    subj = [c for c in sent.root.children if c.dep_ in ("nsubj", "nsubjpass", "csubj", "expl")]
    if subj and all(c.i in toks for c in subj):
        return "the deletion would take the sentence's subject"
    if len(left) < 3 and len(content) > len(left):
        return "too little of the sentence would be left"
    kept = [t for t in sent if t.i not in toks and not t.is_space]
    while kept and kept[-1].text in _CLOSERS:
        kept.pop()
    last = kept[-1] if kept else None
    if last is not None and any(i > last.i for i in toks) and (
            last.text in _OPEN_ENDS or last.pos_ in ("DET", "ADP", "CCONJ", "SCONJ")):
        # the parse can be wrong where the text is not: "has found an effective - [if a little odd - way …]"
        return f"the sentence would end on {last.text!r}"
    return None


_CLOSERS = set(".!?\"'\u201d\u2019)]")  # what may close a sentence
_OPEN_ENDS = set("-\u2013\u2014:;,(")  # what no sentence ends on


def _settle(sent, plan: _Plan, *, allow_drop: bool = True) -> None:
    """Outermost nodes only; a deletion that leaves a verb needing a complement bare takes the verb's clause along, and
    one that leaves a preposition without its object takes the preposition's phrase."""
    for _ in range(20):
        _outermost(sent, plan)
        changed = False
        toks = _subtree_ids(sent, plan)
        for i in list(plan.nodes):
            node = sent.doc[i]
            head = node.head
            if head.i == node.i or head.i in toks:
                continue
            lemma = head.lemma_.lower()
            needs = head.pos_ in ("VERB", "AUX") and (lemma in NEEDS_COMPLEMENT or head.pos_ == "AUX")
            # a participle or adjective modifier left without its measure ("a man, aged [47 to 61]") goes with it
            needs = needs or (head.dep_ in ("amod", "acl") and head.tag_ in ("VBN", "JJ") and node.dep_ in ("npadvmod", "prep"))
            # a preposition keeps its object ("rubbished as [too extreme to be possible]" leaves no bare "as")
            needs = needs or head.pos_ == "ADP"
            if not needs:
                continue
            rest = [c for c in head.children if c.i not in toks and c.dep_ not in FUNCTIONAL]
            if rest:
                continue
            why = plan.nodes.pop(i)
            up, first = _climb(head, set(toks) | {head.i})
            if up is None:
                if allow_drop:
                    plan.drop = f"{why}: deleting {node.text!r} would leave {head.text!r} without its complement"
                    return
                continue
            (plan.first_conjuncts if first else plan.nodes)[up.i] = why
            changed = True
        if not changed:
            return


def _subtree_ids(sent, plan: _Plan) -> set[int]:
    ids: set[int] = set()
    for i in plan.nodes:
        ids.update(t.i for t in sent.doc[i].subtree)
    for i in plan.first_conjuncts:
        ids.update(_first_conjunct_ids(sent.doc[i]))
    return ids


def _first_conjunct_ids(node) -> set[int]:
    """The first conjunct's own words and the coordinator/commas up to the next conjunct."""
    conj = sorted((c for c in node.children if c.dep_ == "conj"), key=lambda c: c.i)
    keep: set[int] = set()
    for c in conj:
        keep.update(t.i for t in c.subtree)
    if node.pos_ in ("VERB", "AUX"):
        # "X have hurled bombs and fired shots": the subject and auxiliaries before the verb are shared
        shared = {t.i for c in node.children if c.i < node.i for t in c.subtree}
        keep |= shared
    own = {t.i for t in node.subtree if t.i not in keep}
    first = conj[0]
    first_start = min(t.i for t in first.subtree)
    # coordinators and punctuation between the first conjunct and the next go too
    for t in node.subtree:
        if t.i < first_start and t.i > node.i and (t.dep_ in ("cc", "punct", "preconj")):
            own.add(t.i)
    # words of node's subtree after the first conjunct (e.g. a closing particle) stay
    return {i for i in own if i < first_start}


def _plan_tokens(sent, plan: _Plan) -> tuple[set[int], list[tuple[int, str]]]:
    """Token indices to delete for the plan's nodes, with the commas/coordinators that go with them, and token
    replacements (a coordinator moved in front of the last remaining conjunct)."""
    doc = sent.doc
    toks: set[int] = set()
    reps: list[tuple[int, str]] = []
    for i in plan.first_conjuncts:
        toks.update(_first_conjunct_ids(doc[i]))
    for i in sorted(plan.nodes):
        node = doc[i]
        if node.dep_ == "conj":
            _delete_conjunct(sent, node, toks, reps)
            continue
        sub = sorted(t.i for t in node.subtree)
        lo, hi = sub[0], sub[-1]
        if lo - 1 >= sent.start and doc[lo - 1].text == "(":
            # a bracket opened just before the subtree closes inside it: delete up to the bracket, keep what follows
            close = next((k for k in sub if doc[k].text == ")"), None)
            if close is not None and close < hi:
                sub = [k for k in sub if k <= close]
                hi = close
        toks.update(sub)
        # paired punctuation around the subtree: ", X," "(X)" "— X —"
        left = doc[lo - 1] if lo - 1 >= sent.start else None
        right = doc[hi + 1] if hi + 1 < sent.end else None
        pairs = {",": ",", "(": ")", "—": "—", "–": "–", "-": "-"}
        if left is not None and left.text in pairs and right is not None and right.text == pairs[left.text]:
            toks.update({left.i, right.i})
        elif left is not None and left.text in ("(", "—", "–") and right is not None and right.text in (")", "—", "–"):
            toks.update({left.i, right.i})
        elif left is not None and left.text == "," and (right is None or right.is_punct and right.text in ".;:!?"):
            toks.add(left.i)
        elif right is not None and right.text == "," and (left is None or lo == sent.start):
            toks.add(right.i)
    if toks:
        _glued(sent, toks)
        _paired(sent, toks)
        # the sentence's closing punctuation stays with what is left of it
        k = sent.end - 1
        while k >= sent.start and doc[k].is_punct and doc[k].text in (".", "!", "?", "...", "…"):
            toks.discard(k)
            k -= 1
    return toks, reps


def _chain(node) -> list:
    """Every conjunct of the coordination `node` belongs to, in order (spaCy chains them: a → conj b → conj c)."""
    top = node
    while top.dep_ == "conj" and top.head.i != top.i:
        top = top.head
    out, todo = [], [top]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(c for c in n.children if c.dep_ == "conj")
    return sorted(out, key=lambda t: t.i)


def _own(node) -> list[int]:
    """A conjunct's own words: its subtree without the conjuncts (and their coordinators) chained to it."""
    drop: set[int] = set()
    for c in node.children:
        if c.dep_ == "conj":
            drop.update(t.i for t in c.subtree)
    first_conj = min(drop, default=None)
    if first_conj is not None:
        drop.update(c.i for c in node.children
                    if c.dep_ in ("cc", "preconj", "punct") and node.i < c.i < first_conj)
    return sorted(t.i for t in node.subtree if t.i not in drop)


def _delete_conjunct(sent, node, toks: set[int], reps: list) -> None:
    """Delete a (non-first) conjunct with the coordinator or comma before it; when that was the list's last
    coordinator, the comma before the new last conjunct becomes it ("a, b and c" − c → "a and b")."""
    doc = sent.doc
    own = _own(node)
    toks.update(own)
    k = own[0] - 1
    cc = None
    while k >= sent.start and doc[k].dep_ in ("cc", "punct", "preconj") and doc[k].text not in (")", "]", '"', "''"):
        if doc[k].dep_ == "cc":
            cc = doc[k]
        toks.add(k)
        k -= 1
    if cc is None:
        return
    remaining = [c for c in _chain(node) if c.i not in toks]
    if len(remaining) < 2:
        return
    last = remaining[-1]
    start = min(_own(last))
    before = start - 1
    if before >= sent.start and doc[before].text == "," and before not in toks:
        reps.append((before, " " + cc.text))


_GLUE = {"-", "–", "/"}
_OPEN = {"``": "''", "“": "”", "‘": "’", "(": ")", "[": "]"}


def _glued(sent, toks: set[int]) -> None:
    """A hyphenated or slashed word ("re-signed", "2-0", "super-bantamweight") goes whole or not at all."""
    groups: list[list] = []
    for t in sent:
        prev = sent.doc[t.i - 1] if t.i > sent.start else None
        if prev is not None and prev.whitespace_ == "" and (prev.text in _GLUE or t.text in _GLUE) and groups:
            groups[-1].append(t)
        else:
            groups.append([t])
    for g in groups:
        if len(g) > 1 and any(t.i in toks for t in g if _is_word(t)):
            toks.update(t.i for t in g)


def _paired(sent, toks: set[int]) -> None:
    """A quote or bracket whose partner was deleted goes too."""
    stack: list = []
    for t in sent:
        if t.text in _OPEN:
            stack.append(t)
        elif t.text == '"':
            if stack and stack[-1].text == '"':
                _pair(stack.pop(), t, toks)
            else:
                stack.append(t)
        elif stack and _OPEN.get(stack[-1].text) == t.text:
            _pair(stack.pop(), t, toks)


def _pair(a, b, toks: set[int]) -> None:
    if (a.i in toks) != (b.i in toks):
        toks.update({a.i, b.i})


def _runs(ids: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in ids:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _anchor(doc, cpos: int):
    """The word a mark at cleaned position cpos attaches to: the closest one before it."""
    best = None
    for t in doc:
        if t.idx + len(t.text) <= cpos and _is_word(t):
            best = t
        elif t.idx >= cpos:
            break
    return best


def _mark_ids(raw: str) -> list[str]:
    ids: list[str] = []
    for inner in re.findall(r"\[([^\]]*)\]", raw):
        for part in inner.split(","):
            part = part.strip()
            m = re.match(r"^(\d+)\s*[-–]\s*(\d+)$", part)
            if m and int(m.group(2)) >= int(m.group(1)) and int(m.group(2)) - int(m.group(1)) < 100:
                ids += [str(k) for k in range(int(m.group(1)), int(m.group(2)) + 1)]
            elif part.isdigit():
                ids.append(part)
    return list(dict.fromkeys(ids))


def _mark_run_for(tx: _Text, unit: Unit | None, cited: list[str], sid: str) -> int | None:
    """The mark run that cites `sid` for this unit: the first one holding sid at or after the unit's start."""
    cands = [k for k, (a, b, _) in enumerate(tx.marks) if sid in _mark_ids(tx.original[a:b])]
    if not cands:
        return None
    if unit is not None and unit.has_span:
        after = [k for k in cands if tx.marks[k][0] >= cast(int, unit.start) - 1]  # has_span
        if after:
            return after[0]
    return cands[0]


def _vocabulary(nlp, case: Case) -> set[str]:
    vocab: set[str] = set()
    for doc in nlp.pipe([s.text for s in case.sources], batch_size=8):
        for t in doc:
            vocab.add(t.lower_)
            vocab.add(t.lemma_.lower())
            vocab.add(_stem(t.text))
    return vocab


def _known(t, vocab: set[str]) -> bool:
    return t.lower_ in vocab or t.lemma_.lower() in vocab or _stem(t.text) in vocab


# --- applying the edits --------------------------------------------------------------------------------------------


def _apply(text: str, ranges: list[tuple[int, int]], replacements: list[tuple[int, int, str]]) -> str:
    """Delete the ranges and make the replacements, mending punctuation, spacing and capitals at each cut only."""
    edits = [(a, b, "") for a, b in ranges] + [r for r in replacements if not any(a <= r[0] and r[1] <= b for a, b in ranges)]
    edits.sort()
    out = ""
    pos = 0
    for a, b, rep in edits:
        if a < pos:
            continue
        out += text[pos:a]
        if rep:
            out = out.rstrip(" \t") + rep if rep.startswith(" ") else out + rep
            pos = b
            continue
        # deletion: mend the junction
        nxt_edit = next((e for e in edits if e[0] >= b), None)
        stop = nxt_edit[0] if nxt_edit else len(text)
        right = text[b:stop]
        if not right and nxt_edit is not None:
            pos = b  # the next edit starts here: mend the junction after it
            continue
        cut = text[a:b].lstrip(" \t,;:")
        out, right = _join(out, right, capitalise=bool(cut[:1].isupper()))
        out += right
        pos = stop
    out += text[pos:]
    return out


_SENT_END = re.compile(r"[.!?][\"”’')\]]*\s*$")


def _join(left: str, right: str, *, capitalise: bool = True) -> tuple[str, str]:
    l = left.rstrip(" \t")
    r = right.lstrip(" \t")
    for _ in range(6):
        changed = False
        if l and l[-1] in ",;:—–" and (not r or r[0] in ",.;:!?)\n"):
            l, changed = l[:-1].rstrip(" \t"), True
        if r and r[0] in ",;:" and (not l.strip() or _SENT_END.search(l) or l.endswith(("\n", "(", "—", "–"))):
            r, changed = r[1:].lstrip(" \t"), True
        if l.endswith("(") and r.startswith(")"):
            l, r, changed = l[:-1].rstrip(" \t"), r[1:].lstrip(" \t"), True
        m = re.search(r"(?:^|\s)(and|or|but|nor|while|whereas|which|who|that)$", l)
        if m and (not r or r[0] in ".;:!?,)\n"):
            l, changed = l[: m.start()].rstrip(" \t"), True
        m = re.match(r"(and|or|but|nor)\b\s*", r)
        if m and (not l.strip() or _SENT_END.search(l)):
            r, changed = r[m.end():], True
        if not changed:
            break
    if not l or l.endswith(("\n", "(", "“", "‘")) or not r or r[0] in ".,;:!?)]”’\n":
        sep = ""
    else:
        sep = " "
    if capitalise and r and r[0].islower() and (not l.strip() or _SENT_END.search(l) or l.endswith("\n")):
        r = r[0].upper() + r[1:]
    return l + sep, r
