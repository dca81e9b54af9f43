"""Support levels of statement–citation pairs and LLM support judgements: moved to `citefix.cited.support`; this old
import path re-exports its names."""

from citefix.cited.support import (  # noqa: F401
    LEVEL_VALUE,
    LEVELS,
    ContinuousJudgement,
    DiscreteJudgement,
    LLMSupportJudge,
    PairSupport,
    SupportLevel,
    SupportSettings,
    level_from_score,
    level_from_value,
    parse_continuous,
    parse_discrete,
    support_from_verdicts,
    support_table,
)
