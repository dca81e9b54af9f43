"""Citation recall, precision and CVCP for cited answers: moved to `citefix.cited.metrics`; this old import path
re-exports its names."""

from citefix.cited.metrics import (  # noqa: F401
    Aggregate,
    AnswerCitationScores,
    CitationLabel,
    CitationVerdict,
    ClaimScore,
    CorpusCitationScores,
    EntailmentRequest,
    FunctionVerifier,
    Key,
    Method,
    MethodScores,
    MetricsSettings,
    aggregate,
    cvcp,
    cvcp_values,
    plan_precision,
    plan_requests,
    run_requests,
    score_answer,
    score_answers,
    score_claim,
    score_method,
    score_units,
)
