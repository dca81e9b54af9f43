"""What the offline checks found, beyond the numbers: a finding shared by every unit that states the same words, a
unit's reason in words, and a unit's marks placed in the case text."""

from __future__ import annotations

from typing import Any, Sequence

from citefix.models import Unit

# the raw feature a finding counts in, and the marks that place it in the unit: (list key, the marks' kinds)
_FINDING_MARKS = {
    "missing_numbers": ("missing", ("number",)), "missing_dates": ("missing", ("date",)),
    "missing_entities": ("missing", ("entity",)), "value_conflict": ("structure", ("conflict",)),
    "name_substitution": ("structure", ("substitution",)), "polarity_mismatch": ("structure", ("polarity", "antonym")),
    "polarity_negation": ("structure", ("polarity",)), "polarity_antonym": ("structure", ("antonym",)),
    "polarity_certainty": ("structure", ("certainty",)), "role_swap": ("structure", ("role",)),
}


def share_findings(units: Sequence[Unit], feats: list[dict[str, Any]], case_text: str) -> None:
    """A finding made on some words applies to every unit that holds those words: a unit whose text covers another
    unit's contradicted value, negation, role or invented name gets that finding too (with its marks), so that the
    words are not unsupported in one unit and supported in a longer one that contains them."""
    from citefix.decompose.clauses import unit_to_text_offsets

    aligns = [unit_to_text_offsets(u, case_text) if u.has_span else None for u in units]
    for i, fi in enumerate(feats):
        if "error" in fi or aligns[i] is None:
            continue
        for key, (where, kinds) in _FINDING_MARKS.items():
            if fi.get(key, 0) < 1:
                continue
            for m in fi.get(where, []):
                if m.get("kind") not in kinds:
                    continue
                spans = _to_case_spans(units[i], case_text, [(m["start"], m["end"])])
                if not spans:
                    continue
                for j, fj in enumerate(feats):
                    align = aligns[j]
                    if j == i or "error" in fj or align is None or fj.get(key, 0) >= 1:
                        continue
                    # only words the unit states itself (its painted pieces), not the context a detail unit carries
                    own = _own_pieces(units[j])
                    if not all(any(a <= s and e <= b for a, b in own) for s, e in spans):
                        continue
                    local = _from_case_spans(align, spans)
                    if local is None:
                        continue
                    fj[key] = 1
                    # kept apart from the unit's own marks (which the reviser reads): said in its reason, painted
                    fj.setdefault("shared", []).append({**m, "start": local[0], "end": local[1]})
                    fj.setdefault("shared_from", []).append(units[i].id)


def _own_pieces(u: Unit) -> list[tuple[int, int]]:
    """The stretches of the case text a unit states itself: meta["pieces"] as (start, end) pairs (lists or the
    {start, end, text} records of the claim decomposer), else its span."""
    out = []
    for p in (u.meta or {}).get("pieces") or []:
        if isinstance(p, dict) and "start" in p and "end" in p:
            out.append((int(p["start"]), int(p["end"])))
        elif isinstance(p, (list, tuple)) and len(p) >= 2:
            out.append((int(p[0]), int(p[1])))
    if not out and u.start is not None and u.end is not None:
        out.append((u.start, u.end))
    return out


def _from_case_spans(align: list[list[int]], spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Where case-text spans lie in a unit's own text (its alignment to the case), when it holds all of them."""
    lo, hi = None, None
    for s, e in spans:
        hit = next(((a + s - o, a + e - o) for a, b, o in align if o <= s and e <= o + (b - a)), None)
        if hit is None:
            return None
        lo = hit[0] if lo is None else min(lo, hit[0])
        hi = hit[1] if hi is None else max(hi, hit[1])
    return (lo, hi) if lo is not None and hi is not None else None


def _quote(items: Sequence[str], limit: int = 3) -> str:
    words = list(dict.fromkeys(x.strip() for x in items if x and x.strip()))
    return ", ".join(f"'{w}'" for w in words[:limit]) + (" …" if len(words) > limit else "")


def reason(f: dict[str, Any], findings: dict[str, bool], label: str) -> str:
    """Why a unit is not judged supported, in words: the strongest finding first, else how little of it the evidence
    holds."""
    why: list[str] = []
    shared = f.get("shared", [])
    for m in f.get("structure", []) + [m for m in shared if m.get("kind") not in ("number", "date", "entity")]:
        kind, text, ev = m.get("kind"), m.get("text", ""), m.get("evidence")
        if kind in ("conflict", "substitution") and ev:
            why.append(f"the source says '{ev}' where this says '{text}'")
        elif kind == "antonym" and ev:
            why.append(f"the source says '{ev}', the opposite of '{text}'")
        elif kind == "polarity":
            why.append(f"the source says the opposite of '{text}'" + (" (it is not negated there)"
                                                                     if m.get("unit_negated") else " (negated)"))
        elif kind == "role":
            why.append(f"who does what is the other way round in the source ('{text}')")
        elif kind == "certainty":
            why.append(f"the source is less certain than '{text}'")
    # a figure the sources lack where the evidence gives another of its kind: said with that figure
    given = [m for m in f.get("missing", []) if m.get("kind") == "number" and m.get("evidence")]
    why += [f"the source has no figure '{m['text']}' (it gives '{m['evidence']}')" for m in given]
    # a name some of whose words the sources hold ("Liam Bennett" where they say "Bob Bennett"): said as such
    part = [m["text"] for m in f.get("missing", []) if m.get("kind") == "entity" and 0 < m.get("weight", 1) < 1]
    missing = {k: [m["text"] for m in f.get("missing", []) + shared if m.get("kind") == k and m not in given
                   and m["text"] not in part] for k in ("number", "date", "entity")}
    for k, name in (("number", "figure"), ("date", "date"), ("entity", "name")):
        if missing[k]:
            why.append(f"the source has no {name} {_quote(missing[k])}")
    if part:
        why.append(f"the source has only part of the name {_quote(part)}")
    # (a word pair found nowhere, citefix.verify.pairs, is told by the same words)
    if (findings.get("invented_words") or f.get("invented_pairs")) and f.get("invented"):
        why.append(f"words found nowhere in the source: {_quote([m['text'] for m in f['invented']])}")
    if not why:
        weak = [m["text"] for m in f.get("low_tokens", [])] + [m["text"] for m in f.get("missing_words", [])]
        why.append(weak_reason(label, weak))
    return "; ".join(dict.fromkeys(why))


def weak_reason(label: str, weak: list[str]) -> str:
    """The reason given when no check found anything: how little of the unit its evidence holds, its weakest words."""
    return (("little of it is found in the evidence" if label == "unsupported" else
             "only partly found in the evidence: check it") + (f" (weakest: {_quote(weak)})" if weak else ""))


def _to_case_spans(unit: Unit, case_text: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Map unit-text spans to merged case-text spans, when the unit can be aligned to the case text."""
    if not marks or not unit.has_span:
        return []
    from citefix.decompose.clauses import unit_to_text_offsets

    align = unit_to_text_offsets(unit, case_text)
    if align is None:
        return []
    out: list[tuple[int, int]] = []
    for s, e in sorted(set(marks)):
        for a, b, o in align:
            lo, hi = max(s, a), min(e, b)
            if lo < hi:
                out.append((o + lo - a, o + hi - a))
    out.sort()
    merged: list[tuple[int, int]] = []
    for s, e in out:
        if merged and (s <= merged[-1][1] or not case_text[merged[-1][1] : s].strip()):
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged
