"""Running the `citefix` command in a subprocess, and the cases the CLI tests share (tests/ is on sys.path, so
`from cli_helpers import ...`)."""

from __future__ import annotations

import os
import subprocess
import sys

GOOD = {"id": "a", "sources": [{"id": "1", "title": "t", "text": "The depot closed in 1987. It cost £2.4 million."}],
        "text": "The depot closed in 1987."}
ARTICLE = ("The town council of Harwick approved a plan on Monday to turn the disused Millbrook railway depot into a "
           "public park. The depot closed in 1987. Councillors voted 9 to 4 in favour of the plan, which will cost "
           "£2.4 million.")


def cli(*args, tmp_path, input=None, extra_env=None):
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(extra_env or {})}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG"):
        env.pop(var, None)
    return subprocess.run([sys.executable, "-m", "citefix.cli", *args], capture_output=True, text=True, env=env,
                          input=input, timeout=300, cwd=tmp_path)


def assert_user_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("citefix: error: "), r.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]
