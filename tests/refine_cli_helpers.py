"""The environment and the case file of a `citefix refine` run in a subprocess (tests/ is on sys.path, so
`from refine_cli_helpers import ...`)."""

from __future__ import annotations

import os
from pathlib import Path

from refine_fakes import make_case

KEY = "sk-test-refine-000000"


def cli_env(tmp_path, srv=None) -> dict:
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": KEY}
    if srv is not None:
        env["OPENAI_API_BASE"] = srv.base_url
    for var in ("CITEFIX_LLM", "CITEFIX_JUDGE_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG", "OPENAI_BASE_URL"):
        env.pop(var, None)
    return env


def write_case(tmp_path) -> Path:
    path = tmp_path / "case.json"
    path.write_text(make_case().model_dump_json())
    return path
