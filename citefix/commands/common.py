"""Options and set-up the pipeline commands share: model, verifier and store options, model-fault limits, cost."""

from __future__ import annotations

import argparse
import sys


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every pipeline command shares."""
    p.add_argument("--llm", help="litellm model string (e.g. openai/gpt-4o-mini, ollama/qwen2.5:14b); default: offline")
    p.add_argument("--verifier", help="offline | offline:lexical | offline:alignment | offline:similarity | offline:entail | llm | nli:<model>")
    p.add_argument("--decomposer", help="auto | acu | clauses | aliice | sentence")
    p.add_argument("--concurrency", type=int, help="parallel model calls (default 8)")
    p.add_argument("--no-cache", action="store_true", help="do not answer identical model requests from the store")
    p.add_argument("--granularity", dest="acu_granularity", choices=("sentence", "text"),
                   help="LLM ACUs written per sentence (default) or from the whole text (pronouns resolved)")
    p.add_argument("--aggregation", choices=("mean", "all_supported", "min"),
                   help="unit scores → the text's score: mean (default, ACUEval), all_supported (1 or 0), min")
    p.add_argument("--db", help="SQLite store (default: $CITEFIX_HOME/citefix.db or the XDG data dir)")
    p.add_argument("--llm-timeout", type=float, metavar="S", help="seconds per model call before it is retried (default 60)")
    p.add_argument("--llm-attempts", type=int, metavar="N", help="attempts per model call on transient faults (default 5)")
    p.add_argument("--llm-backoff-max", type=float, metavar="S", help="longest wait between attempts (default 20)")
    p.add_argument("--llm-transport", metavar="NAME",
                   help="litellm (default) | direct: send each call straight to the OpenAI-compatible server at "
                        "OPENAI_API_BASE (vLLM, Ollama's /v1, llama.cpp), without litellm")
    p.add_argument("--run-deadline", type=float, metavar="S",
                   help="seconds a run may spend on model calls before it stops with llm_error (default: no limit)")
    add_device_option(p)
    add_cost_options(p)


def add_device_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", metavar="DEV", help="where the local models (MiniLM encoder, NLI) run: auto (a GPU when "
                                                   "there is one, the default), cpu, cuda or cuda:N")
    p.add_argument("--precision", choices=("fp32", "bf16"),
                   help="the offline verifier's encoder arithmetic: fp32 (the default, as the thresholds were "
                        "chosen) or bf16 (faster where the CPU or GPU has bfloat16; scores move in the third "
                        "decimal, docs/quality.md)")


def llm_options(args, saved: dict | None = None) -> dict:
    """The model-call settings (faults, deadline, device, transport) given on the command line (or stored with a
    resumed run), for load_settings."""
    saved = saved or {}
    names = ("llm_timeout", "llm_attempts", "llm_backoff_max", "run_deadline", "device", "precision",
             "llm_transport")
    return {n: getattr(args, n, None) if getattr(args, n, None) is not None else saved.get(n) for n in names}


def add_cost_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true",
                   help="print the number of model calls, tokens and cost (litellm's price table) and make no call")
    p.add_argument("--max-cost", type=float, metavar="USD",
                   help="stop before a model call that would take the spend past USD (completed rounds kept, exit 3)")


def apply_budget(args, settings):
    """--max-cost: a Budget shared by every LLM client the command builds (citefix.estimate)."""
    if getattr(args, "max_cost", None) is None:
        return None
    from citefix.errors import InputError
    from citefix.estimate import Budget

    if args.max_cost <= 0:
        raise InputError(f"--max-cost {args.max_cost}: give a positive amount in USD, e.g. --max-cost 0.50")
    settings.budget = Budget(args.max_cost)
    from citefix.estimate import price

    for model in dict.fromkeys(m for m in (settings.llm, settings.judge_llm) if m):
        if _sent_direct(model, settings):
            print(f"citefix: note: llm_transport 'direct' records no cost for {model!r}; --max-cost cannot count its "
                  "calls", file=sys.stderr)
        elif price(model, 1000, 100) is None:
            print(f"citefix: note: litellm's price table has no price for {model!r}; --max-cost cannot count its "
                  "calls", file=sys.stderr)
    return settings.budget


def _sent_direct(model: str, settings) -> bool:
    """Whether the model's calls go through the direct transport, which prices nothing (a Router's model does not)."""
    if getattr(settings, "llm_transport", "litellm") != "direct":
        return False
    from citefix.llm.router import model_names

    return model not in model_names(settings.router)
