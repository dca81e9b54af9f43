"""Many model servers: a litellm Router from the config file's [router] table, end to end over HTTP to two
loopback servers, one of them failing; and the one-line errors for a bad table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import rows, write
from loopback import LoopbackLLM, messages_responder
from refine_fakes import acu_responder

EXAMPLE = Path(__file__).resolve().parents[2] / "citefix" / "examples" / "summary.json"


def run_cli(*args, tmp_path, config: str):
    cfg = write(tmp_path, "config.toml", config)
    env = {**os.environ, "CITEFIX_CONFIG": cfg, "CITEFIX_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-x",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        env.pop(var, None)
    return subprocess.run([sys.executable, "-m", "citefix.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path), cfg


def router_config(good: LoopbackLLM, bad: LoopbackLLM, **extra) -> str:
    # `order`: litellm tries the lowest order first among the deployments not cooling down, so the failing server is
    # asked first (deterministically) and then left out for cooldown_time
    settings = "\n".join(f"{k} = {json.dumps(v)}" for k, v in extra.items())
    return f"""llm = "qwen"
concurrency = 4
llm_backoff_max = 0.05

[router]
cooldown_time = 60
allowed_fails = 0
{settings}

[[router.model_list]]
model_name = "qwen"
litellm_params = {{ model = "openai/test-model", api_base = "{bad.base_url}", api_key = "os.environ/OPENAI_API_KEY", order = 1, max_parallel_requests = 2 }}
model_info = {{ id = "gpu-down" }}

[[router.model_list]]
model_name = "qwen"
litellm_params = {{ model = "openai/test-model", api_base = "{good.base_url}", api_key = "os.environ/OPENAI_API_KEY", order = 2, max_parallel_requests = 2 }}
model_info = {{ id = "gpu-up" }}
"""


def test_router_sends_calls_to_the_healthy_server_and_logs_which_answered(tmp_path):
    db = tmp_path / "run.db"
    with LoopbackLLM(messages_responder(acu_responder())) as good, LoopbackLLM(messages_responder(acu_responder())) as bad:
        bad.chaos(1.0, kinds=("500",))  # every request to it fails
        r, _ = run_cli("check", str(EXAMPLE), "--db", str(db), "--json", tmp_path=tmp_path,
                       config=router_config(good, bad))
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
        calls = rows(db, "select * from calls order by id")
        ok = [c for c in calls if c["status"] == "ok"]
        failed = [c for c in calls if c["status"] != "ok"]
        # every answer came from the healthy server, and the log says so: deployment id and base URL
        assert ok and len(ok) == good.stats.answered
        assert {c["deployment"] for c in ok} == {"gpu-up"} and {c["api_base"] for c in ok} == {good.base_url}
        assert {c["model"] for c in ok} == {"qwen"}
        # a model litellm has no price for is logged with its cost unknown, not as free
        assert all(c["cost"] is None for c in ok), {c["cost"] for c in ok}
        # the failing server was tried first (lowest order); litellm moved the call on to the next order and cooled
        # the failing one down: no call was lost, none failed
        assert bad.stats.requests >= 1 and good.stats.requests == good.stats.answered
        assert not failed and all(c["attempts"] == 1 for c in ok)
        # ... and the call log counts those moves on the calls litellm moved: none lost from the record
        assert all(c["router_fallbacks"] is not None for c in ok)
        assert sum(c["router_fallbacks"] for c in ok) >= bad.stats.requests >= 1
        # per-deployment concurrency: litellm's max_parallel_requests = 2 held although citefix ran 4 calls at once
        assert good.max_in_flight <= 2
        result = json.loads(r.stdout.splitlines()[0])
        assert result["score"] is not None and result["status"] == "ok"


def test_router_fallback_to_another_model_group(tmp_path):
    db = tmp_path / "run.db"
    with LoopbackLLM(messages_responder(acu_responder())) as good, LoopbackLLM(messages_responder(acu_responder())) as bad:
        bad.chaos(1.0, kinds=("500",))
        config = f"""llm = "qwen"
llm_backoff_max = 0.05

[router]
fallbacks = [{{ qwen = ["hosted"] }}]

