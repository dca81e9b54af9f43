"""Rich renderables for the TUI panes: the painted text, source paragraphs, unit cells, the word diff.

Pure functions of core data (no Textual, no store): the verdict painting reuses citefix.report.char_labels so the TUI
and the terminal report agree on which characters are supported.
"""

from __future__ import annotations

import difflib
import re
import textwrap
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from citefix.models import Evaluation
from citefix.report import char_labels, runs_of

# One colour per verdict, and a second cue that survives without colour (NO_COLOR, colour-blind readers): supported
# text is plain, partial text italic, unsupported text bold, text nobody checked dim; after each partial or unsupported
# stretch a marker (≈ / ✗) follows, and the words a verifier named as unsupported are underlined.
VERDICT_STYLE = {
    "supported": Style(color="green"),
    "partial": Style(color="yellow", italic=True),
    "unsupported": Style(color="red", bold=True),
    "error": Style(color="magenta", italic=True),
    None: Style(dim=True),
}
VERDICT_NAME = {"supported": "supported", "partial": "partial", "unsupported": "unsupported", "error": "error", None: "not checked"}
VERDICT_MARK = {"partial": "≈", "unsupported": "✗", "error": "!"}
UNSUPPORTED_TOKEN = Style(underline=True)
CITATION = Style(color="cyan", bold=True)
SELECTED = Style(reverse=True)
EVIDENCE = Style(bgcolor="color(22)", bold=True, underline=True)
EVIDENCE_WEAK = Style(bgcolor="color(58)", bold=True, underline=True)
# The unit a span belongs to rides in the style's meta under a plain key: Textual draws spans whose meta holds
# "@click" as links (its link colour and underline over the verdict colour), so clicks are resolved by the text
# widget itself from the meta under the mouse (TextBody.on_click), never through "@click".
UNIT_META = "citefix_unit"
_MARK = re.compile(r"\[\s*\d+(?:\s*[-–,]\s*\d+)*\s*\]")


def legend() -> Text:
    t = Text("")
    for lab in ("supported", "partial", "unsupported", None):
        mark = VERDICT_MARK.get(lab)
        t.append(VERDICT_NAME[lab] + (mark or ""), style=VERDICT_STYLE[lab])
        t.append("  ")
    t.append("unsupported words", style=VERDICT_STYLE["unsupported"] + UNSUPPORTED_TOKEN)
    t.append("  ")
    t.append("[1]", style=CITATION)
    t.append(" citation")
    return t


def diff_legend() -> Text:
    """The legend under a pending proposal's inline diff."""
    t = Text("")
    t.append("⟨n⟩", style=Style(color="yellow", bold=True))
    t.append(" edit  ")
    t.append("deleted", style=Style(color="red", strike=True))
    t.append("  ")
    t.append("inserted", style=Style(color="green", underline=True, bold=True))
    t.append("  ")
    t.append("dropped edit", style=Style(dim=True, strike=True))
    t.append("  ")
    t.append("selected", style=SELECTED)
    return t


def unit_at_chars(ev: Evaluation) -> list[str | None]:
    """Per character, the id of the most specific unit covering it (the shortest span), for clicks."""
    owner: list[str | None] = [None] * len(ev.text)
    width: list[int] = [1 << 30] * len(ev.text)
    for u in ev.units:
        if not u.has_span:
            continue
        for a, b in u.meta.get("pieces") or [[u.start, u.end]]:
            for i in range(max(0, a), min(b, len(owner))):
                if b - a < width[i]:
                    owner[i], width[i] = u.id, b - a
    return owner


def unit_chars(ev: Evaluation, unit_id: str | None) -> set[int]:
    if unit_id is None:
        return set()
    for u in ev.units:
        if u.id == unit_id and u.has_span:
            chars: set[int] = set()
            for a, b in u.meta.get("pieces") or [[u.start, u.end]]:
                chars.update(range(max(0, a), min(b, len(ev.text))))
            return chars
    return set()


