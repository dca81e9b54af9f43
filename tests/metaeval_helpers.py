"""Labelled records for the meta-eval tests: a JSONL writer and six summaries of one document, half faithful
(tests/ is on sys.path, so `from metaeval_helpers import ...`)."""

from __future__ import annotations

import json
from pathlib import Path


def write(tmp_path: Path, records, name="data.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return p


DOC = "The council opened a new library in Leeds on Monday. It has ten thousand books."


def summary_records():
    recs = [
        ("the council opened a library in leeds.", 1),
        ("the council opened a library in york.", 0),
        ("the mayor closed a museum in paris.", 0),
        ("it has ten thousand books. the library opened on monday.", 1),
        ("a new library opened in leeds. it has books.", 1),
        ("the council opened a library. it has ten million films.", 0),
    ]
    out = []
    for i, (s, y) in enumerate(recs):
        spans = []
        for w in ("york", "mayor closed a museum in paris", "million films"):
            if w in s:
                a = s.index(w)
                spans += [{"start": a, "end": a + len(w), "worker": f"w{j}"} for j in range(2)]
        out.append({"id": f"x{i}", "document": DOC, "summary": s, "label": y, "hallucination_spans": spans})
    return out
