"""Shared test set-up: no test may reach a remote model or host; each test gets its own store and config."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

# helper modules whose functions assert: rewritten as test modules are, so that a failure there shows the values
pytest.register_assert_rewrite("cli_helpers", "executor_helpers")

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

_real_connect = socket.socket.connect


def _guarded_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and self.family in (socket.AF_INET, socket.AF_INET6):
        try:
            ok = ipaddress.ip_address(host).is_loopback
        except ValueError:
            ok = host == "localhost"
        if not ok:
            raise RuntimeError(f"test tried to reach {host!r}: tests never leave this machine")
    return _real_connect(self, address)


socket.socket.connect = _guarded_connect


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    import citefix.llm.client as client

    monkeypatch.setattr(client, "ALLOW_REMOTE_REQUESTS", False)
    monkeypatch.setenv("CITEFIX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("CITEFIX_CONFIG", raising=False)
    for var in ("CITEFIX_LLM", "CITEFIX_JUDGE_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    # one torch thread in every test and every CLI it starts: scores compared across processes (Ray workers, --device)
    # must not differ in the 8th decimal because one process measured two threads faster (citefix/threads.py)
    monkeypatch.setenv("CITEFIX_TORCH_THREADS", "1")
    yield


@pytest.fixture(scope="module")
def offline_verifier():
    """The offline verifier with the packaged models and parameters, built once per test module."""
    from citefix.verify.offline import OfflineVerifier

    return OfflineVerifier()


@pytest.fixture
def example_path():
    """The bundled summary example's case file."""
    from citefix.inputs import example_path as path

    return path("summary")


@pytest.fixture
def store(tmp_path):
    from citefix.store import Store

    s = Store(tmp_path / "test.db")
    yield s
    s.close()


@pytest.fixture
def summary_case():
    from citefix.inputs import example_path, load_cases

    return load_cases(example_path("summary"))[0]


@pytest.fixture
def cited_case():
    from citefix.inputs import example_path, load_cases

    return load_cases(example_path("cited_answer"))[0]


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/cli/golden/* from the current reports (see tests/cli/test_golden_reports.py)")


@pytest.fixture
def yes_server(monkeypatch):
    """A loopback OpenAI-compatible server that answers every question "Yes" (P = 0.8)."""
    from loopback import LoopbackLLM, yes_reply

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    with LoopbackLLM(lambda req: yes_reply(0.8)) as srv:
        yield srv
