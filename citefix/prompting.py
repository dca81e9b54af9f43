"""Load prompt files from citefix.prompts and render them strictly."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from citefix.errors import ConfigError

_ROLE = re.compile(r"^### (system|user|assistant)\s*$", re.M)


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    description: str
    text: str  # the whole file
    messages: tuple[tuple[str, str], ...]  # (role, template body)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def render(self, **variables) -> list[dict[str, str]]:
        """Messages with every variable filled; a missing variable raises jinja2.UndefinedError."""
        variables = {k: neutralise(v) for k, v in variables.items()}
        return [{"role": role, "content": tpl.render(**variables).strip()} for role, tpl in _compiled(self)]


@lru_cache(maxsize=None)
def _compiled(prompt: "Prompt"):
    """Each message body compiled once per process (rendering is on the hot path of every model call)."""
    from jinja2 import Environment, StrictUndefined

    env = Environment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)
    return tuple((role, env.from_string(body)) for role, body in prompt.messages)


def neutralise(value):
    """Data can't close or open a delimited block: '<<<' and '>>>' inside it become look-alike guillemets."""
    if isinstance(value, str):
        return value.replace("<<<", "\u2039\u2039\u2039").replace(">>>", "\u203a\u203a\u203a")
    if isinstance(value, (list, tuple)):
        return type(value)(neutralise(v) for v in value)
    return value


def parse_prompt(text: str, origin: str = "<prompt>") -> Prompt:
    if not text.startswith("---\n"):
        raise ConfigError(f"{origin}: a prompt file must open with a '---' header")
    try:
        header, body = text[4:].split("\n---\n", 1)
    except ValueError as exc:
        raise ConfigError(f"{origin}: the header is not closed with '---'") from exc
    meta = {}
    for line in header.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            meta[k.strip()] = v.strip()
    for key in ("name", "version"):
        if key not in meta:
            raise ConfigError(f"{origin}: header lacks '{key}:'")
    parts = _ROLE.split(body)
    if len(parts) < 3:
        raise ConfigError(f"{origin}: no '### system' / '### user' message found")
    messages = tuple((parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2))
    return Prompt(meta["name"], meta["version"], meta.get("description", ""), text, messages)


@lru_cache(maxsize=None)
def load_prompt(name: str) -> Prompt:
    try:
        text = resources.files("citefix.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"no prompt file named {name}.txt in citefix.prompts") from exc
    return parse_prompt(text, f"prompts/{name}.txt")
