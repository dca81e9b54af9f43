"""citefix: find, show and fix what a summary or cited answer says that its sources do not support.

The Python API (docs/python-api.md): `citefix.check`, `citefix.refine`, `citefix.compare`, `citefix.meta_eval`.
They are loaded on first use, so `import citefix` stays fast.
"""

from citefix.version import __version__  # noqa: F401

_API = ("check", "refine", "compare", "meta_eval", "CheckResult", "RefineReport", "CompareReport")


def __getattr__(name: str):
    if name in _API:
        from citefix import api

        return getattr(api, name)
    raise AttributeError(f"module 'citefix' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