def painted_text(text: str, ev: Evaluation | None, *, selected: str | None = None, clickable: bool = True) -> Text:
    """The text with unit spans coloured by verdict, unsupported words underlined, citation marks styled.

    With an evaluation of another text (the text was edited since), nothing is painted: the spans would be wrong.
    """
    out = Text()
    if ev is None or ev.text != text or not text:
        out.append(text, style=VERDICT_STYLE[None] if ev is not None else "")
        _style_marks(out, text)
        return out
    labels = char_labels(ev)
    owners = unit_at_chars(ev) if clickable else [None] * len(text)
    bad: set[int] = set()
    for v in ev.verdicts:
        if v.label in ("unsupported", "partial"):
            for a, b in v.unsupported_spans:
                bad.update(range(max(0, a), min(b, len(text))))
    sel = unit_chars(ev, selected)
    # Split the verdict runs further where the owner, the token mark or the selection changes.
    keys = [(labels[i], owners[i], i in bad, i in sel) for i in range(len(text))]
    runs = list(runs_of(keys))  # type: ignore[arg-type]
    for k, (a, b, key) in enumerate(runs):
        lab, owner, is_bad, is_sel = key
        style = VERDICT_STYLE[lab]
        if is_bad:
            style = style + UNSUPPORTED_TOKEN
        if is_sel:
            style = style + SELECTED
        meta = Style(meta={UNIT_META: owner}) if (owner is not None and clickable) else None
        out.append(text[a:b], style=style + meta if meta else style)
        nxt = runs[k + 1][2][0] if k + 1 < len(runs) else None
        if lab in VERDICT_MARK and nxt != lab:  # the end of a partial / unsupported stretch: its marker
            out.append(VERDICT_MARK[lab], style=VERDICT_STYLE[lab] + meta if meta else VERDICT_STYLE[lab])
    _style_marks(out, out.plain)  # offsets in the painted text (the markers shift them)
    return out


def _style_marks(out: Text, text: str) -> None:
    for m in _MARK.finditer(text):
        out.stylize(CITATION, m.start(), m.end())


@dataclass
class Paragraph:
    source_id: str
    start: int  # offset of the paragraph in its source text
    end: int
    text: str


def paragraphs(source_id: str, text: str) -> list[Paragraph]:
    """Split a source at line breaks (blank lines or single newlines: sources pasted from PDFs or web pages often
    separate paragraphs by one newline), keeping each paragraph's offset so evidence spans map onto it."""
    out, pos = [], 0
    for m in re.finditer(r"\n\s*", text):
        if text[pos:m.start()].strip():
            out.append(Paragraph(source_id, pos, m.start(), text[pos:m.start()]))
        pos = m.end()
    if text[pos:].strip():
        out.append(Paragraph(source_id, pos, len(text), text[pos:]))
    return out or [Paragraph(source_id, 0, len(text), text)]


def painted_paragraph(p: Paragraph, highlight: tuple[int, int] | None = None, *, weak: bool = False) -> Text:
    t = Text(p.text)
    if highlight is not None:
        a, b = max(highlight[0], p.start) - p.start, min(highlight[1], p.end) - p.start
        if a < b:
            t.stylize(EVIDENCE_WEAK if weak else EVIDENCE, a, b)
    return t


def verdict_cell(label: str | None) -> Text:
    return Text(VERDICT_NAME.get(label, str(label)), style=VERDICT_STYLE.get(label, Style()))


def score_cell(score: float | None) -> Text:
    return Text("—" if score is None else f"{score:.2f}", justify="right")


def word_diff(a: str, b: str) -> Text:
    """Deleted words struck through in red, inserted words in green (the same word alignment as `citefix show --diff`)."""
    wa, wb = a.split(), b.split()
    sm = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
    out = Text()
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.append(" ".join(wa[i1:i2]) + " ")
        if op in ("delete", "replace"):
            out.append(" ".join(wa[i1:i2]), style=Style(color="red", strike=True))
            out.append(" ")
        if op in ("insert", "replace"):
            out.append(" ".join(wb[j1:j2]), style=Style(color="green", bold=True, underline=True))
            out.append(" ")
    out.rstrip()
    return out


def diff_counts(a: str, b: str) -> tuple[int, int]:
    """(words removed, words added) between two texts."""
    sm = difflib.SequenceMatcher(a=a.split(), b=b.split(), autojunk=False)
    rem = add = 0
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op in ("delete", "replace"):
            rem += i2 - i1
        if op in ("insert", "replace"):
            add += j2 - j1
    return rem, add


def text_chart(scores: list[float | None], width: int = 30) -> Text:
    """Score per round as a row of block characters (the fallback where a Sparkline has too little room)."""
    blocks = " ▁▂▃▄▅▆▇█"
    out = Text()
    for s in scores[-width:]:
        if s is None:
            out.append("·", style="dim")
        else:
            out.append(blocks[min(8, max(1, round(s * 8)))], style="green" if s >= 0.75 else "yellow" if s >= 0.5 else "red")
    return out


# -- cited answers ------------------------------------------------------------------------------------------------------
LEVEL_LABEL = {"full": "supported", "partial": "partial", "none": "unsupported"}  # statement support → verdict colour
CITATION_WORD = {"supported": "supported", "redundant": "REDUNDANT", "unsupported": "unsupported",
                 "not_found": "NOT FOUND", "not_judged": "not judged"}
