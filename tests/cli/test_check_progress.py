"""Long inputs show progress. A check on a long source shows its stages on a terminal's stderr by itself
(and with --progress on any stderr), and its --json stdout is the same as without progress."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading

from cli_helpers import citefix_main
from long_source_helpers import SUMMARY, long_source

from citefix.progress import LONG_TEXT_WORDS, LONG_WORDS


def _env(tmp_path):
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TERM": "xterm-256color", "COLUMNS": "120"}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG"):
        env.pop(var, None)
    return env


def _cmd(src, summ, db, *extra):
    return [sys.executable, "-m", "citefix.cli", "check", "--source", str(src), "--summary", str(summ), "--json",
            "--db", str(db), *extra]


def _comparable(stdout: str) -> dict:
    data = json.loads(stdout)
    for key in ("run_id", "store", "duration_s"):
        data.pop(key, None)
    return data


def test_a_long_source_shows_progress_on_a_terminal_and_json_stdout_is_unchanged(tmp_path):
    src, summ = tmp_path / "long.txt", tmp_path / "summary.txt"
    src.write_text(long_source(LONG_WORDS + 1000), encoding="utf-8")
    summ.write_text(SUMMARY, encoding="utf-8")
    env = _env(tmp_path)
    # stderr a terminal (a pty), no flag: progress by itself; and the same check with stderr a pipe: no progress
    master, slave = pty.openpty()
    on_tty = subprocess.Popen(_cmd(src, summ, tmp_path / "a.db"), env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = bytearray()

    def drain():
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed its end
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    piped = subprocess.run(_cmd(src, summ, tmp_path / "b.db"), env=env, capture_output=True, text=True, timeout=600)
    tty_out = on_tty.communicate(timeout=600)[0].decode()
    reader.join(timeout=30)
    os.close(master)
    assert on_tty.returncode in (0, 1) and piped.returncode in (0, 1), piped.stderr
    shown = seen.decode(errors="replace")
    assert "Traceback" not in shown
    assert f"{LONG_WORDS + 1000:,}"[:3] in shown and "source words" in shown, shown[-2000:]
    assert "verifying" in shown and "units against" in shown, shown[-2000:]
    assert "verifying" not in piped.stderr and "source words" not in piped.stderr, piped.stderr
    assert _comparable(tty_out) == _comparable(piped.stdout)  # progress never touches stdout


def test_progress_flag_prints_plain_stage_lines_and_no_progress_silences_them(tmp_path):
    from citefix.inputs import example_path

    env = _env(tmp_path)
    r = citefix_main("check", "--example", "summary", "--json", "--progress", "--db", tmp_path / "p.db", env=env)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("citefix: ")]
    assert any("source words" in ln for ln in lines), r.stderr
    assert any("splitting the text into units" in ln for ln in lines), r.stderr
    assert any(ln.startswith("citefix: ") and "units verified in" in ln for ln in lines), r.stderr
    assert any("checked" in ln and ln.rstrip().endswith(" s") for ln in lines), r.stderr
    data = json.loads(r.stdout)  # stdout is the JSON result alone
    assert data["run_id"] and example_path("summary")

    from citefix.models import Case, Source
    from citefix.progress import CheckProgress

    class Tty:
        def isatty(self):
            return True

        def write(self, s):
            raise AssertionError("--no-progress wrote to stderr")

        def flush(self):
            pass

    big = Case(id="big", text="x y", sources=[Source(id="1", text="word " * (LONG_WORDS + 5))])
    assert CheckProgress("never", stream=Tty()).start(big) is None
    assert CheckProgress("auto", stream=Tty()).wants(big)
    small = Case(id="small", text="x y", sources=[Source(id="1", text="word " * 100)])
    assert not CheckProgress("auto", stream=Tty()).wants(small)
    assert CheckProgress("auto", stream=Tty()).wants(small.model_copy(update={"text": "word " * LONG_TEXT_WORDS}))

    class Pipe(Tty):
        def isatty(self):
            return False

    assert not CheckProgress("auto", stream=Pipe()).wants(big)  # auto: only on a terminal
