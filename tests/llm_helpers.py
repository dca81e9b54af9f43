"""The model tests' shared pieces: a one-question conversation, and `citefix` run (in this process) against the
loopback model server with a test key (tests/ is on sys.path, so `from llm_helpers import ...`)."""

from __future__ import annotations

import os

from cli_helpers import run_main
from loopback import LoopbackLLM

MSG = [{"role": "user", "content": "Is the sky blue?"}]

KEY = "sk-test-SECRET123456"
MODEL = "openai/test-model"


def run_cli(*args, srv: LoopbackLLM, tmp_path, extra_env=None):
    env = {**os.environ, "OPENAI_API_BASE": srv.base_url, "OPENAI_API_KEY": KEY, "CITEFIX_HOME": str(tmp_path / "home"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(extra_env or {})}
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG", "OPENAI_BASE_URL"):
        env.pop(var, None)
    return run_main([str(a) for a in args], env=env, cwd=tmp_path)
