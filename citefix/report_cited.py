"""The cited-answer part of the terminal report: moved to `citefix.cited.report`; this old import path re-exports its
names."""

from citefix.cited.report import (  # noqa: F401
    CITATION_STYLE,
    CITATION_WORD,
    LEVEL_STYLE,
    render_cited,
    render_summary,
)
