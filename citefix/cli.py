"""The `citefix` command: parses arguments, builds the collaborators, calls core, prints. No pipeline logic here.

Exit codes: 0 success; 1 a --fail-under gate failed; 2 a user error (bad input or configuration), with one line on
stderr naming the problem and the fix; 3 a model or verifier failure after retries (or a partly checked round); 4 the
store stayed locked by another process past CITEFIX_STORE_WAIT; 5 an internal error (a bug: one line, the traceback
with CITEFIX_DEBUG=1); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from citefix.version import __version__

# Each module has register(subparsers) that adds its sub-command and sets func=handler(args) -> int; the options
# they share are in citefix.commands.common.
COMMAND_MODULES = [
    "citefix.commands.check",
    "citefix.commands.history",
    "citefix.commands.refine",
    "citefix.commands.metaeval",
    "citefix.commands.tui",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citefix",
        description="Find, show and fix what a summary or cited answer says that its sources do not support.",
    )
    parser.add_argument("--version", action="version", version=f"citefix {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; every exception ends here as a documented exit code and one line on stderr."""
    from citefix.errors import EXIT_INTERNAL, UserError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"citefix: error: {_one_line(exc)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("citefix: interrupted; completed work is kept in the store", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the one boundary: anything else is a bug, said in one line
        import sqlite3

        from citefix.errors import EXIT_NO_SPACE, EXIT_STORE_BUSY, disk_full

        if disk_full(exc):
            print(f"citefix: error: the disk is full, nothing more could be written ({_one_line(exc)}); free some space "
                  "(or pass another --db) and run again: what was stored before is kept, and a run cut short reads as "
                  "interrupted (resume it with citefix refine --resume RUN)", file=sys.stderr)
            return EXIT_NO_SPACE
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
            print(f"citefix: error: the store is locked by another process ({exc}); wait for it to finish and run "
                  "again, or raise CITEFIX_STORE_WAIT (seconds)", file=sys.stderr)
            return EXIT_STORE_BUSY
        if os.environ.get("CITEFIX_DEBUG", "").strip() not in ("", "0"):
            import traceback

            traceback.print_exc()
        else:
            print(f"citefix: internal error: {type(exc).__name__}: {_one_line(exc)}; this is a bug in citefix, please "
                  "report it (run again with CITEFIX_DEBUG=1 to see the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:500] + ("…" if len(text) > 500 else "")


if __name__ == "__main__":
    sys.exit(main())
