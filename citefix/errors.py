"""Errors a user can fix. The CLI prints their message on one line and exits 2; nothing else is a user error."""


class UserError(Exception):
    """A mistake in the user's input or configuration. The message names the problem and the fix."""

    exit_code = 2


class InputError(UserError):
    """A file or value the user gave cannot be used."""


class ConfigError(UserError):
    """A setting is missing or wrong (model name, API key, path)."""


class LLMError(UserError):
    """A model call failed for a reason retrying will not fix."""
