"""Citation marks in a cited answer: moved to `citefix.cited.parse`; this old import path re-exports its names."""

from citefix.cited.parse import (  # noqa: F401
    MAX_RANGE,
    CitationGroup,
    CitationWarning,
    Mark,
    ParsedAnswer,
    Piece,
    Sentence,
    WarningCode,
    find_marks,
    parse_case,
    parse_citations,
    parse_mark,
)
