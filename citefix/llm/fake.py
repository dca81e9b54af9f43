"""A scripted transport: the one thing tests replace. Everything above it (retries, cache, log, parsing) is real."""

from __future__ import annotations

import math
import threading
from collections import deque
from typing import Any, Callable

from citefix.llm.client import RawResponse

Answer = "str | RawResponse | BaseException"


def yes_answer(p_yes: float, *, text: str | None = None) -> RawResponse:
    """A one-token answer whose first-token top log-probs give P(Yes) = p_yes."""
    p_yes = min(max(p_yes, 1e-6), 1 - 1e-6)
    top = [("Yes", math.log(p_yes)), ("No", math.log(1 - p_yes))]
    top.sort(key=lambda t: -t[1])
    return RawResponse(text=text or top[0][0], top_logprobs=[top], prompt_tokens=50, completion_tokens=1)


class ScriptedTransport:
    """Answers from a queue (enqueue) first, then from a responder function of the messages.

    A queued or returned exception is raised, so tests can script rate limits and outages.
    """

    def __init__(self, responder: Callable[[list[dict[str, Any]]], Any] | None = None):
        self.queue: deque = deque()
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def enqueue(self, *answers: Any) -> "ScriptedTransport":
        self.queue.extend(answers)
        return self

    def __call__(self, *, model, messages, max_tokens, temperature, top_logprobs, timeout) -> RawResponse:
        with self._lock:
            self.requests.append({"model": model, "messages": messages, "max_tokens": max_tokens, "top_logprobs": top_logprobs})
            item = self.queue.popleft() if self.queue else None
        if item is None:
            if self.responder is None:
                raise AssertionError("ScriptedTransport: no scripted answer left for this request")
            item = self.responder(messages)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, RawResponse):
            return item
        return RawResponse(text=str(item), prompt_tokens=50, completion_tokens=len(str(item).split()))


def rule_responder(rules: list[tuple[str, Any]], default: Any = "No") -> Callable[[list[dict[str, Any]]], Any]:
    """Answer with the first rule whose substring occurs in the last user message."""

    def respond(messages):
        last = messages[-1]["content"] if messages else ""
        for needle, answer in rules:
            if needle in last:
                return answer() if callable(answer) else answer
        return default() if callable(default) else default

    return respond
