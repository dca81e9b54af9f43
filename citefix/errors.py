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


# Exit codes beyond 0 (done), 1 (a --fail-under gate), 2 (a user error) and 130 (interrupted); README "Exit codes".
EXIT_MODEL_FAILURE = 3  # a model failed after retries, or a round could only be partly checked
EXIT_STORE_BUSY = 4  # another process held the store's write lock for longer than the configured wait
EXIT_INTERNAL = 5  # a bug in citefix: one line on stderr, the traceback with CITEFIX_DEBUG=1
EXIT_NO_SPACE = 6  # the disk (or the store's size limit) is full: nothing more could be written


def disk_full(exc: BaseException) -> bool:
    """SQLite's SQLITE_FULL ("database or disk is full"), or an OS write that found no space left."""
    import errno
    import sqlite3

    if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
        return True
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


class StoreBusyError(UserError):
    """The store stayed locked by another writer for longer than the configured wait."""

    exit_code = EXIT_STORE_BUSY


class RunBusyError(UserError):
    """The run is being worked on by another live process (a second `refine --resume`, or a TUI on the same run)."""

    exit_code = EXIT_STORE_BUSY


class Cancelled(Exception):
    """A job's cancel flag was set while a step ran; nothing of that step is stored except its model calls.
    Not a UserError: the caller asked for it (the TUI's cancel key, compare's --max-cost), nothing went wrong."""
