"""Revisers: feedback in, revised text out. The LLM reviser asks a model; the offline one (citefix.revision.offline)
deletes. Both return a Revision: the revised text alone, or no text and the reason the run ends."""

from __future__ import annotations

import re

from citefix.models import Case, Evaluation
from citefix.prompting import load_prompt
from citefix.revision.vocabulary import Feedback, Revision, noun, render_sources

# --- parsing the model's answer ----------------------------------------------------------------------------------

_REFUSAL = re.compile(
    r"^\W*(?:I(?:'m| am) sorry|sorry,|I apologi[sz]e|I can(?:no|')t|I cannot|I'm (?:not able|unable)|I am (?:not able|unable)|"
    r"I won't|I will not|As an AI|Unfortunately,? I)", re.I)
_FENCE = re.compile(r"```[\w-]*[ \t]*\n(.*?)\n?```", re.S)
_DELIMITED = re.compile(r"<<<\s*(?:REVISED|TEXT|SUMMARY|ANSWER)\s*\n(.*?)\n?\s*(?:REVISED|TEXT|SUMMARY|ANSWER)?\s*>>>", re.S)
_LABEL_WORDS = r"(?:(?:the\s+)?(?:revised|corrected|updated|new|final|edited)\s+(?:summary|text|answer|version)|revision|summary|answer|output)"
_PREAMBLE_LINE = re.compile(
    r"^\s*(?:\*\*|#+\s*)?(?:(?:sure|certainly|okay|ok|of course|absolutely)\b[^\n]*|here(?:'s| is| are)\b[^\n]*|below is\b[^\n]*|"
    r"i(?:'ve| have) (?:revised|removed|corrected|edited|updated)\b[^\n]*|" + _LABEL_WORDS + r"[^\n]{0,40})[:.!]\s*(?:\*\*)?\s*$",
    re.I)
_LABEL_PREFIX = re.compile(r"^\s*(?:\*\*)?\s*" + _LABEL_WORDS + r"\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*", re.I)
_TRAILER = re.compile(
    r"^\s*(?:\*\*|\()?\s*(?:notes?|changes(?: made)?|explanation|edits|what (?:i )?changed|i (?:removed|changed|deleted|kept|"
    r"corrected)|this revision|the revision|the revised (?:summary|text|answer) (?:removes|keeps|now))\b", re.I)
_QUOTES = [('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’"), ("«", "»")]


def parse_revision(answer: str | None) -> tuple[str | None, str | None, list[str]]:
    """The revised text alone from a model's answer: (text, reason when there is none, notes on what was stripped).

    Strips code fences, our own <<<TEXT … >>> delimiters echoed back, preambles ("Here is the revised summary:"),
    labels ("Revised summary: …"), closing remarks ("Note: I removed …") and quotes around the whole text.
    """
    notes: list[str] = []
    text = (answer or "").strip()
    if not text:
        return None, "empty", notes
    m = _DELIMITED.search(text)
    if m and m.group(1).strip():
        text = m.group(1).strip()
        notes.append("took the text between delimiters")
    m = _FENCE.search(text)
    if m and m.group(1).strip():
        text = m.group(1).strip()
        notes.append("took the text out of a code fence")
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    # a preamble line (ending in ':' or the like) at the top
    lines = text.splitlines()
    while lines and (not lines[0].strip() or _PREAMBLE_LINE.match(lines[0])):
        if lines[0].strip():
            notes.append(f"stripped preamble {lines[0].strip()[:60]!r}")
        lines = lines[1:]
    text = "\n".join(lines).strip()
    # a label in front of the text itself
    m = _LABEL_PREFIX.match(text)
    if m and text[m.end():].strip():
        notes.append(f"stripped label {text[: m.end()].strip()!r}")
        text = text[m.end():].strip()
    # closing remarks after a blank line
    paragraphs = re.split(r"(\n\s*\n)", text)
    keep: list[str] = []
    for i in range(0, len(paragraphs), 2):
        para = paragraphs[i]
        if keep and _TRAILER.match(para):
            notes.append(f"stripped closing remark {para.strip()[:60]!r}")
            break
        if keep:
            keep.append(paragraphs[i - 1])
        keep.append(para)
    text = "".join(keep).strip()
    text = re.sub(r"^\*\*(.*)\*\*$", r"\1", text, flags=re.S).strip() if text.count("**") == 2 else text
    for a, b in _QUOTES:
        if len(text) > 2 and text.startswith(a) and text.endswith(b) and a not in text[1:-1] and b not in text[1:-1]:
            text = text[1:-1].strip()
            notes.append("stripped quotes")
            break
    if not text:
        return None, "empty", notes
    if _REFUSAL.match(text):
        return None, "refused", notes
    return text, None, notes


_MARK = re.compile(r"\s*\[\s*([0-9][0-9,\s\-–]*)\]")


def sanitize_marks(text: str, source_ids: list[str]) -> tuple[str, list[str]]:
    """Remove citation ids that name no passage (never cite what does not exist); returns (text, removed ids)."""
    known = set(source_ids)
    removed: list[str] = []

    def fix(m: re.Match) -> str:
        from citefix.marks import parse_mark

        ids = parse_mark(m.group(0).strip())
        if ids is None:
            return m.group(0)
        good = [i for i in ids if i in known]
        bad = [i for i in ids if i not in known]
        if not bad:
            return m.group(0)
        removed.extend(bad)
        if not good:
            return ""
        lead = m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())]
        return lead + "".join(f"[{i}]" for i in good)

    out = _MARK.sub(fix, text)
    return out, removed


class LLMReviser:
    """Asks the model for the fewest changes that address the comment; the answer is parsed to the text alone."""

    def __init__(self, llm, *, max_tokens: int | None = None):
        self.llm = llm
        self.max_tokens = max_tokens
        self.prompt = load_prompt("revise")
        self.name = f"llm:{llm.model}"

    def revise(self, case: Case, feedback: Feedback, evaluation: Evaluation) -> Revision:
        if not feedback.comment:
            return Revision(None, "no_feedback", "the strategy had nothing to say about this text")
        text = evaluation.text or case.text
        cited = case.kind == "cited_answer"
        messages = self.prompt.render(source=render_sources(case), text=text, comment=feedback.comment, noun=noun(case),
                                      cited=cited, passages=", ".join(f"[{s.id}]" for s in case.sources))
        max_tokens = self.max_tokens or max(256, 3 * len(text.split()) + 64)
        comp = self.llm.complete(messages, purpose="revise", max_tokens=max_tokens, prompt=self.prompt)
        revised, reason, notes = parse_revision(comp.text)
        if revised is None:
            msg = {"empty": "the reviser returned an empty answer",
                   "refused": f"the reviser refused: {comp.text.strip()[:120]!r}"}.get(reason or "", reason)
            return Revision(None, reason, msg, raw=comp.text, notes=notes)
        if cited:
            revised, removed = sanitize_marks(revised, [s.id for s in case.sources])
            if removed:
                notes.append("removed marks naming passages that do not exist: " + ", ".join(f"[{i}]" for i in removed))
        return Revision(revised, raw=comp.text, notes=notes)
