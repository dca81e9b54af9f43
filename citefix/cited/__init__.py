"""Cited answers (an answer whose sentences cite numbered passages), in one package:

* `parse.py` — the citation marks: found, grouped, given to their sentences, the sentences cleaned;
* `metrics.py` — citation recall, precision and CVCP (ALiiCE's per-group claims beside ALCE's sentences);
* `support.py` — full / partial / none support of statement–citation pairs, and the LLM support judgements;
* `evaluate.py` — one cited answer end to end (`evaluate_cited`, what `citefix.evaluate.evaluate` calls), and the
  summary of many (`summarise`);
* `report.py` — the view: the cited-answer part of the terminal report and the corpus summary as text.

`citefix.cited` gives the evaluation's names (below); the others are imported from their modules.
"""

from citefix.cited.evaluate import (
    ALCE,
    ALIICE,
    UNCITED_MESSAGE,
    answer_scores,
    citations_metrics,
    evaluate_cited,
    metrics_settings_for,
    summarise,
    support_metrics,
    supported_elsewhere,
    verifier_threshold,
)

__all__ = [
    "ALCE",
    "ALIICE",
    "UNCITED_MESSAGE",
    "answer_scores",
    "citations_metrics",
    "evaluate_cited",
    "metrics_settings_for",
    "summarise",
    "support_metrics",
    "supported_elsewhere",
    "verifier_threshold",
]