CITATION_LABEL = {"supported": "supported", "redundant": "partial", "unsupported": "unsupported",
                  "not_found": "unsupported", "not_judged": None}


def _f(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def statement_support(ev: Evaluation) -> dict[str, dict]:
    """Per statement (sentence unit id s1…), its row of metrics["support"]["statements"]: level, share, message."""
    return {s.get("statement_id"): s for s in (ev.metrics.get("support") or {}).get("statements") or []}


def citation_groups(ev: Evaluation) -> dict[str, dict]:
    """Per claim unit id, its citation group row of metrics["citations"]["groups"] (claim, citations, messages)."""
    return {g.get("unit_id"): g for g in (ev.metrics.get("citations") or {}).get("groups") or []}


def statement_cell(row: dict | None) -> Text:
    """The verdict cell of a statement row: its support level, as `citefix show` reports it."""
    if row is None or row.get("level") is None:
        return Text("no citation" if row is None else "not judged", style="dim")
    level = row["level"]  # full / partial / none: the statement's support (the verifier column says "statement")
    return Text(level + VERDICT_MARK.get(LEVEL_LABEL.get(level), ""), style=VERDICT_STYLE[LEVEL_LABEL.get(level)])


def citations_text(row: dict) -> Text:
    """Each citation of a group with its verdict: [2] supported 0.93  [3] REDUNDANT 0.41  [5] NOT FOUND."""
    t = Text()
    for c in row.get("citations") or []:
        label = c.get("label", "")
        t.append(f"[{c.get('id')}] ", style=CITATION)
        word = CITATION_WORD.get(label, label)
        score = c.get("alone")
        t.append(word + ("" if score is None or label == "not_found" else f" {_f(score)}"),
                 style=VERDICT_STYLE.get(CITATION_LABEL.get(label), Style()))
        t.append("  ")
    t.rstrip()
    return t


def cited_summary(ev: Evaluation) -> Text | None:
    """ALiiCE / ALCE figures, CVCP, redundant and not-found counts and statement support: the summary line."""
    m = ev.metrics.get("citations")
    if ev.kind != "cited_answer" or not m:
        return None
    al, ac = m.get("aliice") or {}, m.get("alce") or {}
    counts = (ev.metrics.get("support") or {}).get("counts") or {}
    t = Text()
    t.append("ALiiCE ", style="bold")
    t.append(f"R {_f(al.get('recall'))} P {_f(al.get('precision'))} F1 {_f(al.get('f1'))}")
    t.append(" · ALCE ", style="bold")
    t.append(f"R {_f(ac.get('recall'))} P {_f(ac.get('precision'))} F1 {_f(ac.get('f1'))}")
    t.append(" · CVCP ", style="bold")
    t.append(_f(m.get("cvcp")))
    t.append(f" · redundant {al.get('redundant', 0)} · not found {al.get('not_found', 0)}",
             style="yellow" if (al.get("redundant") or al.get("not_found")) else "")
    t.append(f" · statements full {counts.get('full', 0)} partial {counts.get('partial', 0)} none {counts.get('none', 0)}")
    if m.get("status") == "uncited" or ev.status == "uncited":
        t = Text(ev.message or "uncited answer: it carries no citation marks", style="yellow")
    return t


# -- a pending proposal as an inline diff, edit by edit -----------------------------------------------------------------
# spaces, figures with their decimal or thousands marks ("8.1", "1,200": one value is one edit), words, punctuation
_TOKENS = re.compile(r"\s+|\d+(?:[.,]\d+)+|\w+(?:[’'-]\w+)*|[^\w\s]")


@dataclass
class Hunk:
    """One edit of a proposal: old tokens a[i1:i2] become new tokens b[j1:j2] (whitespace kept, so applying a subset
    of the edits rebuilds the text exactly)."""

    k: int
    i1: int
    i2: int
    j1: int
    j2: int
    old: str
    new: str
    start: int  # character offsets of the old part in the old text
    end: int
    kind: str = "correction"  # correction / deletion / insertion / re-citation
    why: str = ""  # the verdicts (and evidence) of the units the edit touches, or the reviser's reason


def proposal_hunks(old: str, new: str, ev: Evaluation | None = None, reasons: list[dict] | None = None) -> list[Hunk]:
    """The edits between the current text and a proposal, with their kind and the evidence that motivated them."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    offs = [0]
    for tok in a:
        offs.append(offs[-1] + len(tok))
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out: list[Hunk] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        o, n = "".join(a[i1:i2]), "".join(b[j1:j2])
        if not o.strip() and not n.strip():
            continue  # spacing only: follows the proposal (see apply_hunks)
        h = Hunk(len(out), i1, i2, j1, j2, o, n, offs[i1], offs[i2])
        bare_o, bare_n = _MARK.sub("", o).split(), _MARK.sub("", n).split()
        in_mark = any(m.start() <= h.start and h.end <= m.end() for m in _MARK.finditer(old))
        if bare_o == bare_n or (in_mark and set((o + n).strip()) <= set("0123456789[]–-, ")):
            h.kind = "re-citation"
        elif not n.strip():
            h.kind = "deletion"
        elif not o.strip():
            h.kind = "insertion"
        h.why = _why(h, old, ev, reasons or [])
        out.append(h)
    return out


def _why(h: Hunk, old: str, ev: Evaluation | None, reasons: list[dict]) -> str:
    parts = []
    for r in reasons:  # the offline reviser's own account of a deletion
        t = (r.get("text") or "").strip()
        if t and t in h.old and r.get("why"):
            parts.append(str(r["why"]))
    if ev is not None and ev.text == old:
        for u in ev.units:
            if not u.has_span or u.end <= h.start or (h.end > h.start and u.start >= h.end) or \
                    (h.end == h.start and not (u.start <= h.start <= u.end)):
                continue
            v = ev.verdict_for(u.id)
            if v is None or v.label == "supported":
                continue
            ev_txt = (f"evidence [{v.evidence.source_id}] “{textwrap.shorten(v.evidence.text, 100, placeholder=' …')}”"
                      if v.evidence is not None else "no evidence in the sources")
            parts.append(f"{u.id} {v.label} {_f(v.score)}: {ev_txt}")
    return "; ".join(dict.fromkeys(parts)) or "no unit of the checked text flagged here"


def apply_hunks(old: str, new: str, hunks: list[Hunk], keep: set[int]) -> str:
    """The text with only the kept edits applied (all kept: the proposal; none kept: the old text, spacing aside)."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    by_pos = {(h.i1, h.i2, h.j1, h.j2): h for h in hunks}
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.extend(a[i1:i2])
            continue
        h = by_pos.get((i1, i2, j1, j2))
        out.extend(b[j1:j2] if (h is None or h.k in keep) else a[i1:i2])
    return "".join(out)


KIND_STYLE = {"deletion": "red", "insertion": "green", "correction": "yellow", "re-citation": "cyan"}


def inline_diff(old: str, new: str, hunks: list[Hunk], keep: set[int], current: int | None = None,
                feedback: str | None = None) -> Text:
    """The proposal in place: deletions struck, insertions underlined, each edit numbered; below, each edit with its
    kind, its evidence and whether it is kept; above, the feedback that produced the proposal."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    by_pos = {(h.i1, h.i2, h.j1, h.j2): h for h in hunks}
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out = Text()
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.append("".join(a[i1:i2]))
            continue
        h = by_pos.get((i1, i2, j1, j2))
        if h is None:
            out.append("".join(b[j1:j2]))
            continue
        kept = h.k in keep
        sel = Style(reverse=True) if h.k == current else Style()
        out.append(f"⟨{h.k + 1}⟩", style=Style(color=KIND_STYLE[h.kind], bold=True) + sel)
        # [-removed-]{+added+}: the edit reads without colour too
        if h.old.strip():
            out.append(f"[-{h.old}-]", style=Style(color="red", strike=True, dim=not kept) + sel)
        if h.new.strip():
            out.append(f"{{+{h.new}+}}",
                       style=Style(color="green", underline=True, bold=kept, dim=not kept, strike=not kept) + sel)
    out.append("\n\nEdits ([ ] pick, space keeps/drops, a accepts the kept ones, n rejects all):\n", style="bold")
    for h in hunks:
        kept = h.k in keep
        line = Text()
        line.append("▶ " if h.k == current else "  ")
        line.append(f"⟨{h.k + 1}⟩ ", style=Style(color=KIND_STYLE[h.kind], bold=True))
        line.append("✓ keep " if kept else "✗ drop ", style="green" if kept else "red")
        line.append(f"{h.kind}: ", style=Style(color=KIND_STYLE[h.kind]))
        if h.old.strip():
            line.append(" ".join(h.old.split()), style=Style(strike=True))
        if h.old.strip() and h.new.strip():
            line.append(" → ")
        if h.new.strip():
            line.append(" ".join(h.new.split()), style=Style(underline=True))
        line.append(f" — {h.why}\n", style="dim")
        out.append_text(line)
    if not hunks:
        out.append("  (no change)\n", style="dim")
    if feedback:  # what produced the proposal
        out.append("\nFeedback that produced it: ", style="bold")
        out.append(feedback.strip(), style="italic")
    out.rstrip()
    return out
