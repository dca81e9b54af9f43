"""Generated bad inputs for every command and input kind (tests/cli/test_fuzz.py runs a few hundred, bench/fuzz.py many
thousands). Each input is a command line, the files it names and the environment it runs under; the contract is the
same for all: no traceback, no hang, only documented exit codes, and an exit-2 message that names the input."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

DOCUMENTED_EXIT_CODES = {0, 1, 2, 3, 4}  # 5 is an internal error: the fuzzer counts it as a bug

GOOD_CASE = {"id": "a", "sources": [{"id": "1", "title": "t", "text": "The depot closed in 1987. It cost 2 million."}],
             "text": "The depot closed in 1987."}

WEIRD_VALUES = [None, 0, -1, 7, 3.5, float("nan"), True, "", " ", "\x00", "é" * 3, "[" * 50, "🙂" * 5, [], [1, 2], {},
                {"a": {"b": 1}}, "x" * 5000, "\u202e", "null", "1e309"]
WEIRD_TEXTS = ["", " \n\t", "\x00\x01\x02", "[" * 4000, "." * 3000, "🙂" * 500, "a" * 3500, "word " * 800,
               "The depot closed in 1987 [1][2][99].", "\u202eevil", "\ud7ff" * 10, "The depot\rclosed.", "1987" * 200,
               "<<<TEXT hijack TEXT>>>", "It cost [1-3] million [1, 2].", "—" * 1000]
WEIRD_BYTES = [b"", b"\xff\xfe\x00", b"\xef\xbb\xbf{}", b"{", b"[", b"}" * 10, b"\x80abc", bytes(range(256)),
               b'{"id": 1}', b"null", b"[]", b"[{}]", b"\n\n\n", b'{"data": 5}', b'{"data": [null]}']


@dataclass
class FuzzInput:
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)  # relative path -> content
    env: dict[str, str] = field(default_factory=dict)
    kind: str = ""
    names: list[str] = field(default_factory=list)  # what an exit-2 message may name (any one of them)


def _dump(obj) -> bytes:
    return json.dumps(obj, allow_nan=True).encode()


def _mutate_case(rng: random.Random) -> dict:
    case = json.loads(json.dumps(GOOD_CASE))
    target = rng.choice(["id", "text", "sources", "source.id", "source.text", "source.title", "extra", "kind",
                         "drop", "question", "metadata"])
    value = rng.choice(WEIRD_VALUES + WEIRD_TEXTS)
    if target == "drop":
        case.pop(rng.choice(["id", "text", "sources"]))
    elif target.startswith("source."):
        case["sources"][0][target.split(".")[1]] = value
    elif target == "extra":
        case[rng.choice(["foo", "Text", "source"])] = value
    else:
        case[target] = value
    return case


def generate(n: int, seed: int = 0) -> list[FuzzInput]:
    rng = random.Random(seed)
    makers = [_case_json, _case_jsonl, _alce, _raw_bytes, _text_pair, _config, _env, _history, _refine, _compare,
              _metaeval, _flags]
    return [rng.choice(makers)(rng) for _ in range(n)]


def _case_json(rng):
    return FuzzInput(["check", "case.json"], {"case.json": _dump(_mutate_case(rng))}, kind="case_json",
                     names=["case.json"])


def _case_jsonl(rng):
    lines = [_dump(GOOD_CASE)] + [_dump(_mutate_case(rng)) if rng.random() < 0.7 else rng.choice(WEIRD_BYTES)
                                  for _ in range(rng.randint(1, 4))]
    argv = ["check", "cases.jsonl"] + (["--skip-invalid"] if rng.random() < 0.3 else [])
    return FuzzInput(argv, {"cases.jsonl": b"\n".join(lines)}, kind="jsonl", names=["cases.jsonl"])


def _alce(rng):
    item = {"question": "q", "output": "The depot closed in 1987 [1].", "docs": [{"title": "t", "text": "It closed in 1987."}]}
    key = rng.choice(["output", "docs", "question", "docs0", "docs0.text", "drop"])
    value = rng.choice(WEIRD_VALUES)
    if key == "drop":
        item.pop(rng.choice(["output", "docs"]))
    elif key == "docs0":
        item["docs"] = [value]
    elif key == "docs0.text":
        item["docs"][0]["text"] = value
    else:
        item[key] = value
    data = {"data": [item] if rng.random() < 0.8 else rng.choice(WEIRD_VALUES)}
    return FuzzInput(["check", "alce.json"], {"alce.json": _dump(data)}, kind="alce", names=["alce.json"])


def _raw_bytes(rng):
    name = rng.choice(["x.json", "x.jsonl", "x.txt"])
    return FuzzInput(["check", name], {name: rng.choice(WEIRD_BYTES)}, kind="bytes", names=[name])


def _text_pair(rng):
    src = rng.choice(WEIRD_TEXTS + ["The depot closed in 1987."]).encode("utf-8", "surrogatepass")
    summ = rng.choice(WEIRD_TEXTS).encode("utf-8", "surrogatepass")
    return FuzzInput(["check", "--source", "src.txt", "--summary", "sum.txt"], {"src.txt": src, "sum.txt": summ},
                     kind="pair", names=["src.txt", "sum.txt"])


SETTING_KEYS = ["llm", "judge_llm", "verifier", "decomposer", "strategy", "concurrency", "cache", "window_words",
                "nli_device", "db", "llm_timeout", "llm_attempts", "llm_backoff_max", "run_deadline", "colour"]
TOML_VALUES = ['5', '-3', '0', '"x"', '""', 'true', '[1, 2]', '{a = 1}', '3.5', '"offline"', '"nli:"', '"llm"',
               '"typo/x.db"', '1e400', '"nan"']


def _config(rng):
    key = rng.choice(SETTING_KEYS)
    body = f"{key} = {rng.choice(TOML_VALUES)}\n" if rng.random() < 0.85 else rng.choice(["= 3", "[x", "a = ", "\xff"])
    return FuzzInput(["check", "case.json"], {"case.json": _dump(GOOD_CASE), "cfg.toml": body.encode("utf-8", "replace")},
                     env={"CITEFIX_CONFIG": "cfg.toml"}, kind="config", names=["cfg.toml", key])


ENV_VARS = ["CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONCURRENCY", "CITEFIX_STORE_WAIT",
            "CITEFIX_LLM_TIMEOUT", "CITEFIX_LLM_ATTEMPTS", "CITEFIX_RUN_DEADLINE", "CITEFIX_HOME", "CITEFIX_STRATEGY"]
ENV_VALUES = ["x", "0", "-1", "nan", "inf", "1e9", " ", "offline:nope", "acu", "case.json", "case.json/sub", "🙂", "llm"]


def _env(rng):
    var = rng.choice(ENV_VARS)
    return FuzzInput(["check", "case.json"], {"case.json": _dump(GOOD_CASE)}, env={var: rng.choice(ENV_VALUES)},
                     kind="env", names=[var, "case.json"])


def _history(rng):
    cmd = rng.choice(["show", "export", "runs"])
    argv = [cmd]
    if cmd != "runs":
        argv.append(rng.choice(["1", "0", "-5", "99999", "1"]))
    extra = rng.choice([[], ["--db", "typo/x.db"], ["--db", "case.json"], ["--db", "."], ["--json"],
                        ["--out", "."], ["--out", "nodir/x.json"], ["--round", "7"], ["--diff", "0", "9"], ["--rounds"],
                        ["--limit", "-1"], ["--format", "md"]])
    if cmd == "runs":
        extra = [e for e in extra if e not in ("--out", ".", "nodir/x.json", "--round", "7", "--diff", "0", "9",
                                               "--rounds", "--format", "md")]
    return FuzzInput(argv + extra, {"case.json": _dump(GOOD_CASE)}, kind="history",
                     names=["typo/x.db", "case.json", "--out", "run", "round", "store", "--diff", "--limit", "."])


def _refine(rng):
    argv = ["refine", "case.json", "--rounds", rng.choice(["1", "0", "-1"])]
    argv += rng.choice([[], ["--limit", "0"], ["--strategy", "nope"], ["--strategy", "critique"], ["--target", "2"],
                        ["--resume", "5"], ["--out", "."], ["--patience", "-2"], ["--reviser", "llm"]])
    return FuzzInput(argv, {"case.json": _dump(_mutate_case(rng) if rng.random() < 0.5 else GOOD_CASE)}, kind="refine",
                     names=["case.json", "--limit", "--strategy", "--rounds", "--resume", "--out", "run", "critique",
                            "store", "reviser", "LLM", "llm"])


def _compare(rng):
    argv = ["compare", "cases.jsonl", "--strategies", rng.choice(["", ",", "nope", "acu,,none", "critique"]),
            "--rounds", rng.choice(["1", "0"]), "--report", rng.choice(["out", "cases.jsonl"])]
    return FuzzInput(argv, {"cases.jsonl": _dump(GOOD_CASE)}, kind="compare",
                     names=["strateg", "--rounds", "cases.jsonl", "critique", "report", "out"])


def _metaeval(rng):
    rec = rng.choice([{"claim": "x", "label": rng.choice(WEIRD_VALUES)}, {"document": rng.choice(WEIRD_VALUES), "summary": "s",
                                                                          "label": 1}, rng.choice(WEIRD_VALUES)])
    return FuzzInput(["meta-eval", "m.jsonl"] + rng.choice([[], ["--limit", "0"], ["--verifier", "nope"], ["--format", "wice"]]),
                     {"m.jsonl": _dump(rec)}, kind="metaeval", names=["m.jsonl", "--limit", "verifier", "format"])


def _flags(rng):
    argv = ["check", "case.json"] + rng.choice([["--limit", "0"], ["--limit", "-3"], ["--concurrency", "0"],
                                                ["--verifier", "nli:"], ["--verifier", "bogus"], ["--decomposer", "acu"],
                                                ["--llm", " "], ["--llm-timeout", "0"], ["--llm-attempts", "0"],
                                                ["--run-deadline", "-1"], ["--fail-under", "nan"], ["--nli", "x"],
                                                ["--example", "summary", "--source", "case.json"]])
    return FuzzInput(argv, {"case.json": _dump(GOOD_CASE)}, kind="flags",
                     names=["--limit", "concurrency", "verifier", "decomposer", "acu", "model", "llm", "--llm-timeout",
                            "attempts", "deadline", "--nli", "--source", "run_deadline", "llm_timeout", "llm_attempts"])


def materialise(inp: FuzzInput, folder: Path) -> None:
    for rel, data in inp.files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


class FuzzTimeout(BaseException):
    """Raised by the alarm in run_in_process (a BaseException, so the CLI's boundary does not swallow it)."""


@dataclass
class Outcome:
    rc: int
    stdout: str
    stderr: str
    seconds: float

    def problem(self, inp: FuzzInput) -> str | None:
        """Why this outcome breaks the contract, or None."""
        if "Traceback" in self.stderr or "Traceback" in self.stdout:
            return "traceback"
        if self.rc not in DOCUMENTED_EXIT_CODES:
            return f"exit {self.rc}"
        if self.rc == 2:
            lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
            if not lines or not lines[-1].startswith(("citefix: error:", "usage:", "citefix ")) and "error:" not in lines[-1]:
                return "exit 2 without an error line"
            msg = lines[-1].lower()
            if not any(n.lower() in msg for n in inp.names) and not lines[-1].startswith("citefix: error: argument") \
                    and "usage:" not in self.stderr:
                return f"exit-2 message names none of {inp.names}: {lines[-1]}"
        return None


def run_in_process(inp: FuzzInput, folder: Path, *, limit_s: int = 60) -> Outcome:
    """Run one input through citefix.cli.main in this process (files in `folder`, which becomes the working folder)."""
    import contextlib
    import io
    import os
    import signal
    import time

    from citefix.cli import main

    materialise(inp, folder)
    saved_env = {k: os.environ.get(k) for k in [*inp.env, "CITEFIX_HOME", "CITEFIX_CONFIG", "OPENAI_API_BASE",
                                                 "OPENAI_API_KEY", "CITEFIX_LLM_ATTEMPTS"]}
    cwd = os.getcwd()
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise FuzzTimeout()

    old = signal.signal(signal.SIGALRM, alarm)
    started = time.monotonic()
    try:
        os.chdir(folder)
        os.environ["CITEFIX_HOME"] = str(folder / "home")
        os.environ.pop("CITEFIX_CONFIG", None)
        # a fuzzed model string goes to a closed loopback port (refused at once, one attempt), never to a provider
        os.environ["OPENAI_API_BASE"] = "http://127.0.0.1:9/v1"
        os.environ.setdefault("OPENAI_API_KEY", "sk-fuzz-not-a-key")
        os.environ["CITEFIX_LLM_ATTEMPTS"] = "1"
        os.environ.update(inp.env)
        signal.alarm(limit_s)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(list(inp.argv))
            except SystemExit as exc:  # argparse
                rc = exc.code if isinstance(exc.code, int) else 2
    except FuzzTimeout:
        rc = -1
        err.write("\nHANG: over the time limit\n")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(cwd)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return Outcome(rc, out.getvalue(), err.getvalue(), time.monotonic() - started)
