"""citefix: find, show and fix what a summary or cited answer says that its sources do not support."""

__version__ = "0.1.0"
