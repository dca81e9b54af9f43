"""`citefix tui` honours every option it shares with check and refine (before, it read only some of them)."""

from __future__ import annotations

import pytest

from citefix.cli import build_parser, main
from citefix.commands.tui import tui_settings


def _args(*argv: str):
    return build_parser().parse_args(["tui", *argv])


def test_the_model_call_settings_reach_the_tui(monkeypatch, tmp_path):
    monkeypatch.setenv("CITEFIX_CONFIG", str(tmp_path / "none.toml"))
    args = _args("--example", "--llm-transport", "direct", "--llm-timeout", "7", "--llm-attempts", "2",
                 "--run-deadline", "30", "--granularity", "text", "--aggregation", "min", "--device", "cpu")
    s = tui_settings(args)
    assert (s.llm_transport, s.llm_timeout, s.llm_attempts, s.run_deadline) == ("direct", 7.0, 2, 30.0)
    assert (s.acu_granularity, s.aggregation, s.device) == ("text", "min", "cpu")


def test_a_bad_transport_for_the_tui_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CITEFIX_CONFIG", str(tmp_path / "none.toml"))
    assert main(["tui", "--example", "--llm-transport", "carrier-pigeon"]) == 2
    err = capsys.readouterr().err
    assert "llm_transport 'carrier-pigeon'" in err and "direct" in err


def test_dry_run_in_the_tui_says_where_to_count_calls(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CITEFIX_CONFIG", str(tmp_path / "none.toml"))
    assert main(["tui", "--example", "--dry-run"]) == 2
    assert "citefix check CASE --dry-run" in capsys.readouterr().err


def test_max_cost_gives_the_tui_a_budget(monkeypatch, tmp_path):
    # the app is stood in for (it would take the terminal); what the command hands it is what is tested
    monkeypatch.setenv("CITEFIX_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("CITEFIX_TUI_SLOW_EXIT", "1")
    seen = {}

    class App:
        return_code = 0

        def __init__(self, settings, **kw):
            seen["settings"] = settings

        def run(self):
            pass

    monkeypatch.setattr("citefix.tui.app.CitefixApp", App)
    assert main(["tui", "--example", "--max-cost", "0.25", "--llm-transport", "direct"]) == 0
    s = seen["settings"]
    assert s.budget is not None and s.budget.limit == pytest.approx(0.25)
    assert s.llm_transport == "direct"
