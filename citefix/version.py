"""citefix's version: a module of its own, so that stored runs and reports can read it without importing the
package's `__init__` (which loads the Python API on first use)."""

__version__ = "0.1.0"
