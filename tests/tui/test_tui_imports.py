"""The core never imports Textual; the TUI imports nothing heavy before it is needed (fast first paint)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("torch", "transformers", "spacy", "litellm")


def _loaded(code: str) -> dict:
    """Run code in a fresh interpreter; report which of textual and the heavy libraries it loaded."""
    probe = code + "\nimport sys, json\nprint(json.dumps({m: m in sys.modules for m in ('textual',) + %r}))" % (HEAVY,)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_core_never_imports_textual():
    """Every module of the package outside citefix.tui, found by walking the package (not a hand-picked list)."""
    code = (
        "import pkgutil, importlib, citefix\n"
        "names = [m.name for m in pkgutil.walk_packages(citefix.__path__, 'citefix.')\n"
        "         if not (m.name == 'citefix.tui' or m.name.startswith('citefix.tui.'))]\n"
        "assert len(names) > 40, names\n"
        "for n in names: importlib.import_module(n)\n"
        "import citefix.cli\ncitefix.cli.build_parser()"
    )
    loaded = _loaded(code)
    assert loaded["textual"] is False


def test_tui_session_is_core_only():
    """The TUI's session adapter holds no Textual either: it is core calls and plain data."""
    assert _loaded("import citefix.tui.session, citefix.tui.render")["textual"] is False


def test_tui_app_imports_nothing_heavy():
    loaded = _loaded("import citefix.tui.app, citefix.tui.main_screen, citefix.tui.start_screen, citefix.tui.dialogs")
    assert loaded["textual"] is True
    assert not any(loaded[m] for m in HEAVY), loaded
