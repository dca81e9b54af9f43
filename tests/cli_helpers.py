"""Running the `citefix` command, in this process or in a new one, and the cases the CLI tests share (tests/ is on
sys.path, so `from cli_helpers import ...`)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass

GOOD = {"id": "a", "sources": [{"id": "1", "title": "t", "text": "The depot closed in 1987. It cost £2.4 million."}],
        "text": "The depot closed in 1987."}
ARTICLE = ("The town council of Harwick approved a plan on Monday to turn the disused Millbrook railway depot into a "
           "public park. The depot closed in 1987. Councillors voted 9 to 4 in favour of the plan, which will cost "
           "£2.4 million.")


def cli_env(tmp_path, extra_env=None) -> dict:
    """The environment of a `citefix` run: its own home and config folders, no model settings from outside."""
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(extra_env or {})}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG"):
        if var not in (extra_env or {}):
            env.pop(var, None)
    return env


def cli(*args, tmp_path, input=None, extra_env=None):
    """`citefix ARGS` run in this process (`citefix.cli.main`, as the console script calls it) with the environment,
    working directory and standard streams of a fresh run; the models stay loaded between runs."""
    return run_main([str(a) for a in args], env=cli_env(tmp_path, extra_env), cwd=tmp_path, input=input)


def citefix_main(*args, env=None, cwd=None, input=None):
    """`citefix ARGS` in this process with `env` (default: this process's environment) and `cwd` (default: the
    current directory)."""
    return run_main([str(a) for a in args], env=dict(os.environ) if env is None else env, cwd=cwd or os.getcwd(),
                    input=input)


def cli_process(*args, tmp_path, input=None, extra_env=None):
    """`citefix ARGS` in a new process: for what only a process shows (its exit status as the shell sees it, signals,
    the console script, what a fresh interpreter imports)."""
    return subprocess.run([sys.executable, "-m", "citefix.cli", *map(str, args)], capture_output=True, text=True,
                          env=cli_env(tmp_path, extra_env), input=input, timeout=300, cwd=tmp_path)


@dataclass
class Ran:
    """What a run of `citefix.cli.main` left: its exit code and what it wrote, as subprocess.run would report."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None, write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8", errors="replace").replace("\r\n", "\n")


def run_main(argv: list[str], *, env: dict[str, str], cwd, input: str | None = None) -> Ran:
    """`citefix.cli.main(argv)` with `env` as the whole environment, `cwd` as the working directory and fresh
    standard streams (not terminals), everything put back afterwards."""
    from citefix.cli import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = _stream(), _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream((input or "").encode("utf-8")), out, err
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        return Ran(argv, int(code or 0), _text(out), _text(err))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def assert_user_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("citefix: error: "), r.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]
