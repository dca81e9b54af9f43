"""Turn files into Cases, with one clear message per mistake.

Accepted inputs (docs/input-format.md has the full schema):
- a source/summary pair of text files (either may be `-` for standard input);
- a JSON file holding one case, a list of cases, or an ALCE-style results file ({"data": [{question, docs, output}]});
- a JSONL file with one case per line.
A case is {"id", "sources": [{"id", "title", "text"}], "text", "question"?, "kind"?, "metadata"?}. Two record shapes
of the development data are read as cases too: {"document", "summary", ...} (XSumFaith, SummEval) and
{"answer", "passages", ...} (grouped cited answers); their other fields go to metadata.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from pydantic import ValidationError

from citefix.errors import InputError
from citefix.models import Case, Source

# Far beyond any model's window even after chunking: refuse rather than grind (2M characters ≈ 400k words).
MAX_SOURCE_CHARS = 2_000_000
# The text is cut into units sentence by sentence; a "sentence" this long is not prose (the clause walk is superlinear
# in sentence length), so it is refused with a message rather than ground through for minutes.
MAX_SENTENCE_CHARS = 3_000
# A case file holds many cases, each held to the limits above on its own: the file's own bound is only against reading
# something that is not a case file at all (a batch of 29k claims with their documents is a few hundred MB at most).
MAX_CASE_FILE_CHARS = 1_000_000_000
MAX_JSON_DEPTH = 64  # a case is at most ~5 levels deep; metadata gets room, a pathological nesting is refused
_CASE_FIELDS = set(Case.model_fields)


CAP_ENV = "CITEFIX_MAX_SOURCE_CHARS"


def case_source_cap() -> int:
    """The most source characters one case may hold, all its sources together: MAX_SOURCE_CHARS, or the number in
    $CITEFIX_MAX_SOURCE_CHARS."""
    raw = os.environ.get(CAP_ENV, "").strip()
    if not raw:
        return MAX_SOURCE_CHARS
    try:
        cap = int(raw.replace("_", "").replace(",", ""))
    except ValueError:
        raise InputError(f"{CAP_ENV}={raw!r} is not a whole number of characters; e.g. {CAP_ENV}=5000000") from None
    if cap < 1:
        raise InputError(f"{CAP_ENV}={raw!r}: the cap must be at least 1 character")
    return cap


def read_text(path: str, what: str, *, limit: int | None = None) -> str:
    """Read a UTF-8 text file or standard input ('-'), or raise InputError naming the file and the fix. A text
    longer than `limit` characters is refused (a source or summary: MAX_SOURCE_CHARS; a case file: its cases are
    held to the per-case limits one by one, the file to MAX_CASE_FILE_CHARS)."""
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        p = Path(path)
        name = str(p)
        if not p.exists():
            raise InputError(f"{name}: no such file; check the path of the {what}")
        if p.is_dir():
            raise InputError(f"{name}: is a directory; give the {what} as a file")
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(f"{name}: cannot read it ({exc.strerror}); check its permissions") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name}: not UTF-8 text (bad byte at offset {exc.start}); convert it, e.g. iconv -f latin1 -t utf-8"
        ) from exc
    if not text.strip():
        raise InputError(f"{name}: the {what} is empty; give a file with text in it")
    limit = case_source_cap() if limit is None else limit
    if len(text) > limit:
        raise InputError(f"{name}: {len(text):,} characters is beyond what citefix checks ({limit:,}); split it"
                         + (f", or raise the cap with {CAP_ENV}=N" if limit == case_source_cap() else ""))
    return text


def load_pair(sources: list[str], summary: str, *, case_id: str | None = None, question: str | None = None) -> Case:
    if sources.count("-") + (summary == "-") > 1:
        raise InputError("only one of --source / --summary can be '-' (standard input)")
    docs = [Source(id=str(i + 1) if len(sources) > 1 else "1", title=Path(s).name if s != "-" else "stdin", text=read_text(s, "source"))
            for i, s in enumerate(sources)]
    text = read_text(summary, "summary")
    cid = case_id or (Path(summary).stem if summary != "-" else "stdin")
    return _build({"id": cid, "sources": [d.model_dump() for d in docs], "text": text, "question": question}, summary, None)


def load_cases(path: str) -> list[Case]:
    """All cases in a .json or .jsonl file (or '-' for JSON/JSONL on standard input)."""
    return list(iter_cases(path))


def iter_cases(path: str, *, skipped: list[str] | None = None) -> Iterator[Case]:
    """Cases in order. With `skipped` (a list), a JSONL line that is not a valid case is left out and its message
    appended there instead of raising."""
    text = read_text(path, "case file", limit=MAX_CASE_FILE_CHARS)
    name = "<stdin>" if path == "-" else path
    stripped = text.lstrip()
    is_jsonl = path.endswith(".jsonl") or (not path.endswith(".json") and _looks_jsonl(stripped))
    if is_jsonl:
        seen = False
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                try:
                    rec = _parse_json(line, f"{name}: line {lineno}")
                except json.JSONDecodeError as exc:
                    raise InputError(f"{name}: line {lineno}, column {exc.colno}: malformed JSON ({exc.msg}); fix that line") from exc
                seen = True
                good = list(_records(rec, name, lineno))
            except InputError as exc:
                if skipped is None:
                    raise
                skipped.append(str(exc))
                continue
            yield from good
        if not seen:
            raise InputError(f"{name}: no cases in the file; add one JSON object per line")
        return
    try:
        data = _parse_json(text, name)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: line {exc.lineno}, column {exc.colno}: malformed JSON ({exc.msg}); fix the file") from exc
    yield from _records(data, name, None)


def _parse_json(text: str, where: str) -> Any:
    """json.loads, refusing nesting deeper than MAX_JSON_DEPTH (a RecursionError otherwise, here or later)."""
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
        depth = MAX_JSON_DEPTH + 1
    else:
        depth = _depth(data)
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} levels deep; a case is a flat object "
                         "(see docs/input-format.md): flatten it")
    return data


def _depth(data: Any) -> int:
    """Nesting depth of parsed JSON, iteratively (stops counting past the bound)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, d = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, d)
            if d > MAX_JSON_DEPTH:
                return d
            stack.extend((child, d + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _looks_jsonl(s: str) -> bool:
    first = s.split("\n", 1)[0].strip()
    return first.startswith("{") and first.endswith("}") and "\n" in s.strip()


def _records(data: Any, name: str, lineno: int | None) -> Iterator[Case]:
    if isinstance(data, dict) and isinstance(data.get("data"), list) and "sources" not in data:
        # ALCE-style results file: {"args": ..., "data": [{"question", "docs": [{"title", "text"}], "output"}]}
        if not data["data"]:
            raise InputError(f"{name}: the results file's 'data' list is empty; add at least one item")
        for i, item in enumerate(data["data"]):
            yield _alce_item(item, i, name)
        return
    if isinstance(data, list):
        if not data:
            raise InputError(f"{name}: the list of cases is empty; add at least one case")
        for i, rec in enumerate(data):
            yield _build(_adapt(rec, name, lineno, i), name, lineno, i)
        return
    yield _build(_adapt(data, name, lineno, None), name, lineno)


def _where(name: str, lineno: int | None, index: int | None = None) -> str:
    if lineno is not None:
        return f"{name}: line {lineno}"
    if index is not None:
        return f"{name}: case #{index + 1}"
    return name


def _adapt(rec: Any, name: str, lineno: int | None, index: int | None) -> dict:
    """Map the development data's record shapes onto the case schema; leave our own schema untouched."""
    where = _where(name, lineno, index)
    if not isinstance(rec, dict):
        raise InputError(f"{where}: expected a JSON object for a case, got {type(rec).__name__}")
    if "sources" in rec or "text" in rec:
        return rec
    if "document" in rec and "summary" in rec:
        for key in ("document", "summary"):  # json reads NaN; say which field of the user's record is wrong
            if not isinstance(rec[key], str):
                raise InputError(f"{where}: '{key}' is not text (got {json.dumps(rec[key])}); fix or remove this record")
        meta = {k: v for k, v in rec.items() if k not in ("id", "document", "summary")}
        return {"id": rec.get("id", f"case-{(lineno or index or 0)}"), "sources": [{"id": "1", "title": "document", "text": rec["document"]}],
                "text": rec["summary"], "kind": "summary", "metadata": meta}
    if "answer" in rec and "passages" in rec:
        meta = {k: v for k, v in rec.items() if k not in ("id", "answer", "passages", "question")}
        return {"id": rec.get("id", f"case-{(lineno or index or 0)}"), "sources": rec["passages"], "text": rec["answer"],
                "question": rec.get("question"), "kind": "cited_answer", "metadata": meta}
    return rec


def _alce_item(item: Any, i: int, name: str) -> Case:
    where = f"{name}: data[{i}]"
    if not isinstance(item, dict) or "output" not in item or "docs" not in item:
        raise InputError(f"{where}: an ALCE results item needs 'output' and 'docs'; fix or remove it")
    if not isinstance(item["docs"], list):
        raise InputError(f"{where}: 'docs' must be a list of {{title, text}} objects, got {type(item['docs']).__name__}; fix it")
    if not (item["output"] is None or isinstance(item["output"], str)):
        raise InputError(f"{where}: 'output' must be the answer text, got {type(item['output']).__name__}; fix it")
    bad = next((j for j, d in enumerate(item["docs"]) if not isinstance(d, dict)), None)
    if bad is not None:
        raise InputError(f"{where}: docs[{bad}] must be a {{title, text}} object, got {type(item['docs'][bad]).__name__}; fix it")
    sources = [{"id": str(j + 1), "title": d.get("title", ""), "text": d.get("text", "")} for j, d in enumerate(item["docs"])]
    rec = {"id": str(item.get("id", item.get("sample_id", i))), "sources": sources, "text": item["output"] or " ",
           "question": item.get("question"), "kind": "cited_answer",
           "metadata": {k: v for k, v in item.items() if k not in ("docs", "output", "question", "id")}}
    return _build(rec, name, None, i)


def _build(rec: dict, name: str, lineno: int | None, index: int | None = None) -> Case:
    where = _where(name, lineno, index)
    try:
        case = Case.model_validate(rec)
    except ValidationError as exc:
        raise InputError(f"{where}: {_explain(exc)}") from exc
    cap = case_source_cap()
    total = sum(len(s.text) for s in case.sources)
    if total > cap:
        one = len(case.sources) == 1
        raise InputError(f"{where}: {'its source holds' if one else 'its sources hold'} {total:,} characters"
                         f"{'' if one else ' together'}, beyond the cap of {cap:,} per case; split the case, or raise "
                         f"the cap with {CAP_ENV}=N (memory and time grow with it)")
    longest = _longest_sentence(case.text)
    if longest > MAX_SENTENCE_CHARS:
        raise InputError(f"{where}: the text has a sentence of {longest:,} characters (no '.', '!', '?' or line break), "
                         f"beyond {MAX_SENTENCE_CHARS:,}; split it into sentences")
    ids = [s.id for s in case.sources]
    dup = [i for i in dict.fromkeys(ids) if ids.count(i) > 1]
    if dup:
        raise InputError(f"{where}: source id {dup[0]!r} is used twice; give every source its own id")
    return case


def _longest_sentence(text: str) -> int:
    """Characters in the longest stretch of text without a sentence end or line break (linear)."""
    import re

    return max((len(m) for m in re.split(r"[.!?\n]", text)), default=0)


def _explain(exc: ValidationError) -> str:
    """The first validation problem as 'field: problem; fix'."""
    errors = exc.errors()
    # An unknown field usually explains a missing one ("txt" for "text"): name it first.
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = ".".join(str(p) for p in err["loc"]) or "case"
    kind = err["type"]
    if kind == "missing":
        return f"missing field '{loc}'; a case needs id, sources [{{id, title, text}}] and text (see docs/input-format.md)"
    if kind == "extra_forbidden":
        import difflib

        names = sorted(_CASE_FIELDS) if "." not in loc else ["id", "title", "text"]
        allowed = ", ".join(names)
        guess = difflib.get_close_matches(str(err["loc"][-1]), names, n=1, cutoff=0.6)
        hint = f"did you mean '{guess[0]}'? " if guess else ""
        return f"unknown field '{loc}'; {hint}allowed fields are {allowed} (put anything else under 'metadata')"
    msg = err["msg"].removeprefix("Value error, ")
    return f"field '{loc}': {msg}; fix that value"


# --- what a command's arguments name ---------------------------------------------------------------------------

EXAMPLES = ("summary", "cited_answer")


def example_path(name: str) -> str:
    """A bundled example case file (summary, cited_answer)."""
    return str(resources.files("citefix").joinpath("examples", f"{name}.json"))


def gather_cases(args) -> list[tuple]:
    """The cases a command's arguments name (case files, --source/--summary, --example), each with its path."""
    from itertools import islice

    cases = []
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit {args.limit}: must be 1 or more (the number of cases to use); drop it to use them all")
    if args.example:
        path = example_path(args.example)
        cases += [(c, path) for c in load_cases(path)]
    if args.summary or args.source:
        if not (args.summary and args.source):
            raise InputError("--source and --summary go together; give both (or a case file instead)")
        cases.append((load_pair(args.source, args.summary), args.summary))
    for path in args.inputs:  # with --limit, read no further than needed (a bad record after it is not an error)
        left = None if args.limit is None else max(0, args.limit - len(cases))
        if left == 0:
            break
        skipped: list[str] | None = [] if getattr(args, "skip_invalid", False) else None
        cases += [(c, path) for c in islice(iter_cases(path, skipped=skipped), left)]
        for msg in skipped or []:
            print(f"citefix: skipped {msg}", file=sys.stderr)
    if not cases:
        raise InputError("nothing to check; give a case file, --source FILE --summary FILE, or --example summary")
    if args.limit is not None:
        cases = cases[: max(0, args.limit)]
    return cases
