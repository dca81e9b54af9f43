"""Old name of citefix.pipeline (kept so existing imports work); build through citefix.pipeline."""

from citefix.pipeline import (  # noqa: F401
    OFFLINE_SIGNALS,
    Pipeline,
    build_decomposer,
    build_llm,
    build_pipeline,
    build_verifier,
)
