"""torch's intra-op threads: measured once per process unless $CITEFIX_TORCH_THREADS says otherwise."""

from __future__ import annotations

import pytest
import torch

from citefix import threads
from citefix.errors import ConfigError


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    before = torch.get_num_threads()
    monkeypatch.setattr(threads, "_decision", None)
    yield
    torch.set_num_threads(before)


def test_choose_keeps_one_thread_unless_more_are_clearly_faster():
    assert threads.choose(1.0, 0.9, 4) == 1  # 10% faster: a near tie goes to one thread
    assert threads.choose(1.0, 0.6, 4) == 1  # 1.7x: not enough to give up one thread's determinism
    assert threads.choose(1.0, 0.4, 4) == 4
    assert threads.choose(1.0, 2.1, 2) == 1  # busy cores: more threads are slower
    assert threads.choose(1.0, 0.1, 1) == 1


def test_environment_variable_wins_and_is_checked(monkeypatch):
    monkeypatch.setenv(threads.THREADS_ENV, "2")
    d = threads.apply()
    assert torch.get_num_threads() == 2 and d["why"] == "CITEFIX_TORCH_THREADS=2"
    assert threads.apply() is d  # decided once per process
    for bad in ("many", "-1"):
        monkeypatch.setattr(threads, "_decision", None)
        monkeypatch.setenv(threads.THREADS_ENV, bad)
        with pytest.raises(ConfigError, match=threads.THREADS_ENV):
            threads.apply()


def test_measured_choice_follows_the_timings(monkeypatch):
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    torch.set_num_threads(2)
    d = threads.apply()
    assert d["why"].startswith("measured") or d["why"] == "one core"
    if "one_thread_s" in d:
        assert d["one_thread_s"] > 0 and d["many_threads_s"] > 0
        assert d["threads"] == threads.choose(d["one_thread_s"], d["many_threads_s"], 2)
        assert torch.get_num_threads() == d["threads"]
