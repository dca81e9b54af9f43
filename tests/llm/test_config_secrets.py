"""A key written in the config file's [router] table is a secret like one in the environment: a server that echoes it
back (in answers and in error messages) gets it into neither the store, the output nor a unit's text."""

from __future__ import annotations

import os
from pathlib import Path

from cli_helpers import citefix_main
from helpers import write
from loopback import LoopbackLLM, messages_responder
from refine_fakes import acu_responder

EXAMPLE = Path(__file__).resolve().parents[2] / "citefix" / "examples" / "summary.json"
KEY = "sk-written-in-the-config-4f9a2c71"


def test_a_literal_router_key_echoed_by_the_server_is_redacted_everywhere(tmp_path):
    inner = acu_responder()

    def echo(messages):
        out = inner(messages)
        if "<<<TEXT" in messages[-1]["content"]:  # the units it writes quote the key back
            return out + f"\n- The request was made with the key {KEY}."
        return out

    db = tmp_path / "run.db"
    with LoopbackLLM(messages_responder(echo)) as srv:
        cfg = write(tmp_path, "config.toml", f"""llm = "qwen"
llm_backoff_max = 0.05

[[router.model_list]]
model_name = "qwen"
litellm_params = {{ model = "openai/test-model", api_base = "{srv.base_url}", api_key = "{KEY}" }}
""")
        env = {**os.environ, "CITEFIX_CONFIG": cfg, "CITEFIX_HOME": str(tmp_path / "home"),
               "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "OPENAI_API_BASE", "OPENAI_BASE_URL",
                    "OPENAI_API_KEY"):
            env.pop(var, None)
        r = citefix_main("check", EXAMPLE, "--db", db, "--json", env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert srv.stats.answered > 0
    assert KEY not in r.stdout and KEY not in r.stderr
    assert "[REDACTED]" in r.stdout  # the echoed unit is there, without the key
    stored = b"".join(p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")))
    assert KEY.encode() not in stored
