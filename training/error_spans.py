"""Where in a statement with an error its error lies, for the development sets that say so: XSumFaith's annotators
mark the hallucinated spans of a summary, and a SummEdits summary with an error is an edit of its document's original
summary (the id ending "_og"), so the words the edit changed are where the error is.

training/judge.py reads these to pick which atomic unit of such a statement is the unsupported one: among the units
whose own span meets an error span, the one the model finds most suspect (elsewhere, the most suspect of all units).

    .venv/bin/python -m training.error_spans          # how many statements with an error have a span, per set
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

WORD = re.compile(r"\S+")


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower().strip(".,;:!?\"'()"), m.start(), m.end()) for m in WORD.finditer(text)]


def edit_spans(original: str, edited: str) -> list[tuple[int, int]]:
    """Character spans of `edited` that differ from `original`, word by word: the words put in or changed, and for
    words only taken out the words on either side of the gap (what now reads without them)."""
    a, b = _words(original), _words(edited)
    sm = difflib.SequenceMatcher(a=[w for w, _, _ in a], b=[w for w, _, _ in b], autojunk=False)
    out: list[tuple[int, int]] = []
    for tag, _i1, _i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if j2 > j1:
            out.append((b[j1][1], b[j2 - 1][2]))
        elif b:
            lo, hi = max(0, j1 - 1), min(len(b) - 1, j1)
            out.append((b[lo][1], b[hi][2]))
    return out


def summedits_spans(pool: Path) -> dict[str, list[tuple[int, int]]]:
    """The edited words of every SummEdits summary with an error in the training pool, by id."""
    rows = [json.loads(line) for line in open(pool, encoding="utf-8")]
    rows = [r for r in rows if r.get("source") == "summedits"]
    originals = {r["id"][: -len("_og")]: r["claim"] for r in rows if r["id"].endswith("_og")}
    out = {}
    for r in rows:
        base = re.sub(r"_\d+$", "", r["id"])
        if int(r["label"]) == 0 and base in originals and r["id"] != base:
            spans = edit_spans(originals[base], r["claim"])
            if spans:
                out[str(r["id"])] = spans
    return out


def xsumfaith_spans(path: Path) -> dict[str, list[tuple[int, int]]]:
    """The spans any annotator marked hallucinated in each XSumFaith summary labelled unfaithful, by id."""
    out = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        if int(r.get("label", 1)) != 0:
            continue
        spans = [(int(s["start"]), int(s["end"])) for s in r.get("hallucination_spans") or []
                 if s.get("start") is not None and s.get("end") is not None and s["end"] > s["start"]]
        if spans:
            out[str(r["id"])] = spans
    return out


def known_spans(data: Path) -> dict[str, list[tuple[int, int]]]:
    """Every development set's error spans that the data in `data` (../shared/data) give, by statement id."""
    out: dict[str, list[tuple[int, int]]] = {}
    if (data / "train" / "pool.jsonl").exists():
        out.update(summedits_spans(data / "train" / "pool.jsonl"))
    if (data / "xsumfaith" / "xsumfaith_val_balanced.jsonl").exists():
        out.update(xsumfaith_spans(data / "xsumfaith" / "xsumfaith_val_balanced.jsonl"))
    return out


def units_meeting(spans: list[tuple[int, int]], unit_spans: list[tuple[int | None, int | None]]) -> list[int]:
    """The indices of the units whose own span meets any of `spans`."""
    return [k for k, (s, e) in enumerate(unit_spans)
            if s is not None and e is not None and any(s < b and a < e for a, b in spans)]


def main() -> None:
    import argparse

    from bench.lodo import _data_dir

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    spans = known_spans(_data_dir(args.data_dir))
    by: dict[str, int] = {}
    for k in spans:
        key = "xsumfaith" if k.startswith("xsumfaith") else k.split("-")[1] if k.startswith("summedits") else "other"
        by[key] = by.get(key, 0) + 1
    for k, n in sorted(by.items()):
        print(f"{k}: {n} statements with an error have a span")


if __name__ == "__main__":
    main()
