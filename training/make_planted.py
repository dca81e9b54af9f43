"""Build a planted-error development suite from the real articles in ../shared/data.

Each record is ONE statement checked against its article, in the ``xsumfaith`` shape that ``citefix meta-eval`` reads:
a faithful statement (a source sentence, verbatim or lightly edited: a leading connective or adjunct, an apposition, a
non-restrictive relative clause, a trailing adverbial clause, a time/place adjunct or a plain adverb of the main verb
dropped, or the first of two coordinated main clauses; at most a quarter of the faithful statements are verbatim, since
a planted error never is) or the same kind of statement with exactly one planted error of a known type:

  number                a number changed (digits, number words "nine" -> "eight", amounts, percentages, ordinals)
  date                  a year, month, day, weekday, or the number of a duration / a relative period changed
  entity_swap           a PERSON / ORG / GPE replaced by another entity of the same type from the same article
  invented_attribute    an apposition or relative clause taken from ANOTHER article inserted after an entity
  negation              the main predicate negated (with the right auxiliary) or replaced by its antonym
  role_swap             subject and object of the main verb swapped, or a quote attributed to another person
  unsupported_addition  a clause from ANOTHER article appended

Every record: ``document``, ``summary`` (the statement), ``label`` (1 faithful, 0 planted error),
``hallucination_spans`` ([{start, end, worker: "planted", type}] end-exclusive character offsets of the changed text in
the statement; empty for faithful), ``n_annotators`` 1, ``error_type`` (``none`` for faithful), ``original`` (the
statement before the error was planted), ``original_spans`` (the replaced text's offsets in ``original``),
``source_value`` (for number / date / entity_swap / negation, and a misattributed quote: the text of ``original`` a
corrector should restore; null for insertions and subject/object swaps), ``edit`` (what was changed, readable),
``sentence`` and ``sentence_start`` / ``sentence_end`` (the source sentence and its offsets in ``document``),
``transform`` (the light edit of the source sentence), ``article_id``, ``article_dataset``, ``split``, ``id``,
``source_dataset`` ("citefix-planted") and ``origin``.

Checks done for every planted error (a candidate failing one is dropped, never written): the statement differs from
``original`` exactly at the recorded spans; a new number, date or entity does not occur in the source sentence (a new
year not anywhere in the article); a swapped pair is two different entities (no shared word, no known alias); inserted
attributes and clauses come from another article and hold content words the article does not have.

Articles: the ``document`` fields of the XSumFaith val and SummEval files (NaN / non-text documents skipped, identical
texts kept once); ``--files wice/wice_claim_dev.jsonl --text-field citation_text --split all`` reads WiCE's cited web
pages instead, a genre (navigation lines, captions, run-on text) the news suites were not drawn from. ``--split``: an
article belongs to ``dev`` when the first 8 hex digits of the SHA-256 of its text, mod 100, are below 70, else to
``heldout`` (about 70 / 30). The default is ``dev``; ``heldout`` is left for measurements the development never
looks at (its ~84 articles give about 30 statements per type: ``--split heldout --per-type 30``); ``all`` uses both.
Donor clauses come from other articles of the same split. A type that cannot reach ``--per-type`` statements stops the
script with exit code 1 and writes nothing (``--allow-short`` writes what there is). The output goes to out/ (git-ignored): research data, never shipped in the package.

Run: nice -n 10 .venv/bin/python -m training.make_planted [--split dev] [--per-type 65] [--seed 0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FILES = ("xsumfaith/xsumfaith_val_balanced.jsonl", "summeval/summeval_balanced_300.jsonl")
ERROR_TYPES = ("number", "date", "entity_swap", "invented_attribute", "negation", "role_swap", "unsupported_addition")
DEV_SHARE = 70  # percent of articles in the dev split
WORKER = "planted"
MAX_PER_ARTICLE = 12

# ----------------------------------------------------------------------------------------------- word tables

NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
TENS_WORDS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
WORD_VALUE = {w: i for i, w in enumerate(NUMBER_WORDS)} | TENS_WORDS
VALUE_WORD = {v: w for w, v in WORD_VALUE.items()}
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
DURATION_UNITS = {"year", "years", "month", "months", "week", "weeks", "day", "days", "hour", "hours", "minute",
                  "minutes", "decade", "decades", "season", "seasons"}
PERIOD_SWAP = {"year": "month", "month": "year", "week": "month"}
TITLES = {"mr", "mrs", "ms", "miss", "dr", "sir", "lord", "lady", "prof", "professor"}
RELATIVE = {"last", "next", "this", "previous", "following"}
ALIASES = [
    {"us", "u.s.", "united states", "america", "usa", "the us", "the united states", "the u.s."},
    {"uk", "u.k.", "britain", "united kingdom", "great britain", "the uk", "the united kingdom"},
]
# Past-tense / present forms with an antonym of the same form: an antonym predicate instead of "not".
ANTONYMS = {
    "won": "lost", "lost": "won", "wins": "loses", "loses": "wins", "win": "lose", "lose": "win",
    "rose": "fell", "fell": "rose", "rises": "falls", "falls": "rises",
    "increased": "decreased", "decreased": "increased", "increases": "decreases", "decreases": "increases",
    "accepted": "rejected", "rejected": "accepted",
    "approved": "rejected", "opened": "closed", "closed": "opened", "allowed": "banned", "banned": "allowed",
    "succeeded": "failed", "failed": "succeeded", "gained": "lost", "included": "excluded", "excluded": "included",
    "supported": "opposed", "opposed": "supported", "confirmed": "denied", "denied": "confirmed",
    "refused": "agreed", "began": "ended", "started": "stopped", "stopped": "started",
    "arrived": "left", "bought": "sold", "sold": "bought", "hired": "fired", "admitted": "denied",
    "survived": "died", "died": "survived", "praised": "criticised", "criticised": "praised",
    "criticized": "praised", "passed": "failed", "entered": "left", "remembered": "forgot",
}
# Verbs whose subject and object can trade places without changing what is said.
SYMMETRIC = {"meet", "marry", "wed", "face", "play", "fight", "battle", "date", "resemble", "equal", "match", "tie",
             "draw", "share", "contact", "hug", "kiss", "know", "partner", "split", "divorce", "merge", "know"}
# Common nouns for people and bodies that act: a subject/object swap between them reads as a plausible role error.
AGENT_NOUNS = {"police", "officers", "officer", "council", "government", "court", "judge", "club", "team", "company",
               "firm", "ministers", "minister", "officials", "parliament", "committee", "board", "union", "army",
               "troops", "man", "woman", "boy", "girl", "men", "women", "fans", "players", "player", "manager",
               "coach", "doctors", "doctor", "staff", "workers", "residents", "voters", "campaigners", "protesters",
               "researchers", "scientists", "president", "mayor", "chairman", "owner", "teacher", "pupils", "students",
               "victim", "suspect", "driver", "passenger", "passengers", "patients", "family", "mother", "father",
               "son", "daughter", "wife", "husband", "brother", "sister", "friend", "neighbour", "landlord", "rivals",
               "opponents", "side", "squad", "authority", "agency", "department", "bank", "hospital", "school"}
SAY_VERBS = {"say", "tell", "add", "claim", "report", "announce", "confirm", "believe", "think", "state", "warn",
             "insist", "suggest", "argue", "explain"}
PRONOUNS = {"i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "this", "that", "these",
            "those", "who", "which", "what", "one", "there"}
CONNECTIVES = ("But ", "And ", "However, ", "However , ", "Meanwhile, ", "Meanwhile , ", "So ", "Yet ", "Also, ",
               "Also , ", "But , ")
ENT_LABELS = ("PERSON", "ORG", "GPE")
# Light edits that keep a statement entailed: prepositional adjuncts of the main verb and a few adverbs may go, unless
# the sentence holds a downward-entailing word ("no one was hurt in the crash" does not entail "no one was hurt").
DROP_PREPS = {"in", "on", "at", "during", "after", "before", "since", "for", "from", "by", "with", "under", "over",
              "near", "outside", "inside", "across", "around", "throughout", "into", "following", "amid", "despite"}
DROP_ADVERBS = {"also", "now", "still", "currently", "later", "recently", "already", "officially", "eventually",
                "finally", "then", "subsequently", "previously", "earlier", "initially", "meanwhile", "today"}
NEGATIVE = {"not", "n't", "no", "never", "none", "nobody", "nothing", "without", "few", "only", "neither", "nor",
            "hardly", "fewer", "less", "least", "any", "unless", "if", "every", "all", "each", "most", "first", "last",
            "second", "third", "again", "once", "twice", "record", "ever", "since", "until"}
YEAR = re.compile(r"^(1[89]\d\d|20\d\d)$")
DIGITS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^\d+(?:\.\d+)?$")

# ----------------------------------------------------------------------------------------------- articles


@dataclass
class Article:
    id: str
    dataset: str
    origin: str
    text: str
    split: str
    docs: list = field(default_factory=list)  # (line offset, spaCy Doc) per non-empty line
    sentences: list = field(default_factory=list)  # Sentence
    entities: dict = field(default_factory=dict)  # label -> [entity text], first-seen order
    words: set = field(default_factory=set)  # lower-cased word forms of the whole article
    speakers: list = field(default_factory=list)  # PERSON entities that are the subject of a "say" verb
    tokenised: bool = False  # SummEval style: " , " and " . " between tokens


@dataclass
class Sentence:
    article: Article
    index: int
    start: int
    end: int
    text: str
    span: Any  # the spaCy Span


def split_of(text: str) -> str:
    """``dev`` or ``heldout``, from a hash of the article text (stable across machines and Python versions)."""
    h = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)
    return "dev" if h % 100 < DEV_SHARE else "heldout"


def resolve_data_dir(value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else (REPO / p).resolve()


def load_articles(paths: Sequence[Path], field: str = "document") -> list[Article]:
    """Distinct article texts (the records' ``field``) of the files, in file order; non-text and empty ones skipped."""
    seen: dict[str, Article] = {}
    for path in paths:
        if not path.exists():
            raise SystemExit(f"make_planted: {path}: the file does not exist. Fix: give --data-dir (the folder with "
                             "xsumfaith/ and summeval/) or --files")
        dataset = path.parent.name
        with path.open(encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                rec = json.loads(raw)
                doc = rec.get(field)
                if not isinstance(doc, str) or not doc.strip() or doc.strip().lower() == "nan":
                    continue
                key = doc.strip()
                if key in seen:
                    continue
                digest = hashlib.sha256(doc.encode("utf-8")).hexdigest()[:10]
                seen[key] = Article(id=f"{dataset}-{digest}", dataset=dataset,
                                    origin=f"{dataset}/{path.name} line {lineno} ({rec.get('id', '')})", text=doc,
                                    split=split_of(doc), tokenised=" , " in doc or " . " in doc)
    return list(seen.values())


def parse_articles(articles: Sequence[Article], nlp: Any) -> None:
    """Parse every non-empty line of every article (one nlp.pipe pass) and collect sentences, entities, words."""
    pieces: list[tuple[Article, int, str]] = []
    for a in articles:
        pos = 0
        for line in a.text.split("\n"):
            if line.strip():
                pieces.append((a, pos, line))
            pos += len(line) + 1
    for (a, off, _), doc in zip(pieces, nlp.pipe([p[2] for p in pieces], batch_size=64)):
        a.docs.append((off, doc))
    for a in articles:
        for off, doc in a.docs:
            for ent in doc.ents:
                if ent.label_ in ENT_LABELS and _name_like(_clean_ent(ent.text)):
                    a.entities.setdefault(ent.label_, {})[_clean_ent(ent.text)] = None
                if ent.label_ == "PERSON" and ent.root.dep_ == "nsubj" and ent.root.head.lemma_ in SAY_VERBS:
                    a.speakers.append(ent.text)
            a.words.update(t.lower_ for t in doc)
            for s in doc.sents:
                text = s.text.strip()
                if text:
                    start = off + s.start_char + (len(s.text) - len(s.text.lstrip()))
                    a.sentences.append(Sentence(a, len(a.sentences), start, start + len(text), text, s))
        a.entities = {k: list(v) for k, v in a.entities.items()}
        a.speakers = list(dict.fromkeys(a.speakers))


def _clean_ent(text: str) -> str:
    return text[4:] if text.lower().startswith("the ") else text


_NAME_GLUE = {"of", "the", "and", "for", "de", "la", "le", "von", "van", "der", "du", "da", "&", "al", "bin", "el"}


def _name_like(text: str) -> bool:
    """A clean name: capitalised words (with the usual glue words between them), no trailing glue or punctuation."""
    words = text.split()
    if not words or not 1 <= len(words) <= 5 or words[-1].lower() in _NAME_GLUE or words[0].lower() in _NAME_GLUE:
        return False
    return all((w[:1].isupper() and re.fullmatch(r"[\w.'&-]+", w)) or w.lower() in _NAME_GLUE for w in words)


# ----------------------------------------------------------------------------------------------- helpers


def _quotes_ok(text: str) -> bool:
    return text.count('"') % 2 == 0 and text.count("``") == text.count("''")


def _alpha_tokens(span: Any) -> int:
    return sum(1 for t in span if t.is_alpha)


def _root(span: Any) -> Any:
    return span.root


def _subject(verb: Any) -> Any | None:
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def usable_sentence(s: Sentence) -> bool:
    """A declarative sentence of 8-40 words with a verb and a non-pronoun subject, quotes balanced."""
    text = s.text
    if "\n" in text or "?" in text or "!" in text or not text[0].isupper() or any(q in text for q in "‘’“”"):
        return False
    if not (text.endswith(".") or text.endswith('."') or text.endswith(". ''")):
        return False
    if not _quotes_ok(text) or not (8 <= _alpha_tokens(s.span) <= 40):
        return False
    if any(ch in text for ch in "[]{}|@#*") or "http" in text or "UNK" in text:
        return False
    root = _root(s.span)
    if root.pos_ not in ("VERB", "AUX"):
        return False
    subj = _subject(root)
    if subj is None or subj.lower_ in PRONOUNS:
        return False
    return True


def _replace(text: str, a: int, b: int, new: str) -> str:
    return text[:a] + new + text[b:]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _content_words(span: Iterable[Any]) -> list[str]:
    return [t.lower_ for t in span if t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM") and not t.is_stop
            and t.is_alpha]


def _word_in(word: str, text: str) -> bool:
    return re.search(r"(?<![\w.,])" + re.escape(word) + r"(?![\w])", text, flags=re.IGNORECASE) is not None


# ----------------------------------------------------------------------------------------------- light edits


@dataclass
class Base:
    """A faithful statement made from a source sentence: its text and how it was made."""

    sentence: Sentence
    text: str
    transform: str
    doc: Any = None  # spaCy parse of text


def light_edits(s: Sentence) -> list[tuple[str, str]]:
    """Faithful variants (name, text) of a sentence: verbatim first, then every light edit that applies."""
    text = s.text
    out = [("verbatim", text)]
    sp = s.span
    off = sp.start_char + (len(sp.text) - len(sp.text.lstrip()))
    rel = lambda tok: tok.idx - off  # noqa: E731  (char offset of a token inside `text`)
    root = sp.root
    toks = list(sp)
    # A leading connective ("But", "However,").
    for c in CONNECTIVES:
        if text.startswith(c) and len(text) > len(c) + 1:
            out.append(("drop_connective", _cap(text[len(c):])))
            break
    # A leading adjunct before the first comma: "On Monday, police said ..." -> "Police said ...".
    for t in toks:
        if t.text == ",":
            first = toks[0]
            lead = [x for x in toks if x.i < t.i]
            if (lead and first.lower_ not in ("if", "unless", "whether") and len(lead) <= 8
                    and all(x.head.i in {y.i for y in lead} or x.head == root for x in lead)
                    and any(x.head == root and x.dep_ in ("prep", "advmod", "advcl", "npadvmod") for x in lead)
                    and not any(x.dep_ in ("nsubj", "nsubjpass") for x in lead)):
                rest = text[rel(t) + 1:].lstrip()
                if rest and rest[0].isalpha() and not any(q in text[:rel(t)] for q in ('"', "``")):
                    keep_case = toks[t.i - sp.start + 1].pos_ == "PROPN" if t.i - sp.start + 1 < len(toks) else False
                    out.append(("drop_leading_adjunct", rest if keep_case else _cap(rest)))
            break
    # A non-restrictive apposition or relative clause between commas.
    for t in toks:
        if t.dep_ in ("appos", "relcl") and t.head.i < t.i:
            sub = list(t.subtree)
            a, b = sub[0].i, sub[-1].i
            before = sp.doc[a - 1] if a - 1 >= sp.start else None
            after = sp.doc[b + 1] if b + 1 < sp.end else None
            if before is None or before.text != "," or after is None:
                continue
            if t.dep_ == "relcl" and sub[0].lower_ not in ("who", "which", "whose", "where"):
                continue
            if after.text == ",":
                new = text[:rel(before)].rstrip() + " " + text[rel(after) + 1:].lstrip()
            elif after.text == "." and after.i == sp.end - 1:
                new = text[:rel(before)].rstrip() + ("." if not s.article.tokenised else " .")
            else:
                continue
            out.append(("drop_" + t.dep_, new))
            break
    # A trailing adverbial clause ", as/while/after ...".
    for t in root.children:
        if t.dep_ == "advcl" and t.i > root.i:
            sub = list(t.subtree)
            a, b = sub[0].i, sub[-1].i
            if sub[0].lower_ in ("if", "unless", "whether", "until", "without", "so"):
                continue
            comma = sp.doc[a - 1] if a - 1 >= sp.start else None
            last = sp.doc[b + 1] if b + 1 < sp.end else None
            if comma is not None and comma.text == "," and last is not None and last.text == "." and last.i == sp.end - 1:
                out.append(("drop_trailing_clause", text[:rel(comma)].rstrip() + (" ." if s.article.tokenised else ".")))
                break
    # A prepositional adjunct or a plain adverb of the main verb.
    if not any(t.lower_ in NEGATIVE or t.dep_ == "neg" or t.tag_ in ("JJS", "RBS") or t.ent_type_ == "ORDINAL"
               for t in toks):
        for t in root.children:
            # Only time and place adjuncts: "in January", "during the festival", "in the UK" (never an argument).
            pobj = next((c for c in t.children if c.dep_ == "pobj"), None)
            droppable = (t.dep_ == "prep" and t.lower_ in DROP_PREPS and pobj is not None
                         and pobj.ent_type_ in ("DATE", "TIME", "GPE", "LOC", "FAC", "EVENT")) or (
                t.dep_ == "advmod" and t.lower_ in DROP_ADVERBS)
            if not droppable or t.i == sp.start:
                continue
            sub = list(t.subtree)
            if any(x.pos_ in ("VERB", "AUX") for x in sub):
                continue
            a, b = sub[0].i, sub[-1].i
            before = sp.doc[a - 1]
            after = sp.doc[b + 1] if b + 1 < sp.end else None
            if (len(sub) > 12 or before.text in (",", "-", "(") or after is None
                    or any(x.text in ('"', "``", "''", "(", ")", ",") for x in sub)):
                continue
            left, right = text[:rel(sub[0])].rstrip(), text[rel(sub[-1]) + len(sub[-1].text):].lstrip()
            glue = "" if right[:1] in (",", ".", ";", ":") and not s.article.tokenised else " "
            if left and right:
                out.append(("drop_" + ("adjunct" if t.dep_ == "prep" else "adverb"), left + glue + right))
    # The first of two coordinated main clauses, each with its own subject.
    for t in root.children:
        if t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") and _subject(t) is not None:
            cc = next((c for c in root.children if c.dep_ == "cc" and root.i < c.i < t.i), None)
            if cc is None or cc.lower_ not in ("and", "but"):
                continue
            cut = rel(cc)
            head = text[:cut].rstrip().rstrip(",").rstrip()
            if _quotes_ok(head) and len(head.split()) >= 6:
                out.append(("first_main_clause", head + (" ." if s.article.tokenised else ".")))
            break
    return out


# ----------------------------------------------------------------------------------------------- planted edits


@dataclass
class Edit:
    """One planted error: the new statement, where it changed, and what the source says there."""

    summary: str
    spans: list[tuple[int, int]]  # in summary
    original_spans: list[tuple[int, int]]  # in the original statement
    source_value: str | None
    detail: str
    donor: str | None = None  # the donor text an insertion used (each donor is planted once)


def _single(orig: str, a: int, b: int, new: str, source_value: str | None, detail: str) -> Edit:
    return Edit(_replace(orig, a, b, new), [(a, a + len(new))], [(a, b)], source_value, detail)


def _number_value(tok_text: str) -> tuple[float, str] | None:
    """(value, kind) for a digit number or a number word; None otherwise."""
    low = tok_text.lower()
    if low in WORD_VALUE:
        return float(WORD_VALUE[low]), "word"
    if DIGITS.match(tok_text):
        return float(tok_text.replace(",", "")), "digits"
    return None


def _format_like(old: str, value: float) -> str:
    if old.lower() in WORD_VALUE:
        w = VALUE_WORD[int(value)]
        return w.capitalize() if old[:1].isupper() else w
    decimals = len(old.split(".")[1]) if "." in old else 0
    s = f"{value:,.{decimals}f}" if "," in old else f"{value:.{decimals}f}"
    return s


def _changed_numbers(old: str, rng: random.Random) -> list[str]:
    """Plausible different values for a number token, in a seeded order (never to or from one: agreement)."""
    got = _number_value(old)
    if got is None:
        return []
    v, kind = got
    if v <= 1:
        return []
    if kind == "word":
        cands = [int(v) + d for d in (-1, 1, -2, 2, 3)] if v <= 20 else [int(v) + d for d in (-10, 10, 20)]
        cands = [c for c in cands if c >= 2 and c in VALUE_WORD]
    elif "." in old:
        step = 1.0 if v >= 2 else 0.5
        cands = [v + k * step for k in (-1, 1, 2, -2)]
        cands = [c for c in cands if c > 0]
    else:
        digits = len(str(int(v)))
        unit = 10 ** max(0, digits - 2)
        ks = (-2, -1, 1, 2, 3) if digits > 1 else (-2, -1, 1, 2, 3, 4)
        cands = [int(v) + k * unit for k in ks]
        cands = [c for c in cands if c >= 2 and len(str(c)) == digits]
    rng.shuffle(cands)
    return [_format_like(old, c) for c in cands if c != v]


def _sentence_has(s: Sentence, value: str) -> bool:
    return _word_in(value, s.text)


def edit_number(base: Base, rng: random.Random) -> Edit | None:
    doc, s = base.doc, base.sentence
    cands = []
    for t in doc:
        if t.ent_type_ in ("DATE", "TIME") or YEAR.match(t.text):
            continue
        if t.ent_type_ not in ("", "CARDINAL", "MONEY", "PERCENT", "QUANTITY", "ORDINAL"):
            continue
        if t.lower_ in ORDINALS[1:] and t.ent_type_ == "ORDINAL":
            cands.append(t)
        elif _number_value(t.text) is not None and (t.tag_ == "CD" or t.like_num):
            if t.lower_ == "one" or (t.i + 1 < len(doc) and doc[t.i + 1].text in ("-", "/", ":")):
                continue
            if t.i > 0 and doc[t.i - 1].text in ("-", "/", ":", "No", "no."):
                continue
            if t.i > 0 and t.text[:1].isupper() and t.is_alpha and doc[t.i - 1].pos_ == "PROPN":
                continue  # a number word inside a name: "League Two", "Channel Four"
            cands.append(t)
    rng.shuffle(cands)
    for t in cands:
        if t.lower_ in ORDINALS:
            k = ORDINALS.index(t.lower_)
            news = [ORDINALS[j] for j in (k + 1, k - 1) if 0 <= j < len(ORDINALS)]
            news = [n.capitalize() if t.text[0].isupper() else n for n in news]
        else:
            news = _changed_numbers(t.text, rng)
        for new in news:
            if _sentence_has(s, new):
                continue
            a, b = t.idx, t.idx + len(t.text)
            return _single(base.text, a, b, new, t.text, f"{t.text} -> {new}")
    return None


def edit_date(base: Base, rng: random.Random) -> Edit | None:
    doc, s, art = base.doc, base.sentence, base.sentence.article
    options: list[Callable[[], Edit | None]] = []
    for t in doc:
        if t.ent_type_ not in ("DATE", "TIME"):
            continue
        a, b = t.idx, t.idx + len(t.text)

        def year(t=t, a=a, b=b):
            y = int(t.text)
            for d in rng.sample([-3, -2, -1, 1, 2, 3, 4], 7):
                new = str(y + d)
                if new not in art.text and y + d <= 2030:
                    return _single(base.text, a, b, new, t.text, f"year {t.text} -> {new}")
            return None

        def month(t=t, a=a, b=b):
            k = MONTHS.index(t.text)
            for d in rng.sample([-3, -2, -1, 1, 2, 3], 6):
                new = MONTHS[(k + d) % 12]
                if not _sentence_has(s, new):
                    return _single(base.text, a, b, new, t.text, f"month {t.text} -> {new}")
            return None

        def weekday(t=t, a=a, b=b):
            k = WEEKDAYS.index(t.text)
            for d in rng.sample([-2, -1, 1, 2, 3], 5):
                new = WEEKDAYS[(k + d) % 7]
                if not _sentence_has(s, new):
                    return _single(base.text, a, b, new, t.text, f"weekday {t.text} -> {new}")
            return None

        def day(t=t, a=a, b=b):
            d0 = int(t.text)
            for d in rng.sample([-3, -2, -1, 1, 2, 3, 5], 7):
                new = str(d0 + d)
                if 1 <= d0 + d <= 28 and not _sentence_has(s, new):
                    return _single(base.text, a, b, new, t.text, f"day {t.text} -> {new}")
            return None

        def duration(t=t, a=a, b=b):
            for new in _changed_numbers(t.text, rng):
                if not _sentence_has(s, new):
                    return _single(base.text, a, b, new, t.text, f"duration {t.text} -> {new}")
            return None

        def period(t=t, a=a, b=b):
            new = PERIOD_SWAP[t.lower_]
            if _sentence_has(s, new):
                return None
            return _single(base.text, a, b, new, t.text, f"period {t.text} -> {new}")

        nxt = doc[t.i + 1] if t.i + 1 < len(doc) else None
        prv = doc[t.i - 1] if t.i > 0 else None
        if YEAR.match(t.text):
            options.append(year)
        elif t.text in MONTHS:
            options.append(month)
        elif t.text in WEEKDAYS:
            options.append(weekday)
        elif t.text.isdigit() and 1 <= int(t.text) <= 31 and (
                (nxt is not None and nxt.text in MONTHS) or (prv is not None and prv.text in MONTHS)):
            options.append(day)
        elif _number_value(t.text) is not None and nxt is not None and nxt.lower_ in DURATION_UNITS:
            options.append(duration)
        elif t.lower_ in PERIOD_SWAP and prv is not None and prv.lower_ in RELATIVE:
            options.append(period)
    rng.shuffle(options)
    for fn in options:
        got = fn()
        if got is not None:
            return got
    return None


def _same_entity(a: str, b: str) -> bool:
    la, lb = a.lower().strip(), b.lower().strip()
    if la == lb or la in lb or lb in la:
        return True
    stop = {"the", "of", "and", "for", "in", "de", "&", "-", "'s", "fc", "city", "united", "club"}
    wa = {w for w in re.findall(r"[\w']+", la)} - stop
    wb = {w for w in re.findall(r"[\w']+", lb)} - stop
    if wa & wb:
        return True
    for group in ALIASES:
        if la in group and lb in group:
            return True
    initials = lambda ws: "".join(w[0] for w in ws if w)  # noqa: E731
    if la.replace(".", "") == initials(lb.split()) or lb.replace(".", "") == initials(la.split()):
        return True
    return False


def _entity_span(ent: Any) -> tuple[int, int, str]:
    """Character span of an entity, without a leading "the"."""
    text = ent.text
    a = ent.start_char
    if text.lower().startswith("the "):
        a += 4
        text = text[4:]
    return a, a + len(text), text


def _titled(doc: Any, ent: Any) -> bool:
    return ent.start > 0 and doc[ent.start - 1].lower_.rstrip(".") in TITLES


def _fit_name(new: str, old: str, titled: bool) -> str:
    """A replacement name in the shape of the old one: the surname after a title ("Mr O'Brien" -> "Mr Carpenter")."""
    if titled:
        return new.split()[-1]
    return new


def _pick_name(others: list[str], old: str, rng: random.Random) -> str:
    """Prefer a replacement with as many words as the old name (one word for one, several for several)."""
    same = [o for o in others if (len(o.split()) > 1) == (len(old.split()) > 1)]
    pool = same or others
    return pool[rng.randrange(len(pool))]


def edit_entity(base: Base, rng: random.Random) -> Edit | None:
    doc, s, art = base.doc, base.sentence, base.sentence.article
    ents = [e for e in doc.ents if e.label_ in ENT_LABELS]
    rng.shuffle(ents)
    for e in ents:
        a, b, old = _entity_span(e)
        if not old or old.endswith("'s"):
            continue
        others = [o for o in art.entities.get(e.label_, []) if not _same_entity(o, old)
                  and not _word_in(o, s.text) and not any(_same_entity(o, x.text) for x in doc.ents)]
        others = [o for o in others if o[:1].isupper()]
        if not others:
            continue
        titled = e.label_ == "PERSON" and _titled(doc, e)
        new = _fit_name(_pick_name(others, old, rng), old, titled)
        if _same_entity(new, old) or _word_in(new, s.text):
            continue
        return _single(base.text, a, b, new, old, f"{e.label_} {old} -> {new}")
    return None


@dataclass
class Donor:
    text: str
    article: Article
    kind: str  # person_attr | thing_attr | clause
    content: list[str]
    tokenised: str = ""  # the same words joined by single spaces (SummEval style: "Kane 's goals , and")

    def for_article(self, art: Article) -> str:
        return self.tokenised if art.tokenised and not self.article.tokenised else self.text


class Donors(dict):
    """Donor texts by kind ("person_attr", "thing_attr", "clause"), and the texts already planted in this run."""

    def __init__(self) -> None:
        super().__init__(person_attr=[], thing_attr=[], clause=[])
        self.used: set[str] = set()


def _tokenised(toks: Iterable[Any]) -> str:
    """Words in the SummEval style: punctuation and clitics split off by spaces ("Kane 's goals , and")."""
    out, prev = "", None
    for t in toks:
        if prev is not None:
            split = (t.is_punct and t.text not in "-/") or t.text.startswith("'") or t.lower_ == "n't" or (
                prev.is_punct and prev.text not in "-/")
            out += " " if prev.whitespace_ or split else ""
        out += t.text
        prev = t
    return out


def harvest_donors(articles: Sequence[Article]) -> Donors:
    """Appositions and relative clauses about people / organisations and short main clauses, from each article."""
    out = Donors()
    for art in articles:
        for s in art.sentences:
            sp = s.span
            if not _quotes_ok(s.text) or '"' in s.text or "``" in s.text:
                continue
            for t in sp:
                if t.dep_ not in ("appos", "relcl") or t.head.i >= t.i:
                    continue
                about_thing = t.dep_ == "relcl" and t.head.pos_ in ("NOUN", "PROPN") and t.head.ent_type_ != "PERSON"
                if t.head.ent_type_ not in ENT_LABELS and not about_thing:
                    continue
                sub = list(t.subtree)
                a, b = sub[0].i, sub[-1].i
                if a - 1 < sp.start or sp.doc[a - 1].text != "," or b + 1 >= sp.end:
                    continue
                if sp.doc[b + 1].text not in (",", "."):
                    continue
                n = _alpha_tokens(sub)
                if not 2 <= n <= 12:
                    continue
                text = sp.doc[a:b + 1].text
                if any(ch in text for ch in '()";:'):
                    continue
                if t.dep_ == "appos":
                    if t.head.ent_type_ != "PERSON" or t.pos_ != "NOUN" or sub[0].pos_ not in ("DET", "ADJ", "NOUN"):
                        continue
                    if t.ent_type_:
                        continue
                    kind = "person_attr"
                else:
                    w = sub[0].lower_
                    if t.head.ent_type_ == "PERSON" and w == "who":
                        kind = "person_attr"
                    elif about_thing and w == "which":
                        kind = "thing_attr"
                    else:
                        continue
                out[kind].append(Donor(text, art, kind, _content_words(sub), _tokenised(sub)))
            root = sp.root
            subj = _subject(root)
            n = _alpha_tokens(sp)
            if (root.pos_ == "VERB" and subj is not None and subj.lower_ not in PRONOUNS and 6 <= n <= 16
                    and s.text.endswith(".") and sp[0].i in {x.i for x in subj.subtree}
                    and not any(t.dep_ == "conj" and t.head == root for t in sp)):
                text = s.text[:-1].rstrip()
                if any(ch in text for ch in '(),;:"') or "``" in text:
                    continue
                if (sp[0].pos_ in ("DET", "PRON") or sp[0].is_stop) and sp[0].text != "I" and not sp[0].ent_type_:
                    text = text[:1].lower() + text[1:]
                out["clause"].append(Donor(text, art, "clause", _content_words(sp), text[:1] + _tokenised(sp[:-1])[1:]))
    return out


def _foreign(d: Donor, art: Article) -> bool:
    """The donor comes from another article and brings at least two content words this article does not have."""
    if d.article is art or (d.article.tokenised and not art.tokenised):
        return False  # tokenised text can be made from plain text, not the other way round
    missing = [w for w in dict.fromkeys(d.content) if w not in art.words]
    return len(missing) >= 2


def edit_attribute(base: Base, rng: random.Random, donors: Donors) -> Edit | None:
    doc, art = base.doc, base.sentence.article
    ents = [e for e in doc.ents if e.label_ in ENT_LABELS]
    rng.shuffle(ents)
    for e in ents:
        kind = "person_attr" if e.label_ == "PERSON" else "thing_attr"
        after = doc[e.end] if e.end < len(doc) else None
        if after is None or after.text in (",", "'s", "'", "(", "-") or after.pos_ in ("PROPN", "NOUN", "PART", "NUM"):
            continue
        if e.root.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj", "attr"):
            continue
        if any(c.dep_ == "conj" for c in e.root.children) or after.lower_ in ("and", "or"):
            continue
        if e.label_ == "PERSON" and len(e) < 2 and not _titled(doc, e):
            continue  # one capitalised word is too often a place or a club the tagger calls a person
        pool = [d for d in donors[kind] if _foreign(d, art) and d.text not in donors.used]
        if not pool:
            continue
        d = pool[rng.randrange(len(pool))]
        attr = d.for_article(art)
        comma = " , " if art.tokenised else ", "
        pos = e.end_char
        final = after.text == "." and after.i == len(doc) - 1
        insert = comma + attr + ("" if final else comma.rstrip())
        new = base.text[:pos] + insert + base.text[pos:]
        a = pos + len(comma)
        return Edit(new, [(a, a + len(attr))], [(pos, pos)], None, f"{e.text} + {d.text!r} from {d.article.id}",
                    donor=d.text)
    return None


def _inflect_do(verb: Any) -> str | None:
    return {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(verb.tag_)


def edit_negation(base: Base, rng: random.Random, mode: str | None = None) -> Edit | None:
    """``mode="antonym"``: only an antonym predicate; otherwise a negation or, where the verb has one, an antonym."""
    doc, text = base.doc, base.text
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    target = root
    if root.lemma_ in SAY_VERBS:
        cc = next((c for c in root.children if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX")), None)
        if cc is not None:
            target = cc
    if any(c.dep_ == "neg" for c in target.children) or target.i == 0:
        return None
    if any(t.lower_ in ("not", "n't", "never", "no") for t in doc):
        return None
    a, b = target.idx, target.idx + len(target.text)
    auxes = [c for c in target.children if c.dep_ in ("aux", "auxpass") and c.i < target.i]
    options = []
    if target.lower_ in ANTONYMS and not auxes and target.tag_ in ("VBD", "VBZ", "VBP"):
        options.append(("antonym", a, b, ANTONYMS[target.lower_], target.text))
    if auxes:
        aux = auxes[0]
        if aux.text.startswith("'") or aux.lower_ in ("to",):
            return None
        new = "cannot" if aux.lower_ == "can" else aux.text + " not"
        # The changed predicate runs from the auxiliary to the verb.
        pa, pb = aux.idx, b
        options.append(("negated", pa, pb, new + text[aux.idx + len(aux.text):pb], text[pa:pb]))
    elif target.pos_ == "AUX" or target.lemma_ == "be":
        if target.lemma_ != "be":
            return None
        options.append(("negated", a, b, target.text + " not", target.text))
    else:
        do = _inflect_do(target)
        if do is None or target.lemma_ == target.lower_ and target.tag_ == "VBD":
            return None
        lemma = target.lemma_
        if not lemma.isalpha():
            return None
        options.append(("negated", a, b, f"{do} not {lemma}", target.text))
    if mode == "antonym":
        options = [o for o in options if o[0] == "antonym"]
        if not options:
            return None
    kind, pa, pb, new, old = options[0] if len(options) == 1 else options[rng.randrange(len(options))]
    return _single(text, pa, pb, new, old, f"{kind}: {old} -> {new}")


def _np_span(tok: Any) -> tuple[int, int]:
    sub = list(tok.subtree)
    return sub[0].idx, sub[-1].idx + len(sub[-1].text)


def edit_role(base: Base, rng: random.Random, mode: str | None = None) -> Edit | None:
    """``mode="swap"``: only a subject/object swap; otherwise a swap where the sentence has one, else a quote."""
    doc, text, s, art = base.doc, base.text, base.sentence, base.sentence.article
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    options = []
    subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    if subj is None:  # a passive with its agent: "X was beaten by Y" -> "Y was beaten by X"
        subj = next((c for c in root.children if c.dep_ == "nsubjpass"), None)
        agent = next((c for c in root.children if c.dep_ == "agent"), None)
        obj = next((c for c in agent.children if c.dep_ == "pobj"), None) if agent is not None else None
    auxes = [c for c in root.children if c.dep_ in ("aux", "auxpass")]
    # No agreement to break: a simple past, a modal, or two singular names around "has" / "was".
    agrees = root.tag_ == "VBD" and not auxes or all(c.tag_ == "MD" for c in auxes if c.dep_ == "aux") and auxes \
        or subj is not None and obj is not None and subj.tag_ == obj.tag_ == "NNP"
    entity = ("PERSON", "ORG", "GPE", "NORP")
    if (subj is not None and obj is not None and root.pos_ == "VERB" and root.lemma_ not in SYMMETRIC
            and root.lemma_ not in SAY_VERBS and subj.i < root.i < obj.i and agrees
            and subj.pos_ in ("PROPN", "NOUN") and obj.pos_ in ("PROPN", "NOUN")
            and subj.lower_ not in PRONOUNS and obj.lower_ not in PRONOUNS
            and (subj.ent_type_ in entity or subj.lower_ in AGENT_NOUNS)
            and (obj.ent_type_ in entity or obj.lower_ in AGENT_NOUNS)
            and not (subj.ent_type_ not in entity and obj.ent_type_ not in entity and subj.lower_ == obj.lower_)):
        sa, sb = _np_span(subj)
        oa, ob = _np_span(obj)
        subj_len = len(list(subj.subtree))
        obj_len = len(list(obj.subtree))
        no_clause = not any(t.dep_ in ("relcl", "acl", "appos", "prep", "cc", "conj") for t in list(subj.subtree) + list(obj.subtree))
        whole_np = all(
            k >= len(doc) or doc[k].pos_ in ("ADP", "PUNCT", "CCONJ", "SCONJ", "PART", "AUX", "VERB")
            for k in (list(subj.subtree)[-1].i + 1, list(obj.subtree)[-1].i + 1)) and all(
            k < 0 or doc[k].pos_ not in ("NOUN", "PROPN", "ADJ", "DET")
            for k in (list(subj.subtree)[0].i - 1, list(obj.subtree)[0].i - 1))
        if (sb <= root.idx and ob > oa and subj_len <= 5 and obj_len <= 5 and no_clause and whole_np
                and '"' not in text[sa:ob]):
            s_txt, o_txt = text[sa:sb], text[oa:ob]
            if s_txt.lower() != o_txt.lower() and subj.lemma_.lower() != obj.lemma_.lower():
                new_subj = o_txt if obj.pos_ == "PROPN" or sa != 0 else o_txt
                new_obj = s_txt
                if sa == 0:
                    new_subj = _cap(o_txt)
                    if doc[0].pos_ == "DET" or (subj.pos_ != "PROPN" and doc[0].pos_ != "PROPN"):
                        new_obj = s_txt[:1].lower() + s_txt[1:]
                new = text[:sa] + new_subj + text[sb:oa] + new_obj + text[ob:]
                shift = len(new_subj) - (sb - sa)
                spans = [(sa, sa + len(new_subj)), (oa + shift, oa + shift + len(new_obj))]
                # The swapped statement must not be the source's own wording (e.g. a mutual relation stated both ways).
                if new[spans[0][0]:spans[1][1]].lower() not in art.text.lower():
                    options.append(Edit(new, spans, [(sa, sb), (oa, ob)], None, f"swap {s_txt!r} <-> {o_txt!r}"))
    # A quote or statement attributed to another person of the article.
    if root.lemma_ in SAY_VERBS:
        speaker = subj if subj is not None else None
        ent = next((e for e in doc.ents if speaker is not None and e.label_ == "PERSON"
                    and e.start <= speaker.i < e.end), None)
        if ent is not None:
            others = [o for o in art.speakers if not _same_entity(o, ent.text)
                      and not _word_in(o, s.text) and o[:1].isupper()]
            if others:
                a, b, old = _entity_span(ent)
                new = _fit_name(_pick_name(others, old, rng), old, _titled(doc, ent))
                if not _same_entity(new, old) and not _word_in(new, s.text):
                    options.append(_single(text, a, b, new, old, f"quote by {old} attributed to {new}"))
    if mode == "swap":
        options = [o for o in options if o.detail.startswith("swap")]
    if not options:
        return None
    return options[0]  # a subject/object swap when the sentence has one, else the misattributed quote


def edit_addition(base: Base, rng: random.Random, donors: Donors) -> Edit | None:
    text, art = base.text, base.sentence.article
    end = text.rstrip()
    if end.endswith(" ."):
        stem, final = end[:-2], " ."
    elif end.endswith("."):
        stem, final = end[:-1], "."
    else:
        return None
    if stem.endswith('"') or stem.endswith("''"):
        return None
    pool = [d for d in donors["clause"] if _foreign(d, art) and d.text not in donors.used]
    if not pool:
        return None
    d = pool[rng.randrange(len(pool))]
    clause = d.for_article(art)
    joiner = rng.choice(["and", "while"]) if not art.tokenised else "and"
    sep = " , " if art.tokenised else ", "
    new = stem + sep + joiner + " " + clause + final
    a = len(stem) + len(sep) + len(joiner) + 1
    return Edit(new, [(a, a + len(clause))], [(len(stem), len(stem))], None, f"+ {d.text!r} from {d.article.id}",
                donor=d.text)


# ----------------------------------------------------------------------------------------------- checks


def check_edit(base: Base, e: Edit, error_type: str) -> str | None:
    """Why a planted edit is not a clean single error, or None when it is."""
    orig, new = base.text, e.summary
    if new == orig:
        return "no change"
    if not e.spans or any(not (0 <= a < b <= len(new)) for a, b in e.spans):
        return "bad span"
    if len(e.spans) != len(e.original_spans):
        return "span count"
    # Outside the recorded spans the statement is the original, character for character.
    pieces_new, pieces_old = [], []
    pn = po = 0
    for (a, b), (c, d) in zip(e.spans, e.original_spans):
        pieces_new.append(new[pn:a])
        pieces_old.append(orig[po:c])
        pn, po = b, d
    pieces_new.append(new[pn:])
    pieces_old.append(orig[po:])
    if error_type in ("invented_attribute", "unsupported_addition"):
        # Inserted text: outside the span only the separators were added.
        if new[:e.spans[0][0]].rstrip(" ,").rstrip() != orig[:e.original_spans[0][0]].rstrip() and \
                not new.startswith(orig[:e.original_spans[0][0]]):
            return "prefix changed"
    elif pieces_new != pieces_old:
        return "text outside the span changed"
    if error_type in ("number", "date", "entity_swap"):
        inserted = new[e.spans[0][0]:e.spans[0][1]]
        if _word_in(inserted, base.sentence.text):
            return "new value occurs in the source sentence"
    if "  " in new.replace(" , ", ",").replace(" . ", "."):
        return "double space"
    return None


# ----------------------------------------------------------------------------------------------- assembly


EDITORS: dict[str, Callable[..., Edit | None]] = {
    "number": edit_number, "date": edit_date, "entity_swap": edit_entity, "invented_attribute": edit_attribute,
    "negation": edit_negation, "role_swap": edit_role, "unsupported_addition": edit_addition,
}
# Types tried first get the first pick of sentences: the rarer an applicable sentence, the earlier.
ORDER = ("role_swap", "date", "negation", "invented_attribute", "entity_swap", "number", "unsupported_addition")
# (type, mode, share of --per-type): the rarer variant of a type first, over the whole pool, up to its share; then
# the type fills up with any variant. Without this, misattributed quotes and negations crowd out swaps and antonyms.
PASSES = [("role_swap", "swap", 0.5), ("negation", "antonym", 0.25)] + [(t, None, 1.0) for t in ORDER]


def _record(base: Base, error_type: str, edit: Edit | None, seed: int, k: int) -> dict[str, Any]:
    s, art = base.sentence, base.sentence.article
    summary = edit.summary if edit else base.text
    rec = {
        "id": f"planted-{art.id}-s{s.index}-{error_type}",
        "document": art.text,
        "summary": summary,
        "label": 0 if edit else 1,
        "hallucination_spans": [
            {"start": a, "end": b, "worker": WORKER, "type": error_type, "text": summary[a:b]} for a, b in edit.spans
        ] if edit else [],
        "n_annotators": 1,
        "error_type": error_type,
        "original": base.text,
        "original_spans": [list(x) for x in edit.original_spans] if edit else [],
        "source_value": edit.source_value if edit else None,
        "edit": edit.detail if edit else None,
        "transform": base.transform,
        "sentence": s.text,
        "sentence_start": s.start,
        "sentence_end": s.end,
        "article_id": art.id,
        "article_dataset": art.dataset,
        "split": art.split,
        "source_dataset": "citefix-planted",
        "origin": f"training/make_planted.py --seed {seed}; article {art.origin}; sentence {s.index}",
    }
    return rec


def build(articles: Sequence[Article], nlp: Any, *, seed: int = 0, per_type: int = 65,
          faithful: int | None = None, verbatim_share: float = 0.1, faithful_verbatim: float = 0.25, log: Callable[[str], None] = print
          ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The records of the suite (shuffled) and how many of each type were made."""
    rng = random.Random(seed)
    n_faithful = 7 * per_type if faithful is None else faithful
    donors = harvest_donors(articles)
    # Candidate sentences, interleaved across articles so that no article dominates.
    per_article: list[list[Sentence]] = []
    for art in articles:
        sents = [s for s in art.sentences if usable_sentence(s)]
        rng.shuffle(sents)
        if sents:
            per_article.append(sents)
    rng.shuffle(per_article)
    pool: list[Sentence] = []
    depth = max((len(x) for x in per_article), default=0)
    for i in range(depth):
        pool.extend(x[i] for x in per_article if i < len(x))
    # One faithful base per sentence: verbatim, or one of its light edits.
    bases: list[Base] = []
    for s in pool:
        variants = light_edits(s)
        edited = [v for v in variants[1:] if _quotes_ok(v[1]) and len(v[1].split()) >= 6]
        name, text = variants[0] if not edited or rng.random() < verbatim_share else edited[rng.randrange(len(edited))]
        bases.append(Base(s, text, name))
    for b, doc in zip(bases, nlp.pipe([b.text for b in bases], batch_size=128)):
        b.doc = doc
    used: set[int] = set()
    uses: dict[str, int] = {}
    texts: set[str] = set()
    records: list[dict[str, Any]] = []
    counts = {t: 0 for t in ("none",) + ERROR_TYPES}
    rejected: dict[str, int] = {}
    for error_type, mode, share in PASSES:
        fn = EDITORS[error_type]
        cap = min(per_type, math.ceil(share * per_type))
        for i, base in enumerate(bases):
            if counts[error_type] >= cap:
                break
            art = base.sentence.article
            if i in used or uses.get(art.id, 0) >= MAX_PER_ARTICLE:
                continue
            erng = random.Random(f"{seed}:{error_type}:{art.id}:{base.sentence.index}")
            edit = fn(base, erng, donors) if error_type in ("invented_attribute", "unsupported_addition") \
                else fn(base, erng, mode) if mode else fn(base, erng)
            if edit is None:
                continue
            why = check_edit(base, edit, error_type)
            if why is not None or edit.summary in texts:
                rejected[why or "duplicate"] = rejected.get(why or "duplicate", 0) + 1
                continue
            used.add(i)
            uses[art.id] = uses.get(art.id, 0) + 1
            texts.add(edit.summary)
            if edit.donor is not None:
                donors.used.add(edit.donor)
            records.append(_record(base, error_type, edit, seed, counts[error_type]))
            counts[error_type] += 1
    # Faithful statements: at most a quarter verbatim copies of a source sentence (a planted error never is one, so
    # "copied word for word" must not tell the two apart), the rest lightly edited; verbatim ones fill any shortfall.
    n_verbatim = round(faithful_verbatim * n_faithful)
    n_edited = n_faithful - n_verbatim
    edited_left = sum(1 for i, b in enumerate(bases) if i not in used and b.transform != "verbatim")
    n_verbatim = max(n_verbatim, n_faithful - min(n_edited, edited_left))
    made = {"verbatim": 0, "edited": 0}
    for i, base in enumerate(bases):
        if counts["none"] >= n_faithful:
            break
        art = base.sentence.article
        if i in used or uses.get(art.id, 0) >= MAX_PER_ARTICLE or base.text in texts:
            continue
        kind = "verbatim" if base.transform == "verbatim" else "edited"
        if made[kind] >= (n_verbatim if kind == "verbatim" else n_faithful - n_verbatim):
            continue
        made[kind] += 1
        used.add(i)
        uses[art.id] = uses.get(art.id, 0) + 1
        texts.add(base.text)
        records.append(_record(base, "none", None, seed, counts["none"]))
        counts["none"] += 1
    if rejected:
        log(f"make_planted: candidate edits rejected by the checks: {json.dumps(rejected, sort_keys=True)}")
    rng.shuffle(records)
    return records, counts


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default="../shared/data",
                    help="folder with xsumfaith/ and summeval/ (relative paths are resolved against the repository "
                         "root; default ../shared/data)")
    ap.add_argument("--files", nargs="+", default=list(DEFAULT_FILES),
                    help="JSONL files under --data-dir whose 'document' fields are the articles")
    ap.add_argument("--text-field", default="document",
                    help="the records' field holding the article text (default document; citation_text reads the web "
                         "pages of wice/wice_claim_dev.jsonl, a genre the suites were not drawn from)")
    ap.add_argument("--out", default="out/planted_dev.jsonl", help="output JSONL (relative to the current folder)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-type", type=int, default=65, help="statements per error type (default 65)")
    ap.add_argument("--faithful", type=int, help="faithful statements (default 7 x --per-type)")
    ap.add_argument("--split", choices=("dev", "heldout", "all"), default="dev",
                    help="articles to use: dev (default, ~70%% by a hash of the text), heldout (the rest), all")
    ap.add_argument("--allow-short", action="store_true",
                    help="write the file even when a type has fewer than --per-type statements")
    args = ap.parse_args(argv)
    if args.per_type < 1:
        ap.error("--per-type must be at least 1")
    data = resolve_data_dir(args.data_dir)
    articles = load_articles([data / f for f in args.files], args.text_field)
    if args.split != "all":
        articles = [a for a in articles if a.split == args.split]
    if not articles:
        print(f"make_planted: no articles in split {args.split!r} under {data}", file=sys.stderr)
        return 2
    from citefix.nlp import load_spacy

    nlp = load_spacy(contractions=False)  # the suites as they were first made, byte for byte
    parse_articles(articles, nlp)
    records, counts = build(articles, nlp, seed=args.seed, per_type=args.per_type, faithful=args.faithful,
                            log=lambda m: print(m, file=sys.stderr))
    want = {"none": args.faithful if args.faithful is not None else 7 * args.per_type} | {
        t: args.per_type for t in ERROR_TYPES}
    short = {t: f"{counts[t]}/{want[t]}" for t in want if counts[t] < want[t]}
    summary = ", ".join(f"{t} {counts[t]}" for t in ("none",) + ERROR_TYPES)
    print(f"make_planted: {len(articles)} articles ({args.split}), {len(records)} statements: {summary}",
          file=sys.stderr)
    if short and not args.allow_short:
        print(f"make_planted: too few statements for {short}; nothing written. Fix: lower --per-type, use "
              "--split all, or pass --allow-short", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"make_planted: written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