[[router.model_list]]
model_name = "qwen"
litellm_params = {{ model = "openai/test-model", api_base = "{bad.base_url}", api_key = "os.environ/OPENAI_API_KEY" }}

[[router.model_list]]
model_name = "hosted"
litellm_params = {{ model = "openai/test-model", api_base = "{good.base_url}", api_key = "os.environ/OPENAI_API_KEY" }}
"""
        r, _ = run_cli("check", str(EXAMPLE), "--db", str(db), "--json", tmp_path=tmp_path, config=config)
        assert r.returncode == 0, r.stderr
        ok = rows(db, "select * from calls where status = 'ok'")
        # litellm fell back inside one citefix attempt: each call is one ok row, answered by hosted's deployment
        assert ok and {c["deployment"] for c in ok} == {"hosted-1"} and {c["api_base"] for c in ok} == {good.base_url}
        assert all(c["attempts"] == 1 for c in ok)
        assert bad.stats.requests >= 1 and good.stats.answered == len(ok)
        assert sum(c["router_fallbacks"] for c in ok) >= bad.stats.requests


@pytest.mark.parametrize("table, key", [
    ("[router]\ncooldown = 3\n", "router.cooldown: unknown key"),
    ("[router]\ncooldown_time = 3\n", "router.model_list: missing or empty"),
    ('[[router.model_list]]\nmodel_name = "q"\n', "router.model_list[0].litellm_params: missing"),
    ('[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { api_base = "http://127.0.0.1:1/v1" }\n',
     "router.model_list[0].litellm_params.model: missing"),
    ('[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { model = "openai/x", rpm = "many" }\n',
     "router.model_list[0].litellm_params.rpm = 'many': must be a whole number of 1 or more"),
    ('[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { model = "openai/x", max_parallel_requests = 0 }\n',
     "router.model_list[0].litellm_params.max_parallel_requests = 0"),
    ('[router]\nfallbacks = [{ q = ["nowhere"] }]\n[[router.model_list]]\nmodel_name = "q"\n'
     'litellm_params = { model = "openai/x" }\n', "router.fallbacks.q: 'nowhere' is not a model_name"),
    ('[router]\nrouting_strategy = "fastest"\n[[router.model_list]]\nmodel_name = "q"\n'
     'litellm_params = { model = "openai/x" }\n', "router.routing_strategy = 'fastest': use one of"),
    ('router = "gpu1"\n', "router: must be a table"),
    ('[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { model = "nowhere/x" }\n',
     "router.model_list[0].litellm_params.model = 'nowhere/x': litellm knows no provider for it"),
    ('[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { model = "openai/x" }\nmodel_info = "gpu1"\n',
     "router.model_list[0].model_info: must be a table"),
    ('[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { model = "openai/x" }\nmodel_info = { id = "a" }\n'
     '[[router.model_list]]\nmodel_name = "q"\nlitellm_params = { model = "openai/y" }\nmodel_info = { id = "a" }\n',
     "router.model_list[1].model_info.id: 'a' is used twice"),
])
def test_bad_router_table_is_one_line_naming_file_and_key(tmp_path, table, key):
    table = 'llm = "q"\n' + table if "model_name = \"q\"" in table else table
    r, cfg = run_cli("check", str(EXAMPLE), "--db", str(tmp_path / "x.db"), tmp_path=tmp_path, config=table)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert lines[0].startswith(f"citefix: error: {cfg}: ") and key in lines[0], lines[0]


def test_saving_settings_keeps_the_router_table(tmp_path, monkeypatch):
    from citefix.config import load_settings, save_settings

    cfg = Path(write(tmp_path, "config.toml", 'llm = "q"\n\n[[router.model_list]]\nmodel_name = "q"\n'
                                              'litellm_params = { model = "openai/x" }\n'))
    monkeypatch.setenv("CITEFIX_CONFIG", str(cfg))
    settings = load_settings()
    assert settings.router["model_list"][0]["model_info"]["id"] == "q-1"
    save_settings(settings.replace(strategy="critique"))
    again = load_settings()
    assert again.strategy == "critique" and again.llm == "q" and again.router == settings.router
