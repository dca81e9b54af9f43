"""ACU generation with an LLM (ACUEval step 1): the model reads only the text, never the source."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citefix.chunking import split_sentences
from citefix.decompose.align import align_units
from citefix.errors import LLMError
from citefix.llm.client import LLMClient
from citefix.models import Case, Unit
from citefix.nlp import strip_citations
from citefix.prompting import load_prompt

_BULLET = re.compile(r"^\s*(?:[-*•‣▪◦]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)])\s+(.*\S)\s*$")
_REFUSAL = re.compile(r"\b(I can(?:no|')t|I'm (?:not able|unable)|I am (?:not able|unable)|as an AI|I won't|I will not)\b", re.I)


@dataclass
class ParsedACUs:
    units: list[str] = field(default_factory=list)
    error: str | None = None


def parse_acu_list(answer: str) -> ParsedACUs:
    """Bulleted or numbered lines → units; stray prose and preambles are skipped; empty or refused → error."""
    text = (answer or "").strip()
    if not text:
        return ParsedACUs(error="the model returned an empty answer")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    bullets = [m.group(1).strip() for ln in lines if (m := _BULLET.match(ln))]
    if not bullets:
        if _REFUSAL.search(text):
            return ParsedACUs(error=f"the model refused: {text[:100]!r}")
        # No bullets: take plain lines that read like statements (not a preamble ending in ':').
        bullets = [ln.strip() for ln in lines if not ln.strip().endswith(":") and len(ln.split()) >= 2]
    cleaned = []
    for b in bullets:
        b = b.strip().strip('"“”').strip()
        b = re.sub(r"^\*\*|\*\*$", "", b).strip()
        if b and not b.endswith(":"):
            cleaned.append(b)
    units = list(dict.fromkeys(cleaned))  # order-preserving de-duplication
    if not units:
        return ParsedACUs(error=f"no units found in the answer: {text[:100]!r}")
    return ParsedACUs(units=units)


class ACUDecomposer:
    """Lists a text's ACUs with an LLM and aligns each to its span.

    granularity="sentence" (default) asks once per sentence, so an edit to one sentence regenerates only its ACUs
    (the store's cache answers the rest); "text" asks once for the whole text, as in the paper.
    """

    def __init__(self, llm: LLMClient, *, granularity: str = "sentence", max_tokens: int = 256):
        if granularity not in ("sentence", "text"):
            raise ValueError("granularity must be 'sentence' or 'text'")
        self.llm = llm
        self.granularity = granularity
        self.max_tokens = max_tokens
        self.prompt = load_prompt("acu_generate")
        self.name = f"acu:{llm.model}"
        self.errors: list[str] = []

    def units(self, case: Case) -> list[Unit]:
        self.errors = []
        text = case.text
        pieces = [s.text for s in split_sentences(text)] if self.granularity == "sentence" else [text]
        pieces = [strip_citations(p).strip() for p in pieces]
        pieces = [p for p in pieces if p]

        def ask(piece: str) -> ParsedACUs:
            try:
                comp = self.llm.complete(self.prompt.render(text=piece), purpose="acu_generate", max_tokens=self.max_tokens, prompt=self.prompt)
            except LLMError as exc:
                return ParsedACUs(error=str(exc))
            return parse_acu_list(comp.text)

        parsed = self.llm.map(ask, pieces)
        texts: list[str] = []
        for piece, p in zip(pieces, parsed):
            if p.error:
                self.errors.append(f"ACU generation for {piece[:40]!r}…: {p.error}")
            texts.extend(p.units)
        aligned = align_units(text, texts)
        return [
            Unit(id=f"u{i + 1}", text=t, kind="acu", decomposer=self.name, start=a.start, end=a.end, note=a.note)
            for i, (t, a) in enumerate(zip(texts, aligned))
        ]
