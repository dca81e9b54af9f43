#!/usr/bin/env bash
# The TUI flow with an LLM (--llm) against the scripted loopback OpenAI-compatible server, in tmux (120x34):
# check (LLM ACUs + P(Yes) judge), two refinement rounds with the LLM reviser, diff, revert to round 1, export.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="$ROOT/.venv/bin/python"
WORK="$(mktemp -d)"
S="citefix-loopback-$$"
PORT="${PORT:-18765}"
snap() { tmux capture-pane -p -t "$S" > "$HERE/$1.txt"; tmux capture-pane -p -e -t "$S" > "$HERE/$1.ansi"; echo "saved $1"; }
wait_for() { local t=0; until tmux capture-pane -p -t "$S" | grep -q -- "$1"; do sleep 0.5; t=$((t + 1))
  if [ "$t" -gt $(( ${2:-60} * 2 )) ]; then echo "timed out waiting for: $1" >&2; tmux capture-pane -p -t "$S" >&2; exit 1; fi; done; }
keys() { tmux send-keys -t "$S" "$@"; sleep 0.6; }

mkfifo "$WORK/hold"
"$PY" "$HERE/loopback_server.py" "$PORT" < "$WORK/hold" & SERVER=$!
exec 3> "$WORK/hold"  # the server runs until this descriptor closes
trap 'tmux kill-session -t "$S" 2>/dev/null || true; exec 3>&-; wait $SERVER 2>/dev/null || true' EXIT
sleep 1
tmux new-session -d -s "$S" -x 120 -y 34 "cd '$WORK' && env HOME='$WORK' CITEFIX_HOME='$WORK/home' XDG_CONFIG_HOME='$WORK/config' \
  OPENAI_API_BASE=http://127.0.0.1:$PORT/v1 OPENAI_API_KEY=sk-loopback LITELLM_LOCAL_MODEL_COST_MAP=True \
  '$ROOT/.venv/bin/citefix' tui --example --llm openai/loopback; sleep 30"

wait_for "not checked yet" 30
keys c; wait_for "done in" 120;                    snap llm-01-checked
keys r; wait_for "proposed revision" 120;          snap llm-02-refine-1-proposal
keys a; wait_for "round 1 · score" 60; sleep 1
keys r; wait_for "proposed revision" 120
keys a; wait_for "round 2 · score" 60; sleep 1;    snap llm-03-refine-2-accepted
keys d; wait_for "Diff between rounds" 10;         snap llm-04-diff
keys escape; keys 3; keys Up; wait_for "Text · round 1 ·" 10
keys v; wait_for "round 1 · score" 30; sleep 1;    snap llm-05-reverted-to-round-1
keys x; wait_for "Export run" 10; sleep 1
tmux send-keys -t "$S" C-u; tmux send-keys -t "$S" -l "run.json"; sleep 0.3
keys Enter; wait_for "Exported" 30;                snap llm-06-exported
keys q; sleep 1
"$PY" - "$WORK/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("exported run", d["run"]["id"], "llm", d["run"]["llm"], "rounds", [(r["n"], r["accepted"], round(r["score"], 2)) for r in d["rounds"]],
      "model calls stored", len(d["calls"]))
PY
tmux kill-session -t "$S" 2>/dev/null || true

# A run made by `citefix refine` (headless) reopens in the TUI with all its rounds.
LLMENV=(HOME="$WORK" CITEFIX_HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/config" OPENAI_API_BASE="http://127.0.0.1:$PORT/v1"
        OPENAI_API_KEY=sk-loopback LITELLM_LOCAL_MODEL_COST_MAP=True)
RUN=$(cd "$WORK" && env "${LLMENV[@]}" "$ROOT/.venv/bin/citefix" refine --example summary --llm openai/loopback \
      --rounds 3 --json 2>/dev/null | "$PY" -c "import json,sys; print([json.loads(l) for l in sys.stdin if l.strip()][-1]['run_id'])")
echo "citefix refine made run $RUN"
tmux new-session -d -s "$S" -x 120 -y 34 "cd '$WORK' && env ${LLMENV[*]} '$ROOT/.venv/bin/citefix' tui --run $RUN --llm openai/loopback; sleep 30"
wait_for "run $RUN" 30; sleep 1;                      snap llm-07-refine-run-reopened
keys q; sleep 1
